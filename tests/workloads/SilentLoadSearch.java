/*
 * Planted inefficiency: SILENT LOADS (JXPerf, Sec. 7: "SableCC-3.7: Silent
 * Loads", where repeated TreeMap.put() lookups reload the same tree nodes, and
 * Sec. 2's repeated searches over unchanged data).
 *
 * The program answers many membership queries with a linear search over a
 * table that never changes. Every search reloads table entries that earlier
 * searches already loaded, and gets the same values: the load in the search
 * loop (the planted line) is silent with respect to the previous load of the
 * same element, which is the same line in an earlier search. A hash map or a
 * sorted table with binary search would remove almost all of these loads.
 *
 * Shaped against the JIT: the search is a loop with an early exit (neither
 * vectorized nor hoisted), and the query keys are computed in registers from
 * the table's formula (table[i] = i * K), so the only loads in the hot loop
 * are the table loads on the planted line.
 *
 * Usage: java SilentLoadSearch [searches-in-thousands]   (default 5000, about 4 s)
 *
 * With -Dwasp.truth.repeat=R (summary.py's CPU-share truth, run without the
 * agent) the planted loop (the search) runs R times where
 * it ran once, and the main thread's CPU time is printed at the end
 * ("truth: cpu-ns N"): the loop's share of the program's CPU is
 * (T(1) - T(0)) / T(1). REPEAT is a static final: at its default 1 the JIT
 * folds the repeat away.
 */
public class SilentLoadSearch {
    static final int SIZE = 4096;
    static final int REPEAT = Integer.getInteger("wasp.truth.repeat", 1);
    static final int K = 0x9E3779B1; // odd: i -> i * K is a bijection, keys are unique

    static int indexOf(int[] table, int key) {
        for (int i = 0; i < table.length; i++) {
            if (table[i] == key) return i; // WASP-EXPECT: silentload
        }
        return -1;
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        long t0 = System.nanoTime();
        int[] table = new int[SIZE];
        for (int i = 0; i < SIZE; i++) table[i] = i * K;
        long checksum = 0;
        int rnd = 12345;
        long searches = thousands * 1000L;
        for (long q = 0; q < searches; q++) {
            rnd = rnd * 1103515245 + 12345;
            int want = (rnd >>> 8) % SIZE;
            // Every eighth query asks for a key that is not in the table.
            int key = (q & 7) == 7 ? want * K + 1 : want * K;
            for (int r = 0; r < REPEAT; r++)
                checksum = checksum * 31 + indexOf(table, key);
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
        if (Integer.getInteger("wasp.truth.repeat") != null)
            System.err.println("truth: cpu-ns " + java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
        System.err.printf("SilentLoadSearch: %d k searches in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
