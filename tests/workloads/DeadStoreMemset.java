/*
 * Planted inefficiency: DEAD STORES killed by native code's memset.
 *
 * A buffer the Java code fills element by element is then cleared whole by
 * a native library (JNI, tests/jni/native_store.c: memset over the array),
 * before anything reads the values: every store of the fill is dead, and the
 * store that kills it is memset's. glibc's memset clears a block this large
 * with `rep stosb` where the CPU has fast string stores (ERMS): a repeated
 * string instruction, which traps between its elements with the PC still on
 * it, not past it as every other instruction does. Before wasp placed such
 * traps (isa.h, wasp_isa_string_trap) every one of these pairs was dropped
 * (dropped.trap_decode), and on real programs a quarter to a half of a page
 * window's members with them (batik, fop).
 *
 * Usage: java -Dwasp.jni=PATH/libnative_store.so DeadStoreMemset [rounds]
 *        (default 1800000, about 3 s)
 * Prints "checksum: ...".
 */
public class DeadStoreMemset {
    static native void clear(long[] a);

    static final int N = 1 << 12; // 32 KiB: past glibc's rep stosb threshold (2 KiB)

    static long round(long[] a, int r) {
        for (int i = 0; i < a.length; i++)
            a[i] = r * 31L + i; // WASP-EXPECT: deadstore
        clear(a);
        return a[r & (a.length - 1)];
    }

    public static void main(String[] args) {
        System.load(System.getProperty("wasp.jni"));
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1800000;
        long[] a = new long[N];
        long checksum = 0;
        for (int r = 0; r < rounds; r++)
            checksum = checksum * 31 + round(a, r) + r;
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
