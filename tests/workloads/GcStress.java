import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/*
 * Survival workload: many threads allocating and mutating lots of short-lived
 * objects and some long-lived ones, to force many garbage collections (objects
 * move, watched addresses go stale) while the profiler samples every thread.
 * Threads are started and ended in several rounds, so the profiler also sees
 * threads come and go while it is running.
 *
 * The result is deterministic: each thread works on its own data from its own
 * seed (no shared mutable state, no identity hash codes), and the per-thread
 * results are combined in thread order. The test compares the printed checksum
 * with a run without the profiler.
 *
 * Usage: java GcStress [threads] [rounds] [work-per-thread-per-round]
 *        (defaults 8, 4, 300; about 3 s on 2 cores with -Xmx128m, the
 *        tests' setting, which gives 40-110 collections depending on the GC)
 */
public class GcStress {
    static final class Node {
        final int key;
        long value;
        Node next;
        int[] payload;
        Node(int key, long value, Node next, int size) {
            this.key = key;
            this.value = value;
            this.next = next;
            this.payload = new int[size];
        }
    }

    /* One thread's work: batches of short-lived lists, maps and strings, and a
     * long-lived ring of nodes that survive many collections and are mutated. */
    static long work(int seed, int batches) {
        long rnd = seed * 0x9E3779B97F4A7C15L + 1;
        Node[] ring = new Node[2048];        // long-lived
        long acc = seed;
        for (int b = 0; b < batches; b++) {
            List<Node> list = new ArrayList<>();
            Node chain = null;
            for (int i = 0; i < 2000; i++) {
                rnd = rnd * 6364136223846793005L + 1442695040888963407L;
                int r = (int) (rnd >>> 33);
                chain = new Node(r, i, (i & 15) == 0 ? null : chain, 4 + (r & 31));
                chain.payload[r & 3] = r;
                list.add(chain);
                if ((r & 63) == 0) {
                    // Promote: this node replaces one in the long-lived ring.
                    int slot = (r >>> 6) & (ring.length - 1);
                    Node old = ring[slot];
                    if (old != null) acc += old.value * 31 + old.payload[0];
                    ring[slot] = chain;
                }
            }
            Map<Integer, String> map = new HashMap<>();
            for (int i = 0; i < list.size(); i += 3) {
                Node n = list.get(i);
                map.put(n.key & 4095, Integer.toString(n.key, 36));
            }
            for (Map.Entry<Integer, String> e : map.entrySet()) {
                acc = acc * 31 + e.getKey() + e.getValue().hashCode();
            }
            // Mutate long-lived objects (old-to-young references, card marks).
            for (int i = 0; i < ring.length; i += 7) {
                Node n = ring[i];
                if (n != null) {
                    n.value += acc & 0xff;
                    n.next = list.get((int) ((acc >>> 8) & 0x7fffffff) % list.size());
                }
            }
            // Bounded walk: mutated ring nodes can link the chains into cycles.
            Node n = chain;
            for (int k = 0; k < 32 && n != null; k++, n = n.next) acc += n.value ^ n.key;
        }
        for (Node n : ring) if (n != null) acc = acc * 31 + n.value + n.key;
        return acc;
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int batches = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        long t0 = System.nanoTime();
        long checksum = 0;
        for (int round = 0; round < rounds; round++) {
            long[] results = new long[threads];
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                final int id = t, seed = round * 1000 + t;
                ts[t] = new Thread(() -> results[id] = work(seed, batches), "gcstress-" + round + "-" + t);
                ts[t].start();
            }
            for (Thread t : ts) t.join();
            for (long r : results) checksum = checksum * 1000003 + r;
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("GcStress: %d threads x %d rounds x %d batches in %.2f s%n",
                threads, rounds, batches, (System.nanoTime() - t0) / 1e9);
    }
}
