/*
 * Planted inefficiency: SILENT STORES (JXPerf, Sec. 7 "NPB-3.0 IS: Silent Stores").
 *
 * NPB IS generates its keys with randlc(), which recomputes the constants
 * 2^-23, 2^-46, 2^23 and 2^46 (Math.pow in the original) on every call and
 * stores them again, although they never change: every such store writes the
 * value that is already in memory. JXPerf found 70% of IS's stores silent.
 *
 * Here each key draws four numbers from four generator objects (round robin
 * over GENERATORS objects), and randlc() stores the four constants into the
 * generator before using them (the planted line). The next store to the same
 * field of the same generator, a few keys later, is the same line writing the
 * same value: a silent store pair <planted line, planted line>. The other
 * stores (the seed g.x and the key histogram) change value every time.
 *
 * Shaped against the JIT: the generator is loaded from an array on every call,
 * so C2 can neither prove two calls touch the same object (and delete the
 * earlier store) nor sink the store out of the loop as loop-invariant. pow2()
 * builds the constant from its exponent without the pow stub, whose own stack
 * traffic would be a second, competing source of silent stores.
 *
 * Usage: java SilentStoreIS [keys-in-millions]   (default 100, about 4 s)
 */
public class SilentStoreIS {
    static final int GENERATORS = 16;         // power of two
    static final int MAX_KEY = 1 << 11;

    static final class Randlc {
        double r23, r46, t23, t46; // constants, recomputed on every call
        double x;                  // the seed: changes on every call
        Randlc(double seed) { x = seed; }
    }

    static double pow2(int e) {
        return Double.longBitsToDouble((long) (e + 1023) << 52);
    }

    /* The NPB linear congruential generator x <- a*x mod 2^46, in doubles. */
    static double randlc(Randlc g, double a) {
        g.r23 = pow2(-23); g.r46 = pow2(-46); g.t23 = pow2(23); g.t46 = pow2(46); // WASP-EXPECT: silentstore
        double t1 = g.r23 * a;
        double a1 = (int) t1;
        double a2 = a - g.t23 * a1;
        t1 = g.r23 * g.x;
        double x1 = (int) t1;
        double x2 = g.x - g.t23 * x1;
        t1 = a1 * x2 + a2 * x1;
        double t2 = (int) (g.r23 * t1);
        double z = t1 - g.t23 * t2;
        double t3 = g.t23 * z + a2 * x2;
        double t4 = (int) (g.r46 * t3);
        g.x = t3 - g.t46 * t4;
        return g.r46 * g.x;
    }

    /* create_seq: each key is the scaled sum of four random numbers. */
    static void createSeq(Randlc[] gens, int[] keyCount, int nkeys, double a) {
        int m = gens.length - 1;
        for (int i = 0; i < nkeys; i++) {
            int j = 4 * i;
            double x = randlc(gens[j & m], a);
            x += randlc(gens[(j + 1) & m], a);
            x += randlc(gens[(j + 2) & m], a);
            x += randlc(gens[(j + 3) & m], a);
            int k = (int) (MAX_KEY / 4 * x);
            keyCount[k]++;
        }
    }

    public static void main(String[] args) {
        int millions = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        long t0 = System.nanoTime();
        Randlc[] gens = new Randlc[GENERATORS];
        for (int i = 0; i < GENERATORS; i++) gens[i] = new Randlc(314159265.0 + 2 * i);
        int[] keyCount = new int[MAX_KEY];
        for (int round = 0; round < millions; round++) {
            createSeq(gens, keyCount, 1_000_000, 1220703125.0);
        }
        long sum = 0;
        for (int k = 0; k < MAX_KEY; k++) sum = sum * 31 + keyCount[k];
        for (Randlc g : gens) sum = sum * 31 + Double.doubleToLongBits(g.x);
        System.out.println("checksum: " + Long.toHexString(sum));
        System.err.printf("SilentStoreIS: %d M keys in %.2f s%n", millions, (System.nanoTime() - t0) / 1e9);
    }
}
