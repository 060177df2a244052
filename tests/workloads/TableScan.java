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
 * without the agent) the sums' share of the program's CPU, measured within
 * the run against the same rounds without the sums (TruthChunks).
 */
public class TableScan {
    static final int N = 1 << 16; /* int[65536]: 256 KiB */
    static final int SPIN = 15000;

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
        int all = args.length > 0 ? Integer.parseInt(args[0]) : 40000;
        int[] table = new int[N]; // WASP-EXPECT: objects
        for (int j = 0; j < N; j++)
            table[j] = j * 0x9E3779B9;
        TruthChunks truth = new TruthChunks() {
            long planted(long h, int from, int to) {
                return rounds(table, h, from, to);
            }

            long twin(long h, int from, int to) {
                return roundsWithoutSums(h, from, to);
            }
        };
        long h = truth.run(all, 1);
        System.out.println("checksum: " + Long.toHexString(h));
        truth.print();
    }
}
