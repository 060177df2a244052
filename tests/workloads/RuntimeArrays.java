/*
 * Small arrays the JVM's runtime allocates and clears (the fields analysis's
 * "later look"): run with -Xint, the interpreter's newarray calls into the
 * runtime, which clears each int[200] (800 bytes, memset) before it writes
 * the header. A sample in that clearing finds no header; the thread's next
 * sample finds it written and names the array.
 *
 * Usage: java -Xint RuntimeArrays [arrays]   (default 2000000)
 * Prints "checksum: ...".
 */
public class RuntimeArrays {
    static int[] make(int i) {
        int[] a = new int[200]; // WASP-EXPECT: fields
        a[i % 200] = i;
        return a;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000000;
        long sum = 0;
        for (int i = 0; i < n; i++)
            sum += make(i)[(i * 7) % 200];
        System.out.println("checksum: " + sum);
    }
}
