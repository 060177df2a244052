/*
 * Planted hot lock (Inoue and Nakatani's lock-activity profile: which
 * objects' locks are acquired, where, and how often on the slow path).
 * Three lock objects of distinct classes are acquired in the ratio 6:3:1
 * (a fixed pattern of ten steps), each by its own method with a synchronized
 * block doing the same small work, so the hot lock's share of the
 * acquisitions is 60% by construction. The counts are printed from counters
 * kept inside the critical sections.
 *
 * Usage: java LocksHot [millions of acquisitions per thread] [threads] [work]
 *   (defaults 100, 1 and 1: uncontended). `work` is the rounds of work
 *   under each lock: with a long hold, a thread that arrives finds the lock
 *   taken and must wait (spin, then park) whatever the scheduler does; with
 *   a short one, contention depended on how the threads happened to be
 *   scheduled (one run in three took no slow path at all). With several threads every thread
 *   runs the same pattern on the same three objects, so each lock is
 *   contended and acquisitions go through the runtime's slow path.
 * Prints "acquisitions: LocksHot$HotLock=N LocksHot$WarmLock=N
 * LocksHot$ColdLock=N" and "checksum: ...".
 *
 * With -Dwasp.truth.repeat=R (summary.py's CPU-share truth, run without the
 * agent), each worker runs its steps in ten chunks, and after each chunk the
 * same steps again with hot() doing its work without the lock (hotFree(), on
 * an object of its own), both timed in the thread's CPU time: the hot lock's
 * operations cost the difference. It prints the program's CPU (main and the
 * workers, less main's CPU before main() and the lock-free twins' time) and
 * that difference ("truth: cpu-ns N", "truth: part-ns L"): the hot lock's
 * share is L / N. Both halves of a difference run within milliseconds of
 * each other, so a neighbour's load moves both: measured across two runs,
 * with and without the lock, the share moved 0.12-0.56 under load.
 */
public class LocksHot {
    static final class HotLock { long n, sum; }
    static final class WarmLock { long n, sum; }
    static final class ColdLock { long n, sum; }

    static final HotLock HOT = new HotLock();
    static final WarmLock WARM = new WarmLock();
    static final ColdLock COLD = new ColdLock();
    /* 0 hot, 1 warm, 2 cold: 6:3:1. */
    static int WORK = 1;
    /* With several threads, every 256th holder of the hot lock yields the
     * CPU while holding it: a contended acquisition (spin, park) follows
     * however the threads are scheduled, even on a loaded machine where
     * they rarely run at the same time. */
    static boolean YIELD_HOLDING;
    static final boolean TRUTH = Integer.getInteger("wasp.truth.repeat") != null;
    static final java.util.concurrent.atomic.AtomicLong WORKER_CPU = new java.util.concurrent.atomic.AtomicLong();
    static final java.util.concurrent.atomic.AtomicLong LOCK_NS = new java.util.concurrent.atomic.AtomicLong();
    /* hotFree()'s object: HOT's shape, never locked. */
    static final HotLock FREE = new HotLock();
    static final int[] PATTERN = {0, 1, 0, 2, 0, 1, 0, 0, 1, 0};

    static long mix(long x) {
        x ^= x >>> 29;
        return x * 0xbf58476d1ce4e5b9L;
    }

    static long hot(long x) {
        synchronized (HOT) { // WASP-EXPECT: locks
            HOT.n++;
            if (YIELD_HOLDING && (HOT.n & 255) == 0)
                Thread.yield(); /* the other threads find it taken, owner off the CPU */
            for (int j = 1; j < WORK; j++)
                HOT.sum += mix(x + j);
            return HOT.sum += mix(x + HOT.n);
        }
    }

    /* hot()'s work without the lock, for the truth (one thread, WORK 1). */
    static long hotFree(long x) {
        FREE.n++;
        return FREE.sum += mix(x + FREE.n);
    }

    static long warm(long x) {
        synchronized (WARM) {
            WARM.n++;
            for (int j = 1; j < WORK; j++)
                WARM.sum += mix(x + j);
            return WARM.sum += mix(x + WARM.n);
        }
    }

    static long cold(long x) {
        synchronized (COLD) {
            COLD.n++;
            for (int j = 1; j < WORK; j++)
                COLD.sum += mix(x + j);
            return COLD.sum += mix(x + COLD.n);
        }
    }

    static long run(long steps) {
        long s = 0;
        for (long i = 0; i < steps; i++) {
            switch (PATTERN[(int) (i % PATTERN.length)]) {
            case 0: s += hot(i); break;
            case 1: s += warm(i); break;
            default: s += cold(i); break;
            }
        }
        return s;
    }

    /* run() with hotFree() for hot(). */
    static long runFree(long steps) {
        long s = 0;
        for (long i = 0; i < steps; i++) {
            switch (PATTERN[(int) (i % PATTERN.length)]) {
            case 0: s += hotFree(i); break;
            case 1: s += warm(i); break;
            default: s += cold(i); break;
            }
        }
        return s;
    }

    /* The truth's worker: run() in ten chunks, each followed by its lock-free
     * twin; the twins' time is left out of the CPU it reports (WORKER_CPU)
     * and the difference is the lock's (LOCK_NS). */
    static long runTimed(long steps) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long s = 0, free = 0, locked = 0;
        for (int c = 0; c < 10; c++) {
            long a = mx.getCurrentThreadCpuTime();
            s += run(steps / 10);
            long b = mx.getCurrentThreadCpuTime();
            runFree(steps / 10);
            long d = mx.getCurrentThreadCpuTime();
            locked += b - a;
            free += d - b;
        }
        WORKER_CPU.addAndGet(mx.getCurrentThreadCpuTime() - free);
        LOCK_NS.addAndGet(locked - free);
        return s;
    }

    public static void main(String[] args) throws Exception {
        long before = TRUTH ? java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() : 0;
        long steps = (args.length > 0 ? Long.parseLong(args[0]) : 100) * 1_000_000L;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        WORK = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        YIELD_HOLDING = threads > 1;
        long[] sums = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int k = t;
            ts[t] = new Thread(() -> {
                sums[k] = TRUTH ? runTimed(steps) : run(steps);
            }, "locks-" + t);
            ts[t].start();
        }
        long checksum = 0;
        for (int t = 0; t < threads; t++) {
            ts[t].join();
            checksum += sums[t];
        }
        System.out.println("acquisitions: LocksHot$HotLock=" + HOT.n + " LocksHot$WarmLock=" + WARM.n
                + " LocksHot$ColdLock=" + COLD.n);
        /* The sums depend on the interleaving when threads contend: the
         * checksum is the counts, which do not. */
        System.out.println("checksum: " + Long.toHexString(HOT.n * 961 + WARM.n * 31 + COLD.n)
                + (threads == 1 ? "-" + Long.toHexString(checksum) : ""));
        if (TRUTH)
            System.err.println("truth: cpu-ns " + (WORKER_CPU.get() - before
                    + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime())
                    + "\ntruth: part-ns " + LOCK_NS.get());
    }
}
