/*
 * Planted inefficiency: SILENT STORES in a loop of their own, for the
 * summary's CPU share against a truth (issue 40: the share of the program's
 * CPU that the finding's code takes, against that code's time measured
 * without the agent).
 *
 * Each round changes one element of a table and then refreshes a cache of
 * the table, all of it: every store of the refresh but one writes the value
 * already there, and the next store to the same element is the same line a
 * round later (a silent store pair <planted line, planted line>). The
 * refresh is one line, its loop's header and body, so the line's samples
 * are the loop's time, and taking the loop away takes nothing else with it
 * (SilentStoreIS's planted line is straight code on a dependency chain,
 * whose samples are more than what removing it saves: docs/findings.md).
 * The rest of a round reads the cache at scattered places (loads only: no
 * other silent stores), about as long as the refresh.
 *
 * Usage: java SilentStoreRefresh [rounds-in-thousands]   (default 12000)
 * Prints "checksum: ...". With -Dwasp.truth.repeat (summary.py's truth, run
 * without the agent) the rounds run in ten chunks, each followed by as many
 * rounds without the refresh, all timed in the main thread's CPU time: the
 * refresh costs the difference. It prints the program's CPU (less the JVM's
 * start-up before main() and the rounds without the refresh: "truth: cpu-ns
 * N") and that difference ("truth: part-ns P"): the refresh's share is P /
 * N. Both halves of a difference run in one JVM, the same compiled code,
 * milliseconds apart: measured across runs with the refresh and without it,
 * JDK 17's truth moved 0.37-0.66 within one test's pairs, as the copy loop
 * was compiled one way or another from one run to the next.
 */
public class SilentStoreRefresh {
    static final int N = 2048; /* two 16 KiB arrays: both stay in the cache */
    static final int READS = 64;
    static final boolean TRUTH = Integer.getInteger("wasp.truth.repeat") != null;

    static void refresh(long[] cache, long[] table) {
        for (int i = 0; i < cache.length; i++) cache[i] = table[i]; // WASP-EXPECT: silentstore
    }

    /* The rest of the round: scattered reads of the cache, a dependency
     * chain of multiplies. */
    static long digest(long[] cache, long h) {
        for (int k = 0; k < READS; k++)
            h = h * 0x9E3779B97F4A7C15L + cache[(int) (h >>> 53)];
        return h;
    }

    /* Rounds [from, to): a change to the table, the refresh, the reads. */
    static long rounds(long[] cache, long[] table, long h, long from, long to) {
        for (long r = from; r < to; r++) {
            table[(int) (r % N)] += r;
            refresh(cache, table);
            h = digest(cache, h);
        }
        return h;
    }

    /* The same rounds without the refresh, for the truth. */
    static long roundsWithoutRefresh(long[] cache, long[] table, long h, long from, long to) {
        for (long r = from; r < to; r++) {
            table[(int) (r % N)] += r;
            h = digest(cache, h);
        }
        return h;
    }

    public static void main(String[] args) {
        long before = truthCpu();
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 12000;
        long[] table = new long[N], cache = new long[N];
        for (int i = 0; i < N; i++)
            table[i] = cache[i] = i * 0x9E3779B97F4A7C15L;
        long h = 1, all = thousands * 1000L, with = 0, without = 0;
        /* In ten chunks with the truth or without, so that the JIT compiles
         * the same code both ways. */
        for (int c = 0; c < 10; c++) {
            long from = all * c / 10, to = all * (c + 1) / 10;
            long a = truthCpu();
            h = rounds(cache, table, h, from, to);
            if (TRUTH) {
                long b = truthCpu();
                roundsWithoutRefresh(cache, table, h, from, to);
                without += truthCpu() - b;
                with += b - a;
            }
        }
        System.out.println("checksum: " + Long.toHexString(h));
        if (TRUTH)
            System.err.println("truth: cpu-ns " + (truthCpu() - before - without) + "\ntruth: part-ns "
                    + (with - without));
    }

    static long truthCpu() {
        return !TRUTH ? 0 : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
