/*
 * Planted inefficiency: SILENT STORES (JXPerf, Sec. 7 "NPB-3.0 IS: Silent Stores").
 *
 * NPB IS generates its keys with randlc(), which recomputes the constants
 * 2^-23 and 2^-46 (and 2^23, 2^46; Math.pow in the original) on every call
 * although they never change. JXPerf found 70% of IS's stores silent.
 *
 * Here the constants live in the generator object, and randlc() recomputes
 * them from the generator's 2^23 and stores them again on every call (the
 * planted line): every such store writes the value already in memory. The next
 * store to the same field of the same generator object is the same line in a
 * later call, writing the same value: a silent store pair <planted line,
 * planted line>. The only other store in the hot loop is the key histogram's
 * increment, which changes the value every time.
 *
 * Shaped against the JIT and for the sampler:
 *  - the generator object is loaded from an array on every call, so C2 can
 *    neither prove two calls store to the same object (and delete the earlier
 *    store) nor sink the store out of the loop as loop-invariant;
 *  - each number picks the generator object for the next one (a shuffled
 *    multi-stream generator), so the planted division and store sit on the
 *    loop's critical dependency chain. A CPU-time timer interrupt lands on the
 *    instruction after the one that held up retirement; the store right after
 *    the division is therefore sampled often. When the constants did not
 *    depend on the chain, C2 computed them early, off the critical path, and
 *    the timer almost never landed on their stores (5% of samples were
 *    memory accesses, nearly all of them the seed store);
 *  - no Math.pow: the pow stub's own stack stores would be a second,
 *    competing source of silent stores attributed to a stub frame.
 *
 * Usage: java SilentStoreIS [keys-in-millions]   (default 18, about 4 s)
 *
 * With -Dwasp.truth.repeat=R (summary.py's CPU-share truth, run without the
 * agent) the planted line runs R times where it ran once (at 0 the
 * constructor's values stand), and the main thread's CPU time is printed at
 * the end ("truth: cpu-ns N"): the line's share of the program's CPU is
 * (T(1) - T(0)) / T(1). REPEAT is a static final: at its default 1 the JIT
 * folds the repeat away.
 */
public class SilentStoreIS {
    static final int GENERATORS = 16;         // power of two
    static final int MAX_KEY = 1 << 11;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);

    /* The generator's constants. NPB keeps them in locals and recomputes them
     * on every call; here they live in the generator object, so recomputing
     * them means storing them again. */
    static final class Randlc {
        final double t23, t46;   // 2^23 and 2^46, set once
        double r23, r46;         // 2^-23 and 2^-46, recomputed on every call
        Randlc() {
            t23 = 8388608.0;
            t46 = t23 * t23;
            if (REPEAT == 0) { /* the truth's run without the planted line: its values, once */
                r23 = 1.0 / t23;
                r46 = r23 * r23;
            }
        }
    }

    /* One step of the NPB linear congruential generator x <- a*x mod 2^46,
     * in doubles; returns the new seed (the random number is x * 2^-46). */
    static double randlc(Randlc g, double x, double a) {
        for (int r = 0; r < REPEAT; r++) {
            g.r23 = 1.0 / g.t23; g.r46 = g.r23 * g.r23; // WASP-EXPECT: silentstore
        }
        double t1 = g.r23 * a;
        double a1 = (int) t1;
        double a2 = a - g.t23 * a1;
        t1 = g.r23 * x;
        double x1 = (int) t1;
        double x2 = x - g.t23 * x1;
        t1 = a1 * x2 + a2 * x1;
        double t2 = (int) (g.r23 * t1);
        double z = t1 - g.t23 * t2;
        double t3 = g.t23 * z + a2 * x2;
        double t4 = (int) (g.r46 * t3);
        return t3 - g.t46 * t4;
    }

    /* create_seq: each key is the scaled sum of four random numbers. The
     * generator object for each number is picked by the previous number. */
    static double createSeq(Randlc[] gens, int[] keyCount, int nkeys, double seed, double a) {
        int m = gens.length - 1;
        double x = seed;
        for (int i = 0; i < nkeys; i++) {
            x = randlc(gens[(int) (x * 0x1p-42) & m], x, a);
            double r = x;
            x = randlc(gens[(int) (x * 0x1p-42) & m], x, a);
            r += x;
            x = randlc(gens[(int) (x * 0x1p-42) & m], x, a);
            r += x;
            x = randlc(gens[(int) (x * 0x1p-42) & m], x, a);
            r += x;
            int k = (int) (MAX_KEY / 4 * 0x1p-46 * r);
            keyCount[k]++;
        }
        return x;
    }

    public static void main(String[] args) {
        int millions = args.length > 0 ? Integer.parseInt(args[0]) : 18;
        long t0 = System.nanoTime();
        Randlc[] gens = new Randlc[GENERATORS];
        for (int i = 0; i < GENERATORS; i++) gens[i] = new Randlc();
        int[] keyCount = new int[MAX_KEY];
        double seed = 314159265.0;
        for (int round = 0; round < millions; round++) {
            seed = createSeq(gens, keyCount, 1_000_000, seed, 1220703125.0);
        }
        long sum = Double.doubleToLongBits(seed);
        for (int k = 0; k < MAX_KEY; k++) sum = sum * 31 + keyCount[k];
        System.out.println("checksum: " + Long.toHexString(sum));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
        System.err.printf("SilentStoreIS: %d M keys in %.2f s%n", millions, (System.nanoTime() - t0) / 1e9);
    }
}
