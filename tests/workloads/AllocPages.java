/**
 * Objects of two sizes created slowly, for the test alloc.pages: a Small
 * (16 bytes) every step and an int[16380] (65,536 bytes: sixteen 4 KiB pages)
 * every 4,096 steps, each step first computing a while. By bytes half and
 * half; by count 99.98% Small.
 *
 * A program that allocates slowly gets boundaries picked densely by wasp's
 * alloc chains (their gap follows a number of catches per ms of CPU), so an
 * array holds several picks: each must count, not only the first (the
 * array's bytes came out 2-3 times short when the chain stopped at it).
 *
 * Usage: java AllocPages [millions-of-steps]   (default 1)
 * Prints "allocations: AllocPages$Small=N int[]=M" and "checksum: ...".
 */
public class AllocPages {
    static final class Small {
        final int v;

        Small(int v) {
            this.v = v;
        }
    }

    static final int ARRAY_EVERY = 4096;
    static final int WORK = 2048; // rounds a step: 6-7 MB/s of allocation here

    public static void main(String[] args) {
        long steps = (long) ((args.length > 0 ? Double.parseDouble(args[0]) : 1) * 1_000_000);
        Object[] ring = new Object[64];
        long small = 0, arrays = 0, x = 12345, checksum = 0;
        for (long i = 0; i < steps; i++) {
            for (int k = 0; k < WORK; k++) { // xorshift: no compiler shortens it
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            int at = (int) (i & 63);
            Object o = ring[at];
            if (o instanceof Small)
                checksum += ((Small) o).v;
            else if (o instanceof int[])
                checksum += ((int[]) o)[(int) (x >>> 60)];
            if (i % ARRAY_EVERY == ARRAY_EVERY - 1) {
                int[] a = new int[16380]; // 16 + 16380 x 4 = 65,536 bytes
                a[(int) (x >>> 60)] = (int) x;
                ring[at] = a;
                arrays++;
            } else {
                ring[at] = new Small((int) (x >>> 33));
                small++;
            }
        }
        System.out.println("allocations: AllocPages$Small=" + small + " int[]=" + arrays);
        System.out.println("checksum: " + Long.toHexString(checksum ^ x));
    }
}
