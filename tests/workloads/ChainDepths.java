/*
 * Planted calling contexts for CallerChaining (--context chain,
 * docs/context-chain.md): one memory-heavy leaf reached by two paths of
 * different depth,
 *
 *   batch -> root -> viaB -> leaf            (short: reps)
 *   batch -> root -> viaC -> viaD -> leaf    (long: 2 * reps)
 *
 * so the short path has 1/3 of the leaf's samples and the long one 2/3
 * (each call site of a method calls a different method: CallerChaining
 * cannot tell two call sites of the same callee in one method apart).
 * batch is called often enough from main's loop to be compiled itself, so
 * that the chains reach three callers above the leaf in compiled code. Every method on the paths does some memory
 * work of its own (an eighth of the leaf's), so samples land in each and
 * give the quadruples that chain it to its caller. Run it with
 * -XX:CompileCommand=dontinline,ChainDepths::* so that each method keeps a
 * frame of its own. The call sites are marked `// WASP-CHAIN: NAME`, the
 * leaf's hot store is the line marked WASP-EXPECT.
 *
 * Usage: java ChainDepths [rounds (default 60)]
 * Prints "checksum: ...".
 */
public class ChainDepths {
    static final long[] DATA = new long[1 << 22]; /* 32 MiB: most stores miss the caches */
    static final long[] SIDE = new long[1 << 18];
    static final int REPS = 1 << 16;

    static long step(long s) {
        return s * 6364136223846793005L + 1442695040888963407L;
    }

    static long leaf(int reps, long s) {
        int mask = DATA.length - 1;
        /* One line: the JIT's debug information may name the next
         * statement for the store. */
        for (int i = 0; i < reps; i++) {
            DATA[(int) (s >>> 40) & mask] += s; s = step(s); // WASP-EXPECT: fields
        }
        return s;
    }

    static long viaB(int reps, long s) {
        int mask = SIDE.length - 1;
        for (int i = 0; i < reps / 8; i++) {
            SIDE[(int) (s >>> 40) & mask] ^= s;
            s = step(s);
        }
        return leaf(reps, s) + 1; // WASP-CHAIN: short
    }

    static long viaD(int reps, long s) {
        int mask = SIDE.length - 1;
        for (int i = 0; i < reps / 8; i++) {
            SIDE[(int) (s >>> 40) & mask] += s;
            s = step(s);
        }
        return leaf(reps, s) ^ 5; // WASP-CHAIN: long
    }

    static long viaC(int reps, long s) {
        int mask = SIDE.length - 1;
        for (int i = 0; i < reps / 8; i++) {
            SIDE[(int) (s >>> 40) & mask] -= s;
            s = step(s);
        }
        return viaD(reps, s ^ 3) + 2; // WASP-CHAIN: long-mid
    }

    static long root(int reps, long s) {
        int mask = SIDE.length - 1;
        for (int i = 0; i < reps / 8; i++) {
            SIDE[(int) (s >>> 40) & mask] |= s;
            s = step(s);
        }
        s += viaB(reps, s); // WASP-CHAIN: root-short
        s += viaC(2 * reps, s); // WASP-CHAIN: root-long
        return s;
    }

    static long batch(long s) {
        int mask = SIDE.length - 1;
        for (int i = 0; i < REPS / 8; i++) {
            SIDE[(int) (s >>> 40) & mask] += i;
            s = step(s);
        }
        /* Each batch a different length (REPS/4 to 3*REPS/4, a multiple of
         * 8): at one length the batches repeat every ~10 ms, and the short
         * path's share moved by up to 11 points, likely because a sampler
         * ticking every 4 ms of CPU time kept landing at the same few
         * phases of them. The share of each batch is 1/3 whatever its
         * length. */
        int reps = REPS / 4 + (int) ((s >>> 40) & (REPS / 2 - 8));
        return root(reps, s); // WASP-CHAIN: batch
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        long s = 42;
        for (int r = 0; r < rounds * 16; r++)
            s = batch(s) + r;
        long sum = 0;
        for (long v : DATA)
            sum += v;
        for (long v : SIDE)
            sum ^= v;
        System.out.println("checksum: " + (s ^ sum));
    }
}
