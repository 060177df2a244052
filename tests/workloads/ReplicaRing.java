/*
 * Planted object replicas in a loop of their own, for the summary's CPU
 * share against a truth (issue 40: the share of the program's CPU that the
 * finding's code takes, against that code's time measured without the
 * agent).
 *
 * Each round copies a template table into a new int[] (the copies, every one
 * identical to the others: replicas, all made at one line), keeps it in a
 * small ring of recent copies, as a cache of per-request state would, and
 * reads the copy in a few passes. The copy is one line and the reads are one
 * line, so those two lines' samples are the replicas' time, and taking them
 * away takes nothing else with it (ReplicaKMeans's readers share their lines
 * with arithmetic on other arrays: docs/findings.md). The rest of a round is
 * a chain of multiplies that touches no memory, about as long.
 *
 * The copies are 256 KiB, a round about 0.2 ms (JDK 25): at its default
 * allocation sampling (about a thousand events a second) the agent tracks
 * about one copy in five, enough to compare them at their births and to
 * find the reads' line among their accesses. summary.py runs it with a heap
 * written at start-up (-XX:+AlwaysPreTouch), as AllocRing: a first write to
 * fresh heap memory costs a page fault in the kernel, which the perf
 * sampler does not see.
 *
 * Usage: java ReplicaRing [rounds]   (default 6000)
 * Prints "checksum: ...". With -Dwasp.truth.repeat (summary.py's truth, run
 * without the agent) the copies' share of the program's CPU, measured within
 * the run against the same rounds without the copy and its reads
 * (TruthChunks).
 */
public class ReplicaRing {
    static final int N = 65536; /* int[65536]: 256 KiB a copy */
    static final int RING = 4;
    static final int PASSES = 4;
    static final int SPIN = 80000;

    static int[] copy(int[] template, int[][] ring, int r) {
        int[] c = new int[N]; for (int j = 0; j < N; j++) c[j] = template[j]; ring[r % RING] = c; return c; // WASP-EXPECT: replicas
    }

    static long read(int[] c, long h) {
        for (int p = 0; p < PASSES; p++) for (int j = 0; j < c.length; j++) h += c[j] ^ p;
        return h;
    }

    /* The rest of the round: a dependency chain of multiplies, no memory. */
    static long spin(long h) {
        for (int k = 0; k < SPIN; k++) h = h * 0x9E3779B97F4A7C15L + k;
        return h;
    }

    /* Rounds [from, to): a copy, its reads, the spin. */
    static long rounds(int[] template, int[][] ring, long h, int from, int to) {
        for (int r = from; r < to; r++) {
            int[] c = copy(template, ring, r);
            h = read(c, h);
            h = spin(h);
        }
        return h;
    }

    /* The same rounds without the copies, for the truth. */
    static long roundsWithoutCopies(long h, int from, int to) {
        for (int r = from; r < to; r++)
            h = spin(h);
        return h;
    }

    public static void main(String[] args) {
        int all = args.length > 0 ? Integer.parseInt(args[0]) : 6000;
        int[] template = new int[N];
        for (int j = 0; j < N; j++)
            template[j] = j * 0x9E3779B9;
        int[][] ring = new int[RING][];
        TruthChunks truth = new TruthChunks() {
            long planted(long h, int from, int to) {
                return rounds(template, ring, h, from, to);
            }

            long twin(long h, int from, int to) {
                return roundsWithoutCopies(h, from, to);
            }
        };
        long h = truth.run(all, 1);
        System.out.println("checksum: " + Long.toHexString(h));
        truth.print();
    }
}
