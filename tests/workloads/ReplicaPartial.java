/*
 * Partial replicas: why OJXPerf needs α. Records (long[1024], 8 KiB) are
 * built from one template; one in four (independently, seeded) is the
 * template itself, every other one has CHANGED of its words (distinct
 * positions, chosen at random) replaced by a value that differs from the
 * template's. So a sampled word of one record very often equals the same word
 * of another record (sampled θ high) although whole records are rarely
 * identical (exact θ low, about (1/4)^2 = 0.06): most "same" comparisons are
 * false positives, and α — the chance that a sampled word is equal when the
 * records differ — is high (about 0.85). OJXPerf's lower bound ω = θ − α is
 * then near the small whole-record replication, as it should be.
 *
 * Records are independent and identically distributed, so these chances do
 * not depend on which pairs of records a sampler compares. All three numbers
 * printed are measured over consecutive pairs of records:
 *   replication: X   the fraction of pairs bitwise identical (exact θ)
 *   field-equal: Y   the fraction of words equal at the same index (what a
 *                    sampler comparing one word per pair estimates)
 *   alpha: Z         the same fraction over the pairs that are not identical
 *
 * Usage: java ReplicaPartial [records]   (default 160000, about 3-4 s)
 */
import java.util.Arrays;

public class ReplicaPartial {
    static final int WORDS = 1024;
    static final int CHANGED = 96;    // words changed in a non-template record
    static final int TEMPLATE = 4;    // one record in TEMPLATE is the template
    static final int PASSES = 12;

    static long seed = 0x6A09E667F3BCC909L;

    static long next() {
        long s = seed;
        s ^= s << 13;
        s ^= s >>> 7;
        s ^= s << 17;
        return seed = s;
    }

    static final long[] template = new long[WORDS];

    static long[] build() {
        long[] rec = new long[WORDS]; // WASP-EXPECT: replicas
        System.arraycopy(template, 0, rec, 0, WORDS);
        if (Long.remainderUnsigned(next(), TEMPLATE) != 0) {
            // CHANGED distinct positions: start + j * step (mod 1024), step odd.
            int start = (int) (next() & (WORDS - 1));
            int step = (int) (next() & (WORDS - 1)) | 1;
            for (int j = 0; j < CHANGED; j++) {
                int i = (start + j * step) & (WORDS - 1);
                long x = next();
                rec[i] ^= x == 0 ? 1 : x;
            }
        }
        return rec;
    }

    static long consume(long[] rec) {
        long h = 0;
        for (int p = 0; p < PASSES; p++) {
            long a = p, b = 0;
            for (int i = 0; i < rec.length; i += 2) {
                a = a * 31 + rec[i];
                b = b * 17 + rec[i + 1];
            }
            h = h * 1000003 + a + b;
        }
        return h;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 160000;
        for (int i = 0; i < WORDS; i++)
            template[i] = next();
        long[] prev = null;
        long same = 0, pairs = 0, equalWords = 0, equalWordsDiffering = 0, checksum = 0;
        for (int k = 0; k < n; k++) {
            long[] rec = build();
            checksum = checksum * 31 + consume(rec);
            if (prev != null) {
                pairs++;
                int eq = 0;
                for (int i = 0; i < WORDS; i++)
                    if (prev[i] == rec[i])
                        eq++;
                equalWords += eq;
                if (eq == WORDS && Arrays.equals(prev, rec))
                    same++;
                else
                    equalWordsDiffering += eq;
            }
            prev = rec;
        }
        System.out.printf("records: %d%n", n);
        System.out.printf("replication: %.4f%n", (double) same / pairs);
        System.out.printf("field-equal: %.4f%n", (double) equalWords / ((double) pairs * WORDS));
        System.out.printf("alpha: %.4f%n", (double) equalWordsDiffering / ((double) (pairs - same) * WORDS));
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
