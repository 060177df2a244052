/*
 * A small program with three kinds of memory waste that wasp finds.
 * Run it under the profiler (about 5 seconds):
 *
 *   javac -d build/workloads examples/WastefulExample.java   # or: make workloads
 *   build/bin/wasp run -- java -cp build/workloads WastefulExample
 *
 * Each method below does a useful computation in a wasteful way; the comment
 * above it says what wasp should point at and how to fix it.
 */
public class WastefulExample {

    /* 1. SILENT STORES. scale() stores the same two factors into the settings
     *    object on every call, although they never change. wasp reports the
     *    pair <line A, line A>: each store writes the value already there.
     *    (The JIT keeps the stored values in registers for the multiply, so
     *    nothing reads them back: wasp also reports these stores as dead.)
     *    Fix: set the factors once, outside the loop. */
    static final class Settings {
        double gain, offset;
    }

    static double scale(Settings s, double x) {
        s.gain = 1.0 / 3.0; s.offset = 0.25;            // line A: silent stores
        return x * s.gain + s.offset;
    }

    /* 2. DEAD STORES. smooth() fills tmp[] with one formula and then
     *    overwrites all of it with another before reading it. wasp reports the
     *    pair <line B, line C>: the stores of line B are never read.
     *    Fix: delete the first loop. */
    static long smooth(int[] in, int[] tmp) {
        for (int i = 1; i < in.length - 1; i++) {
            tmp[i] = (in[i - 1] + in[i] + in[i + 1]) / 3; // line B: dead stores
        }
        for (int i = 1; i < in.length - 1; i++) {
            tmp[i] = (in[i - 1] + 2 * in[i] + in[i + 1]) / 4; // line C: overwrites them
        }
        long sum = 0;
        for (int i = 1; i < in.length - 1; i++) sum += tmp[i];
        return sum;
    }

    /* 3. SILENT LOADS. contains() searches an array that never changes, over
     *    and over: every search reloads the same values. wasp reports the pair
     *    <line D, line D>. Fix: put the words in a HashSet once. */
    static boolean contains(int[] words, int w) {
        for (int i = 0; i < words.length; i++) {
            if (words[i] == w) return true;             // line D: silent loads
        }
        return false;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 120_000;
        Settings[] perChannel = new Settings[8];
        for (int c = 0; c < perChannel.length; c++) perChannel[c] = new Settings();
        int[] signal = new int[3072];
        int[] tmp = new int[signal.length];
        int[] words = new int[2048];
        for (int i = 0; i < words.length; i++) words[i] = i * 31 + 7;

        double level = 0;
        long smoothSum = 0, hits = 0;
        int rnd = 1;
        long tScale = 0, tSmooth = 0, tContains = 0;
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 2_000; i++) {
                level = scale(perChannel[i & 7], level + i) * 0.5;
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < signal.length; i++) signal[i] = (i * r) & 1023;
            smoothSum += smooth(signal, tmp);
            long t2 = System.nanoTime();
            for (int q = 0; q < 16; q++) {
                rnd = rnd * 1103515245 + 12345;
                if (contains(words, ((rnd >>> 8) & 4095) * 31 + 7)) hits++;
            }
            long t3 = System.nanoTime();
            tScale += t1 - t0;
            tSmooth += t2 - t1;
            tContains += t3 - t2;
        }
        System.out.printf("level %.6f, smoothed sum %d, hits %d%n", level, smoothSum, hits);
        System.err.printf("WastefulExample: %d rounds: scale %.2f s, smooth %.2f s, contains %.2f s%n",
                rounds, tScale / 1e9, tSmooth / 1e9, tContains / 1e9);
    }
}
