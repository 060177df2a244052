/*
 * Planted inefficiency: SILENT STORES in code the application calls, which
 * the JIT does not inline (the summary's "with the code it calls",
 * docs/findings.md).
 *
 * A loop writes into a list, through ArrayList.set, the value each slot
 * already holds: every store in ArrayList.set is silent. The application's
 * place is the calling line (the first application frame); the stores and
 * nearly all of the time are inside ArrayList.set, which the test keeps out
 * of line (-XX:CompileCommand=dontinline,java/util/ArrayList.set), so the
 * calling line's own samples are a small part of what it costs. The rest of
 * the program is arithmetic on an int[] (loads, no stores), about four
 * fifths of its time.
 *
 * Usage: java -XX:CompileCommand=dontinline,java/util/ArrayList.set
 *            SilentStoreCalls [rounds-in-thousands]   (default 20, about 3 s)
 *
 * With -Dwasp.truth.repeat=R (summary.py's CPU-share truth, run without the
 * agent) the planted loop runs R times where it ran once, and the main
 * thread's CPU time is printed at the end ("truth: cpu-ns N"): the loop's
 * share of the program's CPU is (T(1) - T(0)) / T(1).
 */
import java.util.ArrayList;

public class SilentStoreCalls {
    static final int SLOTS = 1 << 12;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);

    public static void main(String[] args) {
        int rounds = (args.length > 0 ? Integer.parseInt(args[0]) : 20) * 1000;
        ArrayList<Integer> list = new ArrayList<>();
        Integer v = 7;
        for (int i = 0; i < SLOTS; i++)
            list.add(v);
        int[] data = new int[SLOTS];
        for (int i = 0; i < SLOTS; i++)
            data[i] = i * 31;
        long sum = 0;
        for (int it = 0; it < rounds; it++) {
            for (int r = 0; r < REPEAT; r++)
                for (int i = 0; i < SLOTS; i++)
                    list.set(i, v); // WASP-EXPECT: silentstore
            for (int k = 0; k < 6; k++)
                for (int i = 0; i < SLOTS; i++)
                    sum += (data[i] ^ (sum >>> 3)) % 13;
        }
        System.out.println("checksum: " + Long.toHexString(sum));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
    }
}
