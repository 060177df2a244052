/*
 * Arrays created by interpreted code, for the summary's CPU by line (issue
 * 40): run with -Xint, the interpreter's newarray calls into the JVM's
 * runtime, which zeroes each int[4096] (16 KiB, memset) while the thread is
 * "in the VM" with a frame anchor HotSpot has not given its pc yet. Those
 * samples are the line's cost and must count at the line of the newarray
 * (docs/findings.md, "CPU by line"), not at no line.
 *
 * Each round creates one array at the planted line and then runs an
 * interpreted spin of arithmetic that touches no object, about as long.
 *
 * Usage: java -Xint InterpretedArrays [rounds-in-thousands]   (default 200)
 * Prints "checksum: ...". With -Dwasp.truth.repeat=0 (summary.py's truth,
 * run without the agent) the line stores one array made before the run
 * instead; with -Dwasp.truth.repeat (0 or 1) the main thread's CPU time is
 * printed at the end ("truth: cpu-ns N") with its CPU time when main() began
 * ("truth: cpu-ns-before-main B"): the creations' share is
 * (T(1) - T(0)) / (T(1) - B(1)).
 */
public class InterpretedArrays {
    static final int KEEP = 64, SPIN = 60;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);
    static final int[] SHARED = new int[4096];

    public static void main(String[] args) {
        long before = truthCpu();
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Object[] keep = new Object[KEEP];
        long h = 1;
        for (int r = 0, rounds = thousands * 1000; r < rounds; r++) {
            keep[r & (KEEP - 1)] = REPEAT == 0 ? SHARED : new int[4096]; // WASP-EXPECT: alloc (16 + 4096 x 4 bytes, zeroed by the runtime)
            for (int k = 0; k < SPIN; k++)
                h = h * 0x9E3779B97F4A7C15L + k;
            h += ((int[]) keep[r & (KEEP - 1)])[(int) (h >>> 52)];
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
