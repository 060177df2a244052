/*
 * Planted allocation profile by bytes (issue 41: wasp's estimated bytes
 * beside JFR's jdk.ObjectAllocationSample). Each step allocates one object,
 * chosen at random (a fixed LCG: the same run every time) in the
 * proportions 64 Small (16 bytes each) : 48 Medium (64 bytes) : 6
 * long[126] (1024 bytes), so by bytes 10 : 30 : 60 while by count
 * 54 : 41 : 5 (sizes with HotSpot's default 12-byte headers, compressed
 * class pointers). Each object is kept for a while in a ring (so none is
 * scalar-replaced) and read back into the checksum. The counts allocated
 * are printed as the reference (the long[] line, 60% of the bytes, is the
 * marked one: the report ranks by bytes):
 *
 *   allocations: AllocBytes$Small=N AllocBytes$Medium=N long[]=N
 *
 * With "large" (issue 41, docs/alloc.md "Outside TLABs"), every 131072nd
 * step also allocates an int[2097152] (8 MiB + 16 bytes), which HotSpot
 * allocates outside any TLAB (above the largest TLAB; 1 MiB ones went half
 * into grown TLABs, JFR showed): 7.6 per million steps, 64.0 MB beside the
 * mix's 86.8 MB, so by bytes int[] 42.4%, long[] 34.5%, Medium 17.3%,
 * Small 5.8%; the line then ends " int[]=N".
 *
 * Usage: java AllocBytes [millions-of-steps] [large]   (default 20; truth: REPEAT)
 * Prints "checksum: ...".
 */
public class AllocBytes {
    static final int RING = 1 << 12;

    static final class Small { /* 12 + 4 = 16 bytes */
        final int v;
        Small(int v) { this.v = v; }
    }

    static final class Medium { /* 12 + 6 x 8 = 60, aligned to 64 bytes */
        final long a, b, c, d, e, f;
        Medium(long a, long b) { this.a = a; this.b = b; c = a ^ b; d = a + 1; e = b + 1; f = a - b; }
    }

    static long small, medium, longs, ints;
    static final int LARGE_EVERY = 1 << 17, LARGE_INTS = 1 << 21;
    static boolean large;

    static long churn(Object[] ring, int steps, long[] seed) {
        long sum = 0, x = seed[0];
        for (int i = 0; i < steps; i++) {
            /* Which class, at random in the proportions 64 : 48 : 6: a fixed
             * pattern would line up with page boundaries and TLAB ends, which
             * both samplers pick by. */
            x = x * 6364136223846793005L + 1442695040888963407L;
            int r = (int) ((x >>> 33) % 118);
            int at = i & (RING - 1);
            if (r < 64) {
                ring[at] = new Small(i);
                small++;
            } else if (r < 112) {
                ring[at] = new Medium(i, sum);
                medium++;
            } else {
                long[] a = REPEAT == 0 ? SHARED : new long[126]; // WASP-EXPECT: alloc (16 + 126 x 8 = 1024 bytes)
                a[0] = i;
                ring[at] = a;
                longs++;
            }
            if (large && (i & (LARGE_EVERY - 1)) == 0) {
                int[] big = new int[LARGE_INTS]; // outside TLABs
                big[i & (LARGE_INTS - 1)] = i;
                ring[(at + 1) & (RING - 1)] = big;
                ints++;
            }
            Object o = ring[(i + 7) & (RING - 1)];
            if (o instanceof Small)
                sum += ((Small) o).v;
            else if (o instanceof Medium)
                sum += ((Medium) o).f;
            else if (o instanceof long[])
                sum += ((long[]) o)[0];
            else if (o != null)
                sum += ((int[]) o)[i & (LARGE_INTS - 1)];
        }
        seed[0] = x;
        return sum;
    }

    public static void main(String[] args) {
        int millions = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        large = args.length > 1 && args[1].equals("large");
        Object[] ring = new Object[RING];
        long[] seed = {42};
        long checksum = 0;
        for (int m = 0; m < millions; m++)
            checksum = checksum * 31 + churn(ring, 1_000_000, seed);
        System.out.println("allocations: AllocBytes$Small=" + small + " AllocBytes$Medium=" + medium
                + " long[]=" + longs + (large ? " int[]=" + ints : ""));
        System.out.println("checksum: " + Long.toHexString(checksum));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
    }

    /* With -Dwasp.truth.repeat=0 (summary.py's CPU-share truth, run without
     * the agent) the planted creation does not run: the long[] of every
     * such step is one array, created before the run, so nothing takes the
     * creations' place (a pool of arrays, one per ring slot, cost as much in
     * cache misses as the creations did, and measured none of their cost).
     * The values read back, and so the checksum, differ. With
     * -Dwasp.truth.repeat (0 or 1) the main thread's CPU time is printed at
     * the end ("truth: cpu-ns N"): the creations' share of the program's CPU
     * is (T(1) - T(0)) / T(1). REPEAT is a static final: at its default 1
     * the JIT folds the choice away. Declared last so the lines above keep
     * their numbers. */
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);
    static final long[] SHARED = new long[126];
}
