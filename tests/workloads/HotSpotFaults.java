/*
 * HotSpotFaults workload: the JVM's own use of SIGSEGV, while wasp's page
 * watchpoint engine has heap pages protected and its SIGSEGV handler in front
 * of HotSpot's. Every fault that is not wasp's must reach HotSpot unchanged:
 *   - implicit null checks: compiled code dereferences null and HotSpot turns
 *     the fault into a NullPointerException (caught here, counted);
 *   - stack banging: deep recursion until StackOverflowError (caught);
 *   - safepoint polls and handshakes: System.gc() from a second thread while
 *     the main thread loops over arrays (the protected pages).
 * The checksum covers every count and array sum, so a fault handled wrongly
 * shows as a different result or a crash.
 *
 *   java HotSpotFaults [rounds]     (default 1500)
 */
public class HotSpotFaults {
    static final int N = 4096;
    static int[] data = new int[N];
    static long[] longs = new long[N];

    static final class Node {
        int value;
        Node next;
    }

    static int depth;

    static void recurse() {
        depth++;
        recurse();
    }

    /* Compiled with an implicit null check on n.value. */
    static int valueOf(Node n) {
        return n.value;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1500;
        Node present = new Node();
        present.value = 7;
        Thread gc = new Thread(() -> {
            for (int i = 0; i < 20; i++) {
                System.gc();
                Thread.onSpinWait();
            }
        });
        gc.start();
        long sum = 0, npes = 0, overflows = 0;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 50; k++) {
                for (int i = 0; i < N; i++) {
                    data[i] = data[i] * 3 + i + r;            // loads and stores on heap pages
                    longs[i] += data[i] & 0xff;
                }
                Node n = (k & 1) == 0 ? present : null;
                try {
                    sum += valueOf(n);
                } catch (NullPointerException e) {
                    npes++;
                }
            }
            if (r % 50 == 0) {
                depth = 0;
                try {
                    recurse();
                } catch (StackOverflowError e) {
                    overflows++;
                }
            }
            for (int i = 0; i < N; i += 64)
                sum += data[i] + longs[i];
        }
        gc.join();
        System.out.println("nulls " + npes + ", stack overflows " + overflows);
        System.out.println("checksum: " + Long.toHexString(sum * 31 + npes * 7 + overflows));
    }
}
