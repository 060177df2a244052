/*
 * Creations made by the JVM's runtime, for docs/alloc.md: every step creates
 * a Small in compiled code, and every second step throws and catches an
 * exception, whose stack trace the runtime records in arrays it allocates
 * itself (clearing each body before it stores its header). Compare
 * `wasp run -e alloc` with the exact counts of
 * `wasp run -e objects --alloc-interval 0 --min-size 0 --alloc-rate 0`.
 *
 * Usage: java AllocExceptions [steps]   (default 4000000)
 */
public class AllocExceptions {
    static final class Small {
        final int v;
        Small(int v) { this.v = v; }
    }

    static int deep(int k) {
        if (k == 0)
            throw new IllegalStateException();
        return deep(k - 1) + 1;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 4_000_000;
        Object[] ring = new Object[4096];
        long small = 0, thrown = 0, sum = 0;
        for (int i = 0; i < n; i++) {
            ring[i & 4095] = new Small(i);
            small++;
            if ((i & 1) == 0) {
                try {
                    sum += deep(3);
                } catch (IllegalStateException e) {
                    ring[(i + 2) & 4095] = e;
                    thrown++;
                }
            }
            Object o = ring[(i + 9) & 4095];
            if (o instanceof Small)
                sum += ((Small) o).v;
        }
        System.out.println("allocations: AllocExceptions$Small=" + small + " thrown=" + thrown);
        System.out.println("checksum: " + Long.toHexString(sum));
    }
}
