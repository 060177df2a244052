/*
 * Planted object-level cost (DJXPerf, batik's makeRoom): a buffer that grows by
 * reallocation — every append past the capacity allocates a new, larger array
 * and copies the old contents — and is then read over and over. The arrays
 * allocated on the planted line carry almost all of the program's memory
 * accesses: the object-centric view must rank that allocation site first.
 * A smaller lookup table (its own site) takes a minor share.
 *
 * Usage: java ObjectsMakeRoom [rounds]   (default 60, about 4 s)
 */
public class ObjectsMakeRoom {
    static double[] data = new double[16];
    static int size;

    static void makeRoom(int needed) {
        if (needed <= data.length) return;
        double[] bigger = new double[Math.max(needed, data.length * 2)]; // WASP-EXPECT: objects
        System.arraycopy(data, 0, bigger, 0, size);
        data = bigger;
    }

    static void append(double v) {
        makeRoom(size + 1);
        data[size++] = v;
    }

    static double scan(int[] weights) {
        double s = 0;
        for (int i = 0; i < size; i++) s += data[i] * weights[i & 1023];
        return s;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int[] weights = new int[1024];
        for (int i = 0; i < weights.length; i++) weights[i] = (i * 7) & 15;
        double checksum = 0;
        for (int r = 0; r < rounds; r++) {
            data = new double[16];
            size = 0;
            for (int i = 0; i < 400_000; i++) append(i ^ r);
            for (int k = 0; k < 40; k++) checksum += scan(weights);
        }
        System.out.println("checksum: " + Long.toHexString(Double.doubleToLongBits(checksum)));
    }
}
