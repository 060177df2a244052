/*
 * Deep, ever different calling contexts, as a real program's are (a parser,
 * a compiler, an analysis tool): each unit of work descends DEPTH levels,
 * through left() or right() at each level as a random draw says, so almost
 * every sample's stack is new and DEPTH frames long. A thread's fixed-size
 * tables of stacks fill with these within seconds; a profiler that keeps its
 * evidence must not drop the later samples for room, nor show them without
 * their stacks.
 *
 * Usage: java DeepPaths [depth] [seconds]   (default 150 levels, 8 s)
 *
 * The seconds are the main thread's CPU time, not the clock's: the evidence
 * (the samples, each a walk of DEPTH frames) comes at a CPU-time period, so
 * a run on a loaded machine gathers as much as one on an idle one, only
 * later. With 16 s of the clock, sessions.folds took 2,024 and 2,251 walks
 * beside a CI run and two busy loops (2,702-3,752 in CI runs), of the 1,573
 * it needs to overfill a thread's records.
 */
public class DeepPaths {
    static final int[] table = new int[1 << 14];
    static volatile long sink;

    static long leaf(long rnd) {
        long s = 0;
        int base = (int) rnd & (table.length - 1);
        for (int i = 0; i < 2048; i++)
            s += table[(base + i * 7) & (table.length - 1)];
        return s;
    }

    static long next(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        return x ^ (x << 17);
    }

    static long left(int level, long rnd) {
        if (level == 0)
            return leaf(rnd);
        long n = next(rnd);
        return (n & 1) == 0 ? left(level - 1, n) : right(level - 1, n);
    }

    static long right(int level, long rnd) {
        if (level == 0)
            return leaf(rnd);
        long n = next(rnd);
        return (n & 1) == 0 ? left(level - 1, n) : right(level - 1, n);
    }

    public static void main(String[] args) {
        int depth = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 8;
        for (int i = 0; i < table.length; i++)
            table[i] = i * 0x9E3779B1;
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = cpu.getCurrentThreadCpuTime() + seconds * 1_000_000_000L;
        /* ...but at most twice the seconds of the clock: on a machine too busy
         * to give it half a CPU the run ends short rather than late. */
        long wallEnd = System.nanoTime() + 2 * seconds * 1_000_000_000L;
        long acc = 0, rnd = 0x9E3779B97F4A7C15L;
        int units = 0;
        /* The clocks read every 1024 units (each ~2.5 us), so that their
         * shallow stacks are a negligible share of the samples. */
        while ((units & 1023) != 0
               || (cpu.getCurrentThreadCpuTime() < end && System.nanoTime() < wallEnd)) {
            rnd = next(rnd);
            acc += left(depth, rnd);
            units++;
        }
        sink = acc;
        System.out.println("units " + units);
    }
}
