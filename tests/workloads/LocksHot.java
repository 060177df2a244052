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
 * With -Dwasp.truth.repeat=0 (summary.py's CPU-share truth, run without the
 * agent) hot() does its work without taking the lock, and with any
 * -Dwasp.truth.repeat the CPU time of the program's threads (main and the
 * workers) is printed at the end ("truth: cpu-ns N"): the hot lock's
 * operations' share of the program's CPU is (T(1) - T(0)) / T(1). UNLOCKED
 * is a static final: at its default the JIT folds the test away.
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
    static final boolean UNLOCKED = Integer.getInteger("wasp.truth.repeat", 1) == 0;
    static final java.util.concurrent.atomic.AtomicLong WORKER_CPU = new java.util.concurrent.atomic.AtomicLong();
    static final int[] PATTERN = {0, 1, 0, 2, 0, 1, 0, 0, 1, 0};

    static long mix(long x) {
        x ^= x >>> 29;
        return x * 0xbf58476d1ce4e5b9L;
    }

    static long hot(long x) {
        if (UNLOCKED) { /* the truth's run without the lock: its work alone (one thread, WORK 1) */
            HOT.n++;
            return HOT.sum += mix(x + HOT.n);
        }
        synchronized (HOT) { // WASP-EXPECT: locks
            HOT.n++;
            if (YIELD_HOLDING && (HOT.n & 255) == 0)
                Thread.yield(); /* the other threads find it taken, owner off the CPU */
            for (int j = 1; j < WORK; j++)
                HOT.sum += mix(x + j);
            return HOT.sum += mix(x + HOT.n);
        }
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

    public static void main(String[] args) throws Exception {
        long steps = (args.length > 0 ? Long.parseLong(args[0]) : 100) * 1_000_000L;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        WORK = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        YIELD_HOLDING = threads > 1;
        long[] sums = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int k = t;
            ts[t] = new Thread(() -> {
                sums[k] = run(steps);
                if (Integer.getInteger("wasp.truth.repeat") != null)
                    WORKER_CPU.addAndGet(java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
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
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + (WORKER_CPU.get()
                    + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()));
    }
}
