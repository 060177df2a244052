import java.util.concurrent.locks.ReentrantLock;

/*
 * Planted blocked time (issue 41): threads blocked on three locks in the
 * ratio 3:1:2 by construction. Each round a holder thread takes a lock,
 * lets the waiter thread know, and holds it for `unit` ms times the lock's
 * factor (sleeping, so it uses no CPU) while the waiter blocks trying to take
 * it: LongHold, a monitor held 3 units; ShortHold, a monitor held 1 unit (the
 * long one 3x as long); and a ReentrantLock held 2 units (the waiter parks
 * in its AbstractQueuedSynchronizer, blocker ReentrantLock$NonfairSync).
 * The waiter measures its own blocked time around each acquisition
 * (System.nanoTime) and prints it: the truth a profiler's blocked time is
 * compared with.
 *
 * Usage: java LocksBlocked [rounds] [unit ms] [factors]   (defaults 100, 5
 * and 3:1:2: ~3.3 s). factors L:S:R replaces the 3:1:2 (`wasp diff`'s test
 * plants a change of one lock's share so, tests/integration/diff.py).
 * Prints "blocked-ns: LocksBlocked$LongHold=N LocksBlocked$ShortHold=N
 * java.util.concurrent.locks.ReentrantLock$NonfairSync=N" and "checksum: ...".
 */
public class LocksBlocked {
    static final class LongHold { long n; }
    static final class ShortHold { long n; }

    static final LongHold LONG = new LongHold();
    static final ShortHold SHORT = new ShortHold();
    static final ReentrantLock REENTRANT = new ReentrantLock();
    static final int[] FACTOR = {3, 1, 2};
    static final long[] BLOCKED = new long[3];
    /* How many locks the holder has taken (the waiter may try the last one)
     * and how many the waiter has had (the holder may go on). */
    static volatile int step;
    static volatile int waiterStep;

    static void hold(int k, long ms, int s) throws InterruptedException {
        if (k == 2) {
            REENTRANT.lock();
            try {
                step = s;
                Thread.sleep(ms);
            } finally {
                REENTRANT.unlock();
            }
            return;
        }
        Object lock = k == 0 ? LONG : SHORT;
        synchronized (lock) {
            step = s;
            Thread.sleep(ms);
        }
    }

    static void take(int k) {
        long t0 = System.nanoTime();
        if (k == 2) {
            REENTRANT.lock();
            BLOCKED[k] += System.nanoTime() - t0;
            REENTRANT.unlock();
        } else if (k == 0) {
            synchronized (LONG) { BLOCKED[k] += System.nanoTime() - t0; LONG.n++; }
        } else {
            synchronized (SHORT) { BLOCKED[k] += System.nanoTime() - t0; SHORT.n++; }
        }
    }

    static void awaitStep(java.util.function.IntSupplier s, int want) {
        while (s.getAsInt() < want)
            Thread.onSpinWait();
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        long unit = args.length > 1 ? Long.parseLong(args[1]) : 5;
        if (args.length > 2) {
            String[] f = args[2].split(":");
            for (int k = 0; k < 3; k++)
                FACTOR[k] = Integer.parseInt(f[k]);
        }
        Thread waiter = new Thread(() -> {
            int s = 0;
            for (int r = 0; r < rounds; r++)
                for (int k = 0; k < 3; k++) {
                    awaitStep(() -> step, ++s); /* the holder has it */
                    take(k);
                    waiterStep = s;
                }
        }, "locks-waiter");
        waiter.start();
        int s = 0;
        for (int r = 0; r < rounds; r++)
            for (int k = 0; k < 3; k++) {
                hold(k, unit * FACTOR[k], ++s);
                awaitStep(() -> waiterStep, s); /* it has had it */
            }
        waiter.join();
        System.out.println("blocked-ns: LocksBlocked$LongHold=" + BLOCKED[0] + " LocksBlocked$ShortHold="
                + BLOCKED[1] + " java.util.concurrent.locks.ReentrantLock$NonfairSync=" + BLOCKED[2]);
        System.out.println("checksum: " + (LONG.n * 31 + SHORT.n));
    }
}
