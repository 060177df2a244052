/*
 * Planted hot object and silent loads in a loop of their own, for the
 * summary's CPU share against a truth (issue 40: the share of the program's
 * CPU that the finding's code takes, against that code's time measured
 * without the agent).
 *
 * One table, allocated once and never written again, is summed whole each
 * round on one line, the loop's header and body: nearly every instruction
 * of it a load of the table (its samples are the accesses to the table's
 * objects: objects), and every load reads what the same load read a round
 * before (silent loads: silentload). The rest of a round is a chain of
 * multiplies that touches no memory, about as long. ObjectsStride's walk
 * computes its indexes beside its accesses, and SilentLoadSearch's loop
 * header is a line of its own: their loops' time holds more than the
 * findings' code (docs/findings.md).
 *
 * Usage: java TableScan [rounds]   (default 40000)
 * Prints "checksum: ...". With -Dwasp.truth.repeat (summary.py's truth, run
 * without the agent) the rounds run in ten chunks, each followed by as many
 * rounds without the sums, all timed in the main thread's CPU time: the
 * sums cost the difference. It prints the program's CPU (less the JVM's
 * start-up before main() and the rounds without the sums: "truth: cpu-ns
 * N") and that difference ("truth: part-ns P"): the sums' share is P / N.
 */
public class TableScan {
    static final int N = 1 << 16; /* int[65536]: 256 KiB */
    static final int SPIN = 15000;
    static final boolean TRUTH = Integer.getInteger("wasp.truth.repeat") != null;

    static int sum(int[] table, int s) {
        for (int j = 0; j < table.length; j++) s += table[j]; // WASP-EXPECT: silentload
        return s;
    }

    /* The rest of the round: a dependency chain of multiplies, no memory. */
    static long spin(long h) {
        for (int k = 0; k < SPIN; k++) h = h * 0x9E3779B97F4A7C15L + k;
        return h;
    }

    static long rounds(int[] table, long h, int from, int to) {
        for (int r = from; r < to; r++)
            h = spin(h + sum(table, r));
        return h;
    }

    /* The same rounds without the sums, for the truth. */
    static long roundsWithoutSums(long h, int from, int to) {
        for (int r = from; r < to; r++)
            h = spin(h + r);
        return h;
    }

    public static void main(String[] args) {
        long before = truthCpu();
        int all = args.length > 0 ? Integer.parseInt(args[0]) : 40000;
        int[] table = new int[N]; // WASP-EXPECT: objects
        for (int j = 0; j < N; j++)
            table[j] = j * 0x9E3779B9;
        long h = 1, with = 0, without = 0;
        /* In ten chunks with the truth or without, so that the JIT compiles
         * the same code both ways. */
        for (int c = 0; c < 10; c++) {
            int from = all * c / 10, to = all * (c + 1) / 10;
            long a = truthCpu();
            h = rounds(table, h, from, to);
            if (TRUTH) {
                long b = truthCpu();
                h ^= roundsWithoutSums(h, from, to);
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
