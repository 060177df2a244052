/*
 * Planted object-creation profile (Inoue and Nakatani, Section 5.1: object
 * creations from sampled stores of the class word). Every step allocates a
 * Small at the planted line and, on a fixed pattern, a Medium (every second
 * step), a Pair (every fourth) and an int[4] (every eighth): 8 : 4 : 2 : 1.
 * Each object is kept for a while in a ring (so none is scalar-replaced) and
 * read back into the checksum. The counts of what was allocated are printed
 * as the reference profile:
 *
 *   allocations: AllocMix$Small=N AllocMix$Medium=N AllocMix$Pair=N int[]=N
 *
 * Usage: java AllocMix [millions-of-steps]   (default 40, about 3 s)
 * Prints "checksum: ...".
 */
public class AllocMix {
    static final int RING = 1 << 12;

    static final class Small {
        final int v;
        Small(int v) { this.v = v; }
    }

    static final class Medium {
        final long a, b;
        Medium(long a, long b) { this.a = a; this.b = b; }
    }

    static final class Pair {
        final Object first;
        final int n;
        Pair(Object first, int n) { this.first = first; this.n = n; }
    }

    static long small, medium, pair, ints;

    static long churn(Object[] ring, int steps) {
        long sum = 0;
        for (int i = 0; i < steps; i++) {
            Small s = new Small(i); // WASP-EXPECT: alloc
            ring[i & (RING - 1)] = s;
            small++;
            if ((i & 1) == 0) {
                ring[(i + 1) & (RING - 1)] = new Medium(i, sum);
                medium++;
            }
            if ((i & 3) == 1) {
                ring[(i + 2) & (RING - 1)] = new Pair(s, i);
                pair++;
            }
            if ((i & 7) == 3) {
                int[] a = new int[4];
                a[i & 3] = i;
                ring[(i + 3) & (RING - 1)] = a;
                ints++;
            }
            Object o = ring[(i + 7) & (RING - 1)];
            if (o instanceof Small)
                sum += ((Small) o).v;
            else if (o instanceof Medium)
                sum += ((Medium) o).a;
            else if (o instanceof Pair)
                sum += ((Pair) o).n;
            else if (o != null)
                sum += ((int[]) o)[1];
        }
        return sum;
    }

    public static void main(String[] args) {
        int millions = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        Object[] ring = new Object[RING];
        long checksum = 0;
        for (int m = 0; m < millions; m++)
            checksum = checksum * 31 + churn(ring, 1_000_000);
        System.out.println("allocations: AllocMix$Small=" + small + " AllocMix$Medium=" + medium
                + " AllocMix$Pair=" + pair + " int[]=" + ints);
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
