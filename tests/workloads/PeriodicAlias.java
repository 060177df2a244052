/*
 * A strictly periodic program, for the sampler's randomised interval: every
 * cycle of CYCLE microseconds of this thread's CPU time runs phase A for
 * A_PERCENT of it, then phase B for the rest. Both phases are the same loop
 * (read-modify-write of a small long[] that stays in L1), at different lines
 * on different arrays, so a sample is in A or B with the odds of their CPU
 * time, A_PERCENT / 100 -- when the sampler's interval does not keep step
 * with the cycle. At the default cycle, one period of the default sampler
 * (1 ms), a fixed-interval sampler meets the program at the same point of
 * the cycle every time and sees one phase only.
 *
 * The phases end at deadlines on the thread's CPU clock (ThreadMXBean), set
 * from the cycle's start, so their lengths do not drift; a clock read every
 * CHUNK stores (~2 us of work) ends a phase within a few microseconds.
 *
 * Usage: java PeriodicAlias [cpu_seconds [cycle_us [a_percent]]]
 *   (default 5 1000 30). Prints the CPU split it measured ("split: A 0.300")
 * and "checksum: ...".
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class PeriodicAlias {
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    static final int CHUNK = 16384, MASK = 1023;
    static final long[] phaseA = new long[MASK + 1];
    static final long[] phaseB = new long[MASK + 1];

    static long cpu() {
        return MX.getCurrentThreadCpuTime();
    }

    /* Phase A until the deadline; returns the clock read at its end. */
    static long runA(long until) {
        long now;
        while ((now = cpu()) < until)
            for (int k = 0; k < CHUNK; k++)
                phaseA[k & MASK] += k; // PHASE-A
        return now;
    }

    static long runB(long until) {
        long now;
        while ((now = cpu()) < until)
            for (int k = 0; k < CHUNK; k++)
                phaseB[k & MASK] += k; // PHASE-B
        return now;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
        long cycle = (args.length > 1 ? Long.parseLong(args[1]) : 1000) * 1000L;
        long aPart = cycle * (args.length > 2 ? Long.parseLong(args[2]) : 30) / 100;
        long start = cpu(), end = start + (long) (seconds * 1e9);
        long inA = 0, inB = 0, cycles = 0;
        for (long t = start; t < end; t += cycle, cycles++) {
            long a0 = Math.max(cpu(), t);
            long a1 = runA(t + aPart);
            long b1 = runB(t + cycle);
            inA += a1 - a0;
            inB += b1 - a1;
        }
        long sum = 0;
        for (int k = 0; k <= MASK; k++)
            sum += phaseA[k] * 31 + phaseB[k];
        System.out.printf("split: A %.3f B %.3f over %d cycles%n", (double) inA / (inA + inB),
                          (double) inB / (inA + inB), cycles);
        // The work depends on timing, the checksum only on the cycles' count:
        // printed for the test's harness, compared with nothing.
        System.out.println("checksum: " + (sum != 0 ? "ok" : "none"));
    }
}
