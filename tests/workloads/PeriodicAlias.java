/*
 * A strictly periodic program, for the sampler's randomised interval: every
 * cycle of CYCLE microseconds of this thread's CPU time runs phase A for
 * A_PERCENT of it, then phase B for the rest. Both phases are one loop
 * (read-modify-write of a small long[] that stays in L1) on different
 * arrays, called from different lines, so a sample is in A or B with the
 * odds of their CPU time, A_PERCENT / 100 -- when the sampler's interval
 * does not keep step with the cycle. At the default cycle, one period of the
 * default sampler (1 ms), a sampler at a fixed interval meets the program at
 * the same point of the cycle every time, as far as its clock keeps time.
 *
 * The phases end at deadlines on the thread's CPU clock (ThreadMXBean), set
 * from the cycle's start, so their lengths do not drift; a clock read every
 * CHUNK stores (a few microseconds) ends a phase within a few microseconds.
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

    /* One phase: the loop on arr until the deadline; returns the clock read
     * at its end. Both phases run this same machine code (the test keeps it
     * out of main with -XX:CompileCommand=dontinline): two copies compiled
     * apart had different shares of instructions without a memory operand,
     * which no address sample can land on (A had 0.28 of the samples for
     * 0.30 of the CPU on JDK 17). The phases differ by their calling line. */
    static long spin(long[] arr, long until) {
        long now;
        while ((now = cpu()) < until)
            for (int k = 0; k < CHUNK; k++)
                arr[k & MASK] += k;
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
            long a1 = spin(phaseA, t + aPart); // PHASE-A
            long b1 = spin(phaseB, t + cycle); // PHASE-B
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
