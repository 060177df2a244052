/*
 * Planted object-level cost (DJXPerf, SciMark FFT): one big array walked with
 * a large, cache-hostile stride (bit-reversal order, as FFT does), next to
 * several small arrays that are allocated often but touched little. The big
 * array's allocation site must rank first, with most of the access samples.
 *
 * Usage: java ObjectsStride [passes]   (default 1500, about 4 s)
 *
 * With -Dwasp.truth.repeat=R (summary.py's CPU-share truth, run without the
 * agent) the planted loop (walk: the accesses to the big array) runs R times where
 * it ran once, and the main thread's CPU time is printed at the end
 * ("truth: cpu-ns N"), and its CPU time when main() began ("truth:
 * cpu-ns-before-main B": the JVM's start-up, which wasp does not sample):
 * the loop's share of the program's CPU is (T(1) - T(0)) / (T(1) - B(1)).
 * REPEAT is a static final: at its default 1 the JIT folds the repeat away.
 */
public class ObjectsStride {
    static final int N = 1 << 20; // 8 MB of doubles
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);

    static double walk(double[] a, int[] order) {
        double s = 0;
        for (int i = 0; i < order.length; i++) {
            int j = order[i];
            a[j] = a[j] * 0.5 + i;
            s += a[j];
        }
        return s;
    }

    public static void main(String[] args) {
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 1500; long b = truthCpu();
        double[] signal = new double[N]; // WASP-EXPECT: objects
        int[] order = new int[N / 16];
        for (int i = 0; i < order.length; i++) order[i] = Integer.reverse(i) >>> 12; // stride N/16 apart
        double checksum = 0;
        for (int p = 0; p < passes; p++) {
            for (int r = 0; r < REPEAT; r++)
                checksum += walk(signal, order);
            double[] scratch = new double[256]; // allocated every pass, barely touched
            scratch[p & 255] = checksum;
            checksum += scratch[(p * 7) & 255] + spin(p);
        }
        System.out.println("checksum: " + Long.toHexString(Double.doubleToLongBits(checksum)));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + truthCpu() + "\ntruth: cpu-ns-before-main " + b);
    }

    /* Work that touches no object, about a tenth of the main thread's CPU:
     * a share of the sampled memory accesses (the big array's ~99%) would
     * not tell it from the walk's cost; summary.objects's truth would. */
    static final int SPIN = Integer.getInteger("spin", 1 << 16);
    static long spin(int p) {
        long h = p;
        for (int k = 0; k < SPIN; k++) h = h * 6364136223846793005L + k;
        return h & 0xff;
    }

    static long truthCpu() {
        return Integer.getInteger("wasp.truth.repeat") == null ? 0
                : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
