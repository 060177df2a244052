/*
 * The FIXED TWIN of tests/workloads/DeadStoreEuler.java, for `wasp diff`
 * (tests/integration/diff.py): the same class, methods and line numbers,
 * with the planted dead store removed.
 *
 * There, the first sweep of calculateDamping() stores temp2[j].a and the
 * second sweep overwrites it before any read: a dead store pair <planted
 * line, second sweep>, about half of the method's stores. Here the first
 * sweep stores nothing, so that pair must vanish from a profile and
 * F_prog(deadstore) fall to a control's level (ControlStores). The result is
 * the same, as the removed stores were never read: the checksum equals the
 * planted workload's.
 *
 * Kept out of build/workloads (the Makefile compiles tests/workloads/*.java
 * only) because it has the planted workload's class name, which is what lets
 * the diff match the frames of the two runs; the test compiles it into a
 * directory of its own.
 *
 * This comment is as long as the planted workload's, so that every line of
 * code keeps its line number there (the frames matched include lines).
 *
 *
 *
 * Usage: java DeadStoreEuler [steps-in-thousands]   (default 600, about 4 s)
 *
 * (The planted workload's truth option, -Dwasp.truth.repeat, is not here:
 * the lines it takes are kept blank or as comments.)
 *
 *
 *
 *
 */
public class DeadStoreEuler {
    static final int CELLS = 1024;
    // (the planted workload's REPEAT)

    static final class Statevector {
        double a, b, c, d;
        Statevector(double a, double b, double c, double d) {
            this.a = a; this.b = b; this.c = c; this.d = d;
        }
    }

    static double calculateDamping(Statevector[] ug, Statevector[] temp2) {
        int n = ug.length;
        {
            for (int j = 1; j < n - 2; j++) {
                // fixed: the dead store to temp2[j].a that stood here is gone
            }
        }
        for (int j = 1; j < n - 2; j++) {
            temp2[j].a = 3.0 * (ug[j - 1].a - ug[j].a);
        }
        double s = 0.0;
        for (int j = 1; j < n - 2; j++) {
            s += temp2[j].a * ug[j].b;
        }
        return s;
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 600;
        long t0 = System.nanoTime();
        Statevector[] ug = new Statevector[CELLS];
        Statevector[] temp2 = new Statevector[CELLS];
        for (int j = 0; j < CELLS; j++) {
            ug[j] = new Statevector(Math.sin(j * 0.01), 1.0 + (j % 7) * 0.125, j, -j);
            temp2[j] = new Statevector(0, 0, 0, 0);
        }
        double checksum = 0.0;
        long steps = thousands * 1000L;
        for (long step = 0; step < steps; step++) {
            double s = calculateDamping(ug, temp2);
            checksum += s;
            // Evolve one cell so every sweep sees changing data.
            Statevector u = ug[(int) (step % CELLS)];
            u.a = u.a * 0.5 + s * 1e-3;
            u.b = 1.0 + (u.b * 7.0) % 1.0;
        }
        System.out.println("checksum: " + Long.toHexString(Double.doubleToLongBits(checksum)));
        // (the planted workload's truth line)

        System.err.printf("DeadStoreEuler: %d k steps in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
