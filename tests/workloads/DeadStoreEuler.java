/*
 * Planted inefficiency: DEAD STORES (JXPerf, Sec. 7 "Grande-2.0 Euler: Dead Stores").
 *
 * Euler's calculateDamping() stores an intermediate result into the scratch
 * object temp2.a, and a later statement overwrites temp2.a before anything
 * reads it: the first store is dead. JXPerf found 46% of Euler's stores dead.
 *
 * Here calculateDamping() sweeps a row of cells three times. The first sweep
 * stores temp2[j].a for every cell (the planted line); the second sweep
 * overwrites every temp2[j].a before any read; only the third sweep reads them.
 * So each store of the first sweep is followed by a store of the second sweep
 * to the same location: a dead store pair <planted line, second sweep> (the
 * second sweep's line carries the WASP-TRAP marker). The
 * second sweep's stores are read by the third sweep (not dead), so about half
 * of the stores executed in the hot method are dead.
 *
 * Shaped against the JIT: the sweeps are separate loops (C2 removes a store
 * only when the next store to the same address follows in the same block; it
 * has no dead-store elimination across loops), the values depend on the
 * evolving state, and the scratch values live in fields of objects (as in
 * Euler's Statevector) rather than in a double[], so the loops are neither
 * turned into fill stubs nor vectorized.
 *
 * Usage: java DeadStoreEuler [steps-in-thousands]   (default 600, about 4 s)
 *
 * With -Dwasp.truth.repeat=R (summary.py's CPU-share truth, run without the
 * agent) the planted loop (the first sweep) runs R times where
 * it ran once, and the main thread's CPU time is printed at the end
 * ("truth: cpu-ns N"): the loop's share of the program's CPU is
 * (T(1) - T(0)) / T(1). REPEAT is a static final: at its default 1 the JIT
 * folds the repeat away.
 */
public class DeadStoreEuler {
    static final int CELLS = 1024;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);

    static final class Statevector {
        double a, b, c, d;
        Statevector(double a, double b, double c, double d) {
            this.a = a; this.b = b; this.c = c; this.d = d;
        }
    }

    static double calculateDamping(Statevector[] ug, Statevector[] temp2) {
        int n = ug.length;
        for (int r = 0; r < REPEAT; r++) {
            for (int j = 1; j < n - 2; j++) {
                temp2[j].a = 3.0 * (ug[j].a - ug[j + 1].a); // WASP-EXPECT: deadstore
            }
        }
        for (int j = 1; j < n - 2; j++) {
            temp2[j].a = 3.0 * (ug[j - 1].a - ug[j].a); // WASP-TRAP: deadstore
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
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
        System.err.printf("DeadStoreEuler: %d k steps in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
