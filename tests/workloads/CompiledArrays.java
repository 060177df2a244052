/*
 * Arrays created by C1-compiled code through its runtime blob, for the
 * summary's CPU by line (issue 40): run with -XX:TieredStopAtLevel=1, each
 * int[200000] (800 KB, more than a TLAB holds) is allocated by C1's
 * new_type_array blob, which saves every register in a frame of its own
 * and calls the runtime, which zeroes the array (memset). The next line
 * creates an int[1][] whose slow path is the blob's next call: a walk that
 * describes the method by the debug record after its return address (as
 * AsyncGetCallTrace does for the first Java frame past a stub) puts the
 * zeroing there. The samples must count at the planted line.
 *
 * Usage: java -XX:TieredStopAtLevel=1 CompiledArrays [arrays]   (default 20000)
 * Prints "checksum: ...". With -Dwasp.truth.repeat=0 (summary.py's truth,
 * run without the agent) the planted line takes one array made before the
 * run instead; with -Dwasp.truth.repeat (0 or 1) the main thread's CPU time
 * is printed at the end ("truth: cpu-ns N") with its CPU time when main()
 * began ("truth: cpu-ns-before-main B").
 */
public class CompiledArrays {
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);
    static final int[] SHARED = new int[200000];
    static final int[][] KEEP = new int[64][];

    static int[] make(int n) {
        int[] a = REPEAT == 0 ? SHARED : new int[n]; // WASP-EXPECT: alloc (800,016 bytes, zeroed by the runtime)
        int[][] b = new int[1][];
        b[0] = a;
        return b[0];
    }

    public static void main(String[] args) {
        long before = truthCpu();
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        long h = 0;
        for (int i = 0; i < n; i++) {
            int[] a = make(200000);
            KEEP[i & 63] = a;
            h += a[(i * 7) % 1000] + i;
        }
        System.out.println("checksum: " + Long.toHexString(h));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + truthCpu() + "\ntruth: cpu-ns-before-main " + before);
    }

    static long truthCpu() {
        return Integer.getInteger("wasp.truth.repeat") == null ? 0
                : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
