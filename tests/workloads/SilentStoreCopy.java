/*
 * Planted inefficiency: SILENT STORES inside a JVM stub.
 *
 * publish() copies a snapshot into a mirror with System.arraycopy on every
 * round, but the snapshot changes in only one element per round, so nearly
 * every store of the copy writes the value already there. C2 compiles the
 * call to the generated arraycopy stub; the watched and trapping stores both
 * run in it, so the contexts must name publish() and the copy's line under
 * the [jvm stub] frame.
 *
 * Usage: java SilentStoreCopy [rounds-in-thousands]   (default 5000, about 3 s)
 */
public class SilentStoreCopy {
    static final int N = 4096;

    static void publish(long[] snapshot, long[] mirror) {
        System.arraycopy(snapshot, 0, mirror, 0, snapshot.length); // WASP-EXPECT: silentstore
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        long t0 = System.nanoTime();
        long[] snapshot = new long[N];
        long[] mirror = new long[N];
        for (int i = 0; i < N; i++)
            snapshot[i] = i * 0x9E3779B97F4A7C15L;
        long checksum = 0;
        long rounds = thousands * 1000L;
        for (long r = 0; r < rounds; r++) {
            snapshot[(int) (r % N)] += r;
            publish(snapshot, mirror);
            checksum += mirror[(int) ((r * 7) % N)];
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("SilentStoreCopy: %d k rounds in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
