/*
 * Planted inefficiency: DEAD STORES inside a JVM stub.
 *
 * reset() sets every element of an int[] to -1 in a plain loop, which C2
 * (with -XX:+OptimizeFill: the default on some x86 machines only, so the
 * test asks for it) replaces with a call to the generated fill stub
 * (arrayof_jint_fill). compute() then overwrites every element
 * before anything reads it: each store of the fill is dead. The stores run in
 * the stub, so the watched context must still name reset() and its loop line
 * under the [jvm stub] frame. The loop is one line: the stub replaces the
 * whole loop, and the JVM describes the call by the loop's own position.
 *
 * Usage: java DeadStoreFill [rounds-in-thousands]   (default 2500, about 3 s)
 */
public class DeadStoreFill {
    static final int N = 4096;

    static void reset(int[] a) {
        for (int i = 0; i < a.length; i++) a[i] = -1; // WASP-EXPECT: deadstore
    }

    static long compute(int[] a, long seed) {
        for (int i = 0; i < a.length; i++) {
            a[i] = (int) (seed + i * 31L); // WASP-TRAP: deadstore
        }
        long s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] ^ i; // every store of compute() is read: only the fill's are dead
        }
        return s;
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 2500;
        long t0 = System.nanoTime();
        int[] a = new int[N];
        long checksum = 0;
        long rounds = thousands * 1000L;
        for (long r = 0; r < rounds; r++) {
            reset(a);
            checksum += compute(a, checksum ^ r);
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("DeadStoreFill: %d k rounds in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
