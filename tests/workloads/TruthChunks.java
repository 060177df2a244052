/*
 * summary.py's truth measured within a run, for the workloads whose planted
 * code is a loop of its own (ReplicaRing, TableScan): with
 * -Dwasp.truth.repeat (run without the agent) the rounds run in ten chunks,
 * each followed by as many rounds of the twin without the planted code, all
 * timed in the main thread's CPU time; the planted code costs the
 * difference. print() writes the program's CPU (less the JVM's start-up
 * before the workload made this object, and the twin's rounds: "truth:
 * cpu-ns N") and that difference ("truth: part-ns P"); the planted code's
 * share is P / N. In ten chunks with the truth or without, so that the JIT
 * compiles the same code both ways.
 *
 * Not a workload: no main(). A subclass, not a lambda: a lambda's bootstrap
 * would be start-up work of its own in a one-second run.
 */
abstract class TruthChunks {
    static final boolean ON = Integer.getInteger("wasp.truth.repeat") != null;
    private final long before = cpu();
    private long plantedNs, twinNs;

    /* Rounds [from, to) with the planted code, and without it. */
    abstract long planted(long h, int from, int to);
    abstract long twin(long h, int from, int to);

    /* All the rounds, [0, all), from h; returns the last h. */
    final long run(int all, long h) {
        for (int c = 0; c < 10; c++) {
            int from = all * c / 10, to = all * (c + 1) / 10;
            long a = cpu();
            h = planted(h, from, to);
            if (ON) {
                long b = cpu();
                h ^= twin(h, from, to);
                twinNs += cpu() - b;
                plantedNs += b - a;
            }
        }
        return h;
    }

    final void print() {
        if (ON)
            System.err.println("truth: cpu-ns " + (cpu() - before - twinNs) + "\ntruth: part-ns "
                    + (plantedNs - twinNs));
    }

    static long cpu() {
        return !ON ? 0 : java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
