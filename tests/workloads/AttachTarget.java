/*
 * A long-running program for attach/detach tests: it repeats a fixed unit of
 * work (silent loads over a table, and a buffer reallocated per unit) and
 * checks each result against the one computed before anything attached, so a
 * profiler that corrupted its state would show up as "WRONG". It prints
 * "ready" once, then "tick N ok" after each unit, and stops after a line
 * "stop" on standard input (printing "done N").
 *
 * Usage: java AttachTarget
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class AttachTarget {
    static final int N = 1 << 14;

    static long unit(int[] table) {
        long acc = 0;
        for (int q = 0; q < 2000; q++) {
            int key = (q * 977) & (N - 1);
            for (int i = 0; i < N; i++) {
                if (table[i] == key) { acc += i; break; } // WASP-EXACT: the silent load
            }
        }
        for (int b = 0; b < 8; b++) {
            double[] buf = new double[N]; // WASP-EXPECT: objects
            for (int i = 0; i < N; i++) buf[i] = table[(i * 31) & (N - 1)] * 0.5;
            for (int k = 0; k < 4; k++)
                for (int i = 0; i < N; i++) acc += (long) buf[(i * 17) & (N - 1)];
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        int[] table = new int[N];
        for (int i = 0; i < N; i++) table[i] = (int) ((i * 0x9E3779B1L) & (N - 1));
        long expected = unit(table);
        Thread stopper = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                for (String l; (l = in.readLine()) != null; )
                    if (l.trim().equals("stop")) break;
            } catch (Exception e) {
                // treat a broken stdin as "stop"
            }
        });
        stopper.setDaemon(true);
        stopper.start();
        System.out.println("ready");
        System.out.flush();
        int n = 0;
        while (stopper.isAlive()) {
            long got = unit(table);
            n++;
            System.out.println("tick " + n + (got == expected ? " ok" : " WRONG " + got + " != " + expected));
            System.out.flush();
        }
        System.out.println("done " + n);
    }
}
