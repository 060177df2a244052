/*
 * Lifecycle workload: how the program ends must not cost the profile.
 *
 *   java Lifecycle exit3 [millis]   computes for about `millis` ms (wall clock)
 *                                  (default 1500), prints its checksum and
 *                                  ends with System.exit(3).
 *   java Lifecycle ready-exit3 millis  prints "ready" (flushed) once the JVM
 *                                  is up, then as exit3: a JVM whose end a
 *                                  test can place against an attach's end.
 *   java Lifecycle forever [millis] computes for about `millis` ms (default
 *                                  500), prints "ready" (flushed), then keeps
 *                                  computing until it is killed (the test sends
 *                                  SIGTERM once it has read "ready").
 *
 * The computation has a little of each planted waste (a silent store, a dead
 * store, a silent load), so a profile taken from it has pairs to show.
 */
public class Lifecycle {
    static final int N = 1024;
    static final int[] table = new int[N];
    static final int[] scratch = new int[N];
    static final int[] consts = new int[4];
    static volatile long sink;

    static long chunk(int seed) {
        long acc = 0;
        for (int i = 0; i < N; i++) scratch[i] = table[i] + seed;      // dead: overwritten below
        for (int i = 0; i < N; i++) scratch[i] = table[i] ^ seed;
        for (int i = 0; i < N; i++) {
            consts[i & 3] = 0x5bd1e995;                                 // silent: same value
            acc += scratch[i] * (long) consts[(i + 1) & 3] + table[(i * 7) & (N - 1)]; // silent loads of table
        }
        return acc;
    }

    static long computeFor(long millis, int seed) {
        long end = System.nanoTime() + millis * 1_000_000L;
        long acc = 0;
        int rounds = 0;
        while (System.nanoTime() < end || rounds < 100) {
            acc = acc * 31 + chunk(seed + rounds++);
        }
        return acc;
    }

    public static void main(String[] args) {
        String mode = args.length > 0 ? args[0] : "exit3";
        for (int i = 0; i < N; i++) table[i] = i * 0x9E3779B1;
        switch (mode) {
            case "ready-exit3":
                System.out.println("ready");
                System.out.flush();
                // fall through
            case "exit3": {
                long millis = args.length > 1 ? Long.parseLong(args[1]) : 1500;
                // The amount of work depends on time, so the checksum is of a fixed part.
                long fixed = 0;
                for (int r = 0; r < 1000; r++) fixed = fixed * 31 + chunk(r);
                sink = computeFor(millis, 7);
                System.out.println("checksum: " + Long.toHexString(fixed));
                System.out.flush();
                System.exit(3);
                break;
            }
            case "forever": {
                long millis = args.length > 1 ? Long.parseLong(args[1]) : 500;
                sink = computeFor(millis, 11);
                System.out.println("ready");
                System.out.flush();
                for (int r = 0; ; r++) sink += chunk(r);
            }
            default:
                System.err.println("usage: java Lifecycle exit3|ready-exit3|forever [millis]");
                System.exit(2);
        }
    }
}
