/*
 * Planted allocations in a loop of their own, for the summary's CPU share
 * against a truth (issue 40: the share of the program's CPU that a site's
 * creations take, against their time measured without the agent).
 *
 * Each round fills a ring with new long[126] (1 KiB each, kept until the
 * ring comes round, so none is scalar-replaced), in a loop that is one line,
 * its header and body: the line's samples are the creations' time (the
 * allocation buffer's bump, the header, the zeroing, the store into the
 * ring and its barrier, and the buffer refills the runtime does for the
 * line), and taking them away takes nothing else (AllocBytes mixes three
 * classes, whose creations slow each other: docs/findings.md). The rest of a
 * round is arithmetic that touches no object, about as long.
 *
 * Usage: java AllocRing [rounds-in-thousands]   (default 160)
 * Prints "checksum: ...". With -Dwasp.truth.repeat=0 (summary.py's truth,
 * run without the agent) the ring is filled with one array made before the
 * run instead; with -Dwasp.truth.repeat (0 or 1) the main thread's CPU time
 * is printed at the end ("truth: cpu-ns N") with its CPU time when main()
 * began ("truth: cpu-ns-before-main B": the JVM's start-up, which wasp does
 * not sample): the creations' share is (T(1) - T(0)) / (T(1) - B(1)).
 * "truth: user-ns" and "truth: user-ns-before-main" are the same in user
 * time alone: the creations' first touches of the heap's memory cost as much
 * again in the kernel (page faults; JDK 17 and 25, a Firecracker guest),
 * which wasp's perf sampler does not see. REPEAT is a static final: at its
 * default 1 the JIT folds the choice away.
 */
public class AllocRing {
    static final int RING = 1 << 12, FILL = 256, SPIN = 6000;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);
    static final long[] SHARED = new long[126];

    static void fill(Object[] ring, int from) {
        for (int i = from; i < from + FILL; i++) ring[i & (RING - 1)] = REPEAT == 0 ? SHARED : new long[126]; // WASP-EXPECT: alloc (16 + 126 x 8 = 1024 bytes)
    }

    /* The rest of the round: a dependency chain of multiplies. */
    static long spin(long h) {
        for (int k = 0; k < SPIN; k++)
            h = h * 0x9E3779B97F4A7C15L + k;
        return h;
    }

    public static void main(String[] args) {
        long before = truthCpu(), userBefore = truthUser();
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 160;
        Object[] ring = new Object[RING];
        long h = 1;
        for (int r = 0, rounds = thousands * 1000; r < rounds; r++) {
            fill(ring, r * FILL);
            h = spin(h) + ((long[]) ring[(r * FILL + (int) (h >>> 60)) & (RING - 1)])[0];
        }
        System.out.println("checksum: " + Long.toHexString(h));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + truthCpu() + "\ntruth: cpu-ns-before-main " + before
                    + "\ntruth: user-ns " + truthUser() + "\ntruth: user-ns-before-main " + userBefore);
    }

    /* The user part alone (the kernel's, mostly page faults of the heap's
     * new memory, is what wasp's perf sampler does not see). */
    static long truthUser() {
        return Integer.getInteger("wasp.truth.repeat") == null ? 0
                : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadUserTime();
    }

    static long truthCpu() {
        return Integer.getInteger("wasp.truth.repeat") == null ? 0
                : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
