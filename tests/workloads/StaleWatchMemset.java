/*
 * A watch that never traps must not slow the program's memsets for good
 * (test budget.stale-watch).
 *
 * Phase one writes a 64 MiB array once, element by element in no order (so
 * that the JIT does not make it a few wide stores, and cache misses make it
 * last for tens of samples), and never stores to it again: a debug register armed on one of those stores watches bytes
 * that no instruction will touch, so only wasp can end it. Phase two is
 * DeadStoreMemset's loop: a 32 KiB buffer filled, then cleared by glibc's
 * memset through JNI (`rep stosb` where the CPU has fast string stores).
 * Many CPUs run `rep stosb` element by element while any data breakpoint is
 * enabled on the thread (28 times slower on the AMD EPYC KVM guest), so a
 * watch left from phase one would slow every memset of phase two.
 *
 * Usage: java -Dwasp.jni=PATH/libnative_store.so StaleWatchMemset [rounds]
 *        (default 1800000, about 3 s)
 * Prints "checksum: ...".
 */
public class StaleWatchMemset {
    static final int ONCE = 1 << 23; // 64 MiB of longs, each stored once

    public static void main(String[] args) {
        System.load(System.getProperty("wasp.jni"));
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1800000;
        long[] once = new long[ONCE];
        for (int i = 0; i < once.length; i++) // an odd multiplier: each element once, in no order
            once[(int) ((i * 0x9E3779B1L) & (ONCE - 1))] = i;
        long checksum = once[rounds & (ONCE - 1)];
        long[] a = new long[DeadStoreMemset.N];
        for (int r = 0; r < rounds; r++)
            checksum = checksum * 31 + DeadStoreMemset.round(a, r) + r;
        checksum += once[(int) (checksum & (ONCE - 1))];
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
