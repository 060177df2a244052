/*
 * Planted inefficiency: EXCEPTIONS AS CONTROL FLOW, each one filling in its
 * stack trace (the summary's "fill in exceptions' stack traces",
 * docs/findings.md "Exceptions").
 *
 * Modelled on SableCC, whose Grammar.computeLALR asks Production.rightside(i)
 * for the symbol after an item's position and catches the exception Vector
 * throws past the end: a third of its CPU goes to Throwable.fillInStackTrace
 * (docs/corpus.md). Here reduce() asks symbol(i) the same way, under a few
 * frames of recursion (a parser's depth, which the stack walk pays for),
 * and two positions in five are past the end. The rest of the program is
 * arithmetic on an int[].
 *
 * Usage: java ExceptionFlow [rounds-in-thousands]   (default 1500, about 3 s)
 *
 * With -Dwasp.truth.repeat set (summary.py's truth, run without the agent)
 * the main thread's CPU time is printed at the end ("truth: cpu-ns N"); the
 * truth is the program with stack traces (the default) and without
 * (-XX:-StackTraceInThrowable): what filling them in costs.
 */
public class ExceptionFlow {
    static final int[] SYMBOLS = {3, 1, 4};
    static int[] data = new int[1 << 10];

    static int symbol(int position) {
        if (position >= SYMBOLS.length)
            throw new IllegalArgumentException("past the end"); // WASP-EXPECT: exceptions
        return SYMBOLS[position];
    }

    static int reduce(int position) {
        try {
            return symbol(position);
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    static int nest(int depth, int position) {
        return depth == 0 ? reduce(position) : 1 + nest(depth - 1, position);
    }

    public static void main(String[] args) {
        int rounds = (args.length > 0 ? Integer.parseInt(args[0]) : 1500) * 1000;
        for (int i = 0; i < data.length; i++)
            data[i] = i * 31;
        long sum = 0;
        for (int it = 0; it < rounds; it++) {
            sum += nest(12, it % 5);
            for (int i = 0; i < 160; i++)
                sum += (data[(i + it) & (data.length - 1)] ^ (sum >>> 3)) % 13;
        }
        System.out.println("checksum: " + Long.toHexString(sum));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
    }
}
