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
 * Prints "checksum: ...". With -Dwasp.truth.repeat=R (summary.py's truth,
 * run without the agent) the refresh runs R times a round (at 0 the cache
 * keeps its first copy), and the main thread's CPU time is printed at the
 * end ("truth: cpu-ns N") with its CPU time when main() began ("truth:
 * cpu-ns-before-main B": the JVM's start-up, which wasp does not sample):
 * the refresh's share is (T(1) - T(0)) / (T(1) - B(1)). REPEAT is a static
 * final: at its default 1 the JIT folds the repeat away.
 */
public class SilentStoreRefresh {
    static final int N = 2048; /* two 16 KiB arrays: both stay in the cache */
    static final int READS = 64;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);

    static void refresh(long[] cache, long[] table) {
        for (int r = 0; r < REPEAT; r++) for (int i = 0; i < cache.length; i++) cache[i] = table[i]; // WASP-EXPECT: silentstore
    }

    /* The rest of the round: scattered reads of the cache, a dependency
     * chain of multiplies. */
    static long digest(long[] cache, long h) {
        for (int k = 0; k < READS; k++)
            h = h * 0x9E3779B97F4A7C15L + cache[(int) (h >>> 53)];
        return h;
    }

    public static void main(String[] args) {
        long before = truthCpu();
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 12000;
        long[] table = new long[N], cache = new long[N];
        for (int i = 0; i < N; i++)
            table[i] = cache[i] = i * 0x9E3779B97F4A7C15L;
        long h = 1;
        for (long r = 0, rounds = thousands * 1000L; r < rounds; r++) {
            table[(int) (r % N)] += r;
            refresh(cache, table);
            h = digest(cache, h);
        }
        System.out.println("checksum: " + Long.toHexString(h));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + truthCpu() + "\ntruth: cpu-ns-before-main " + before);
    }

    static long truthCpu() {
        return Integer.getInteger("wasp.truth.repeat") == null ? 0
                : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
