/*
 * A contended synchronized method: three threads call add() on one shared
 * instance. The monitor of a synchronized method is taken at its entry,
 * before its first bytecode (HotSpot's bci -1 in compiled frames, 0 in the
 * interpreter's), so a lock profiler must name the method's first line
 * there, as for a synchronized block's line; wasp named no line (JDK and
 * application methods alike: "Hashtable.put(Hashtable.java)") and split one
 * wait between that and the interpreter's line.
 *
 * Usage: java LocksSyncMethod [calls per thread] [threads]   (defaults
 * 20,000,000 and 3). Prints "checksum: N" (the same however the threads
 * interleave: the adds commute).
 */
public class LocksSyncMethod {
    long total;

    synchronized void add(long k) {
        total += k; // WASP-EXPECT: locks
        total += k >>> 3;
    }

    public static void main(String[] args) throws Exception {
        long calls = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
        int nthreads = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        LocksSyncMethod shared = new LocksSyncMethod();
        Thread[] threads = new Thread[nthreads];
        for (int t = 0; t < nthreads; t++) {
            final long first = t;
            threads[t] = new Thread(() -> {
                for (long i = 0; i < calls; i++)
                    shared.add(first + i);
            });
            threads[t].start();
        }
        for (Thread t : threads)
            t.join();
        System.out.println("checksum: " + shared.total);
    }
}
