/*
 * Control for object replicas: the same shape as ReplicaReader (a fresh
 * buffer per call, filled, then read in several passes) but every buffer
 * holds new random content in every word, so no two buffers are replicas and
 * no sampled field of one equals the same field of another (but by a 2^-64
 * chance). The site's replication factor must come out near 0.
 *
 * Usage: java ReplicaControl [buffers]   (default 160000, about 3-4 s)
 * Prints "replication: X" (exact θ: the fraction of consecutive pairs of
 * buffers that are bitwise identical, 0), "field-equal: Y" (the fraction of
 * words equal between consecutive buffers, 0) and "checksum: ...".
 */
import java.util.Arrays;

public class ReplicaControl {
    static final int WORDS = 1024;   // 8 KiB per buffer
    static final int PASSES = 12;

    static long seed = 0x2545F4914F6CDD1DL;

    static long next() {
        long s = seed;
        s ^= s << 13;
        s ^= s >>> 7;
        s ^= s << 17;
        return seed = s;
    }

    static long[] fill() {
        long[] buf = new long[WORDS]; // WASP-EXPECT: replicas
        for (int i = 0; i < WORDS; i++)
            buf[i] = next();
        return buf;
    }

    static long consume(long[] buf) {
        long h = 0;
        for (int p = 0; p < PASSES; p++) {
            long a = p, b = 0;
            for (int i = 0; i < buf.length; i += 2) {
                a = a * 31 + buf[i];
                b = b * 17 + buf[i + 1];
            }
            h = h * 1000003 + a + b;
        }
        return h;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 160000;
        long[] prev = null;
        long same = 0, pairs = 0, equalWords = 0, checksum = 0;
        for (int k = 0; k < n; k++) {
            long[] buf = fill();
            checksum = checksum * 31 + consume(buf);
            if (prev != null) {
                pairs++;
                if (Arrays.equals(prev, buf))
                    same++;
                for (int i = 0; i < WORDS; i++)
                    if (prev[i] == buf[i])
                        equalWords++;
            }
            prev = buf;
        }
        System.out.printf("buffers: %d%n", n);
        System.out.printf("replication: %.4f%n", (double) same / pairs);
        System.out.printf("field-equal: %.4f%n", (double) equalWords / ((double) pairs * WORDS));
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
