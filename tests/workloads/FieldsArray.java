/*
 * Planted hot array among many (Inoue and Nakatani's object profile): seven
 * arrays of seven element types, 4 MiB or more each; six are summed in one
 * sequential pass per round (cheap: the hardware prefetches them), while the
 * short[] histogram is updated at random positions on every step (a cache
 * miss each). The samples land on the histogram's elements.
 *
 * Usage: java FieldsArray [rounds]   (default 24, about 3 s)
 * Prints "checksum: ...".
 */
public class FieldsArray {
    static final int N = 1 << 22;
    static final int BINS = 1 << 24; // short[16M] = 32 MiB: no cache holds it

    static long scan(byte[] b, char[] c, int[] i, long[] l, float[] f, double[] d) {
        long s = 0;
        for (int k = 0; k < N; k++)
            s += b[k] + c[k] + i[k] + l[k] + (long) f[k] + (long) d[k];
        return s;
    }

    static void count(short[] hist, int[] keys) {
        for (int k = 0; k < keys.length; k++)
            hist[keys[k]]++; // WASP-EXPECT: fields
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 24;
        byte[] b = new byte[N];
        char[] c = new char[N];
        int[] ints = new int[N];
        long[] l = new long[N];
        float[] f = new float[N];
        double[] d = new double[N];
        int[] keys = new int[N];
        long s = 0x2545F4914F6CDD1DL;
        for (int k = 0; k < N; k++) {
            s ^= s << 13; s ^= s >>> 7; s ^= s << 17;
            keys[k] = (int) Long.remainderUnsigned(s, BINS);
            b[k] = (byte) s; c[k] = (char) s; ints[k] = (int) s; l[k] = s; f[k] = k; d[k] = k;
        }
        short[] hist = new short[BINS]; // WASP-FIELD: short[]
        long checksum = 0;
        for (int r = 0; r < rounds; r++) {
            count(hist, keys);
            checksum = checksum * 31 + scan(b, c, ints, l, f, d);
        }
        for (int k = 0; k < BINS; k += 4096)
            checksum += hist[k];
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
