/*
 * Ways a JVM ends without returning from main, each after the planted dead
 * stores of DeadStoreEuler.calculateDamping (its WASP-EXPECT line is the pair
 * a profile must still hold):
 *
 *   java ExitPaths forever [k]      runs k thousand steps (default 300), prints
 *                                   "ready" (flushed), then computes until killed
 *   java ExitPaths oom [k]          k thousand steps, then fills the heap until
 *                                   OutOfMemoryError (run with a small -Xmx and
 *                                   -XX:+ExitOnOutOfMemoryError: the JVM exits 3)
 *   java ExitPaths halt [k]         k thousand steps, then Runtime.halt(5)
 *   java ExitPaths exit-thread [k]  k thousand steps, then System.exit(4) from
 *                                   another thread while main keeps computing
 *
 * Usage: java ExitPaths MODE [steps-in-thousands]
 */
import java.util.ArrayList;
import java.util.List;

public class ExitPaths {
    static volatile double sink;

    static void steps(DeadStoreEuler.Statevector[] ug, DeadStoreEuler.Statevector[] temp2, long n) {
        double checksum = 0.0;
        for (long step = 0; step < n; step++) {
            double s = DeadStoreEuler.calculateDamping(ug, temp2);
            checksum += s;
            DeadStoreEuler.Statevector u = ug[(int) (step % ug.length)];
            u.a = u.a * 0.5 + s * 1e-3;
            u.b = 1.0 + (u.b * 7.0) % 1.0;
        }
        sink = checksum;
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "forever";
        long k = args.length > 1 ? Long.parseLong(args[1]) : 300;
        int cells = DeadStoreEuler.CELLS;
        DeadStoreEuler.Statevector[] ug = new DeadStoreEuler.Statevector[cells];
        DeadStoreEuler.Statevector[] temp2 = new DeadStoreEuler.Statevector[cells];
        for (int j = 0; j < cells; j++) {
            ug[j] = new DeadStoreEuler.Statevector(Math.sin(j * 0.01), 1.0 + (j % 7) * 0.125, j, -j);
            temp2[j] = new DeadStoreEuler.Statevector(0, 0, 0, 0);
        }
        steps(ug, temp2, k * 1000L);
        switch (mode) {
            case "forever":
                System.out.println("ready");
                System.out.flush();
                for (;;)
                    steps(ug, temp2, 1000);
            case "oom": {
                List<long[]> hold = new ArrayList<>();
                for (;;)
                    hold.add(new long[1 << 16]);
            }
            case "halt":
                Runtime.getRuntime().halt(5);
                break;
            case "exit-thread": {
                Thread t = new Thread(() -> System.exit(4), "exiter");
                t.start();
                for (;;)
                    steps(ug, temp2, 1000);
            }
            default:
                System.err.println("ExitPaths: unknown mode " + mode);
                System.exit(2);
        }
    }
}
