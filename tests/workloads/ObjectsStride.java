/*
 * Planted object-level cost (DJXPerf, SciMark FFT): one big array walked with
 * a large, cache-hostile stride (bit-reversal order, as FFT does), next to
 * several small arrays that are allocated often but touched little. The big
 * array's allocation site must rank first, with most of the access samples.
 *
 * Usage: java ObjectsStride [passes]   (default 1500, about 4 s)
 */
public class ObjectsStride {
    static final int N = 1 << 20; // 8 MB of doubles

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
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 1500;
        double[] signal = new double[N]; // WASP-EXPECT: objects
        int[] order = new int[N / 16];
        for (int i = 0; i < order.length; i++) order[i] = Integer.reverse(i) >>> 12; // stride N/16 apart
        double checksum = 0;
        for (int p = 0; p < passes; p++) {
            checksum += walk(signal, order);
            double[] scratch = new double[256]; // allocated every pass, barely touched
            scratch[p & 255] = checksum;
            checksum += scratch[(p * 7) & 255];
        }
        System.out.println("checksum: " + Long.toHexString(Double.doubleToLongBits(checksum)));
    }
}
