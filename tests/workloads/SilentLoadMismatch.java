/*
 * Planted inefficiency: SILENT LOADS inside a JVM stub.
 *
 * changed() compares a configuration with the one seen last time through
 * Arrays.equals on long[], which C2 runs in the generated vectorizedMismatch
 * stub. The arrays change in one word every few thousand rounds, so nearly
 * every load of the comparison reads the value the previous comparison read
 * at the same address. The loads run in the stub: the contexts must name
 * changed() and the comparison's line under the [jvm stub] frame (and the
 * JDK frames of Arrays.equals between them).
 *
 * Usage: java SilentLoadMismatch [rounds-in-thousands]   (default 10000, about 3 s)
 */
import java.util.Arrays;

public class SilentLoadMismatch {
    static final int N = 2048;

    static boolean changed(long[] config, long[] seen) {
        return !Arrays.equals(config, seen); // WASP-EXPECT: silentload
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
        long t0 = System.nanoTime();
        long[] config = new long[N];
        long[] seen = new long[N];
        for (int i = 0; i < N; i++)
            config[i] = seen[i] = i * 0x9E3779B97F4A7C15L;
        long checksum = 0;
        long rounds = thousands * 1000L;
        for (long r = 0; r < rounds; r++) {
            if (r % 4096 == 4095) // a rare change, at the end so the whole array is compared
                config[N - 1] += r;
            if (changed(config, seen)) {
                checksum += r;
                seen[N - 1] = config[N - 1];
            }
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("SilentLoadMismatch: %d k rounds in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
