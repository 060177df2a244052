/*
 * Stores made by native code (JNI, tests/jni/native_store.c) into a Java
 * long[]: the samples land in the native function, whose frame the report
 * must name, with the Java method that called it (and its line) after it.
 *
 * Usage: java -Dwasp.jni=PATH/libnative_store.so NativeStore [calls]
 *        (default 400, about 2 s)
 * Prints "checksum: ...".
 */
public class NativeStore {
    static native void fill(long[] a, long v, int rounds);

    static long refill(long[] a, int call) {
        fill(a, call, 4); // WASP-EXPECT: fields
        return a[call & (a.length - 1)];
    }

    public static void main(String[] args) {
        System.load(System.getProperty("wasp.jni"));
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        long[] a = new long[1 << 16];
        long checksum = 0;
        for (int c = 0; c < calls; c++)
            checksum = checksum * 31 + refill(a, c);
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
