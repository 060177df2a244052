/*
 * Control for the object-centric view (DJXPerf, lusearch's collector): an
 * object allocated very often (a 4 KB collector per query) but barely accessed
 * must NOT rank high; the long-lived index that every query reads must. The
 * index is built from many slices, each allocated at the planted line, and
 * is kept alive across the garbage collections the churn causes, so the test
 * also checks that samples follow objects the collector moves.
 *
 * Usage: java ObjectsChurn [queries-in-thousands]   (default 1000, about 4 s)
 */
public class ObjectsChurn {
    static final int SLICES = 64, SLICE = 16 * 1024; // 64 x 64 KB of ints

    static int[] newSlice() {
        return new int[SLICE]; // WASP-EXPECT: objects
    }

    public static void main(String[] args) {
        int queries = (args.length > 0 ? Integer.parseInt(args[0]) : 1000) * 1000;
        int[][] index = new int[SLICES][];
        for (int s = 0; s < SLICES; s++) {
            index[s] = newSlice();
            for (int i = 0; i < SLICE; i++) index[s][i] = (s * SLICE + i) * 0x9E3779B1;
        }
        long checksum = 0;
        for (int q = 0; q < queries; q++) {
            byte[] collector = new byte[4096]; // allocated per query, touched twice
            collector[q & 4095] = (byte) q;
            int[] slice = index[q & (SLICES - 1)];
            int hits = 0;
            for (int i = (q >>> 6) & 63; i < SLICE; i += 64) hits += (slice[i] >>> 31);
            checksum = checksum * 31 + hits + collector[(q * 13) & 4095];
            if ((q & 8191) == 0) { // now and then the index is rebuilt: objects move and die
                int s = (q >>> 13) & (SLICES - 1);
                int[] fresh = newSlice();
                System.arraycopy(index[s], 0, fresh, 0, SLICE);
                index[s] = fresh;
            }
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
