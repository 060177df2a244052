/*
 * Planted object replicas (OJXPerf; fj-kmeans): fork-join tasks that each
 * assign the same points to the nearest of K centroids and return the
 * assignment in a freshly allocated int[] result, which the task then reads
 * in 2*K passes to update the centroids' sums. The centroids have converged:
 * most tasks see them in the same order and so compute a result identical to
 * every other task's. One task in RESTART (independently, seeded by task
 * number) works on a restarted clustering whose centroids are the same but
 * listed rotated by 1..K-1 places, so every point gets a different label and
 * that result differs from the common one in every element.
 *
 * Tasks are independent and identically distributed, so the chance that two
 * results are identical does not depend on which pairs a sampler compares,
 * nor on how the two workers interleave. The exact θ printed is measured over
 * the results in task order: the fraction of consecutive pairs that are
 * bitwise identical (about (1 - 1/8)^2 + (1/8)^2/7 = 0.768).
 *
 * Usage: java ReplicaKMeans [tasks]   (default 40000, about 3-4 s; truth: REPEAT)
 * Prints "replication: X", "tasks: N" and "checksum: ...".
 */
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;

public class ReplicaKMeans {
    static final int N = 2048;       // points; int[2048] = 8 KiB per result
    static final int K = 8;
    static final int RESTART = 8;
    static final int WORKERS = 2;
    static final int BATCH = 64;

    static final double[] xs = new double[N], ys = new double[N];
    static final double[] cx = new double[K], cy = new double[K];

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static int rotationOf(int task) {
        long r = mix(0x1234567L + task);
        if (Long.remainderUnsigned(r, RESTART) != 0)
            return 0;
        return 1 + (int) Long.remainderUnsigned(r >>> 16, K - 1);
    }

    static int[] assign(double[] ccx, double[] ccy) {
        int[] result = new int[N]; // WASP-EXPECT: replicas
        for (int i = 0; i < N; i++) {
            double x = xs[i], y = ys[i];
            int best = 0;
            double bd = Double.MAX_VALUE;
            for (int j = 0; j < K; j++) {
                double dx = x - ccx[j], dy = y - ccy[j];
                double d = dx * dx + dy * dy;
                if (d < bd) {
                    bd = d;
                    best = j;
                }
            }
            result[i] = best;
        }
        return result;
    }

    /* The update step: per centroid, a pass over the result for the sums of x
     * and one for the sums of y (branch-free, so every pass reads all of it). */
    static double update(int[] result) {
        double h = 0;
        for (int j = 0; j < K; j++) {
            double sx = 0, sy = 0;
            int n = 0;
            for (int i = 0; i < N; i++) {
                int m = result[i] == j ? 1 : 0;
                n += m;
                sx += m * xs[i];
            }
            for (int i = 0; i < N; i++)
                sy += (result[i] == j ? 1 : 0) * ys[i];
            h = h * 31 + (n > 0 ? (sx + 2 * sy) / n : 0);
        }
        return h;
    }

    static final class Task extends RecursiveTask<int[]> {
        final int id;
        double h;

        Task(int id) {
            this.id = id;
        }

        @Override
        protected int[] compute() {
            int rot = rotationOf(id);
            double[] ccx = new double[K], ccy = new double[K];
            for (int j = 0; j < K; j++) {
                ccx[j] = cx[(j + rot) % K];
                ccy[j] = cy[(j + rot) % K];
            }
            int[] result = assign(ccx, ccy);
            h = REPEAT == 0 ? 0 : update(result);
            return result;
        }
    }

    public static void main(String[] args) {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 40000;
        // K well-separated clusters; the centroids are their (converged) means.
        long s = 42;
        for (int i = 0; i < N; i++) {
            int c = i % K;
            s = mix(s);
            double ang = 2 * Math.PI * c / K;
            xs[i] = 10 * Math.cos(ang) + ((s & 0xffff) / 65536.0 - 0.5);
            ys[i] = 10 * Math.sin(ang) + (((s >>> 16) & 0xffff) / 65536.0 - 0.5);
        }
        for (int c = 0; c < K; c++) {
            double sx = 0, sy = 0;
            int n = 0;
            for (int i = c; i < N; i += K) {
                sx += xs[i];
                sy += ys[i];
                n++;
            }
            cx[c] = sx / n;
            cy[c] = sy / n;
        }
        ForkJoinPool pool = new ForkJoinPool(WORKERS);
        int[] prev = null;
        long same = 0, pairs = 0, restarts = 0;
        double checksum = 0;
        for (int t0 = 0; t0 < tasks; t0 += BATCH) {
            List<Task> batch = new ArrayList<>();
            for (int t = t0; t < Math.min(tasks, t0 + BATCH); t++)
                batch.add(new Task(t));
            pool.invoke(new RecursiveTask<Void>() {
                @Override
                protected Void compute() {
                    invokeAll(batch);
                    return null;
                }
            });
            for (Task t : batch) {
                int[] r = t.join();
                checksum = checksum * 0.5 + t.h;
                if (rotationOf(t.id) != 0)
                    restarts++;
                if (prev != null) {
                    pairs++;
                    if (Arrays.equals(prev, r))
                        same++;
                }
                prev = r;
            }
        }
        long cpuNs = Integer.getInteger("wasp.truth.repeat") != null ? threadsCpuNs() : 0;
        pool.shutdown();
        System.out.printf("tasks: %d (%d restarted)%n", tasks, restarts);
        System.out.printf("replication: %.4f%n", (double) same / pairs);
        System.out.println("checksum: " + Long.toHexString(Double.doubleToLongBits(checksum)));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + cpuNs);
    }

    /* With -Dwasp.truth.repeat=0 (summary.py's CPU-share truth, run without
     * the agent) the tasks do not read their results (no update): what
     * accesses the replicas, besides assign's stores and main's
     * Arrays.equals, is gone. With -Dwasp.truth.repeat (0 or 1) the CPU time
     * of the program's threads (main and the pool's workers, before the pool
     * ends) is printed at the end ("truth: cpu-ns N"):
     * the readers' share of the program's CPU is (T(1) - T(0)) / T(1).
     * REPEAT is a static final: at its default 1 the JIT folds the choice
     * away. Declared last so the lines above keep their numbers. */
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);

    /* The CPU time of the live Java threads the JVM shows (main, the pool's
     * workers and the JDK's idle ones; not the JIT's or the GC's). */
    static long threadsCpuNs() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : mx.getAllThreadIds())
            sum += Math.max(0, mx.getThreadCpuTime(id));
        return sum;
    }
}
