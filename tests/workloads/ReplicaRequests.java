/*
 * Object replicas at defaults, as a server builds them (issue 14): every
 * request builds a 2 KiB lookup table whose contents never change — a
 * replica of the previous request's — next to a scratch table of the same
 * size whose contents are new every time, and a smaller array of counts that
 * the request writes at two places only (as lucene's ExactPhraseScorer makes
 * counts and gens arrays for every scorer): its objects are equal too, but
 * because they are mostly zeros, not copies. All die with the request, so a
 * sample rarely hits one of them twice: the comparisons have to come from
 * watching new objects.
 *
 * Usage: java [-Dwasp.announce=true] ReplicaRequests [requests]
 *   (default 1000000, about 2 s; with wasp.announce it prints "ready" after a
 *   tenth of the requests, JIT-warm, for a profiler to attach)
 * Prints "replication: X" (the share of consecutive lookup tables that are
 * bitwise identical: 1), "scratch-replication: Y" (the same for the scratch
 * tables: 0), "counts-zero: Z" (the share of the counts' words that are
 * zero when the request ends) and "checksum: ...".
 */
import java.util.Arrays;

public class ReplicaRequests {
    static final int SIZE = 512; // ints: 2 KiB of contents

    static int[] lookupTable() {
        int[] t = new int[SIZE]; // WASP-EXPECT: replicas
        for (int i = 0; i < SIZE; i++)
            t[i] = i * 7 + 3;
        return t;
    }

    static long seed = 0x2545F4914F6CDD1DL;

    static int[] scratchTable() {
        int[] s = new int[SIZE]; // WASP-UNIQUE: replicas
        long x = seed;
        for (int i = 0; i < SIZE; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            s[i] = (int) x;
        }
        seed = x;
        return s;
    }

    static final int COUNTS = 256; // ints: 1 KiB (tracked: 1 KiB and more), two of them written

    static int[] counts(int k) {
        int[] c = new int[COUNTS]; // WASP-ZERO: replicas
        c[k & (COUNTS - 1)] = k;
        c[(k * 31 + 7) & (COUNTS - 1)] += 1;
        return c;
    }

    static long serve(int[] table, int[] scratch, int[] counts, int k) {
        long h = k + counts[k & (COUNTS - 1)];
        for (int i = 0; i < 64; i++) {
            int j = (k + i * 37) & (SIZE - 1);
            h = h * 31 + table[j] + scratch[SIZE - 1 - j];
        }
        return h;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000000;
        int[] prevTable = null, prevScratch = null;
        long checksum = 0, pairs = 0, sameTables = 0, sameScratch = 0, countWords = 0, zeroWords = 0;
        int announceAt = Boolean.getBoolean("wasp.announce") ? n / 10 : -1;
        for (int k = 0; k < n; k++) {
            if (k == announceAt) {
                System.out.println("ready");
                System.out.flush();
            }
            int[] table = lookupTable();
            int[] scratch = scratchTable();
            int[] c = counts(k);
            checksum = checksum * 1000003 + serve(table, scratch, c, k);
            if (k % 64 == 0) {
                countWords++;
                for (int i = 0; i < COUNTS; i += 2)
                    if (c[i] == 0 && c[i + 1] == 0)
                        zeroWords++;
            }
            if (k % 64 == 0) { // the exact answer, on a sample of consecutive pairs
                if (prevTable != null) {
                    pairs++;
                    if (Arrays.equals(prevTable, table))
                        sameTables++;
                    if (Arrays.equals(prevScratch, scratch))
                        sameScratch++;
                }
            }
            if (k % 64 == 63) {
                prevTable = table;
                prevScratch = scratch;
            }
        }
        System.out.println("replication: " + (pairs > 0 ? (double) sameTables / pairs : 0));
        System.out.println("scratch-replication: " + (pairs > 0 ? (double) sameScratch / pairs : 0));
        System.out.println("counts-zero: " + (countWords > 0 ? (double) zeroWords / (countWords * COUNTS / 2) : 0));
        System.out.println("checksum: " + checksum);
    }
}
