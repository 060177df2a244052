import java.util.Arrays;
import java.util.HashMap;

/*
 * Overhead benchmark workload for wasp (bench/overhead.py): a compute-heavy
 * mix of the access patterns the analyses watch, with no planted waste beyond
 * what ordinary code has. Each of T threads runs, per iteration: a stencil
 * over double arrays (stores and loads of a hot working set), inserts and
 * lookups in a HashMap (pointer chasing, allocation, some GC), a sort of an
 * int array, and binary searches. The work is fixed, not timed, so wall time
 * measures the cost of profiling; the checksum lets the benchmark check that
 * the profiled run computed the same result.
 *
 * Usage: java -cp build/bench BenchMix [threads] [iterations]   (defaults 2, 40)
 */
public class BenchMix {
    static long stencil(double[] u, double[] v, int sweeps) {
        for (int s = 0; s < sweeps; s++) {
            for (int i = 1; i < u.length - 1; i++) v[i] = 0.25 * (u[i - 1] + 2 * u[i] + u[i + 1]);
            for (int i = 1; i < u.length - 1; i++) u[i] = v[i] + 1e-3 * (i & 7);
        }
        double s = 0;
        for (double d : u) s += d;
        return Double.doubleToLongBits(s);
    }

    static long maps(long seed, int n) {
        HashMap<Long, long[]> m = new HashMap<>();
        long acc = 0, r = seed;
        for (int i = 0; i < n; i++) {
            r = r * 6364136223846793005L + 1442695040888963407L;
            long k = (r >>> 40) & 0xffff;
            long[] v = m.get(k);
            if (v == null) m.put(k, v = new long[4]);
            v[(int) (r >>> 62)] += i;
            acc += v[0] ^ k;
        }
        return acc + m.size();
    }

    static long sortSearch(long seed, int n) {
        int[] a = new int[n];
        long r = seed;
        for (int i = 0; i < n; i++) {
            r = r * 6364136223846793005L + 1442695040888963407L;
            a[i] = (int) (r >>> 33);
        }
        Arrays.sort(a);
        long acc = 0;
        for (int i = 0; i < n; i++) acc += Arrays.binarySearch(a, a[(i * 7919) % n]) >= 0 ? 1 : 0;
        return acc * 31 + a[n / 2];
    }

    static long work(int id, int iterations) {
        double[] u = new double[4096], v = new double[4096];
        for (int i = 0; i < u.length; i++) u[i] = Math.sin(i + id);
        long acc = id;
        for (int it = 0; it < iterations; it++) {
            acc = acc * 31 + stencil(u, v, 200);
            acc = acc * 31 + maps(acc ^ it, 200_000);
            acc = acc * 31 + sortSearch(it * 131L + id, 100_000);
        }
        return acc;
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        long t0 = System.nanoTime();
        long[] results = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> results[id] = work(id, iterations), "bench-" + t);
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        long checksum = 0;
        for (long r : results) checksum = checksum * 1000003 + r;
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("BenchMix: %d threads x %d iterations in %.2f s%n",
                threads, iterations, (System.nanoTime() - t0) / 1e9);
    }
}
