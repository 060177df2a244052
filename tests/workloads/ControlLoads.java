/*
 * Control for the silent-load analysis: the shape of SilentLoadSearch (linear
 * searches over an int table), without waste.
 *
 * Between two searches the table is rewritten with new values:
 * table[i] = (i + generation) * K, with K odd, so every element changes by K
 * at every generation. Each load in a search therefore reads a value different
 * from the one the previous load of that element (in the previous search) read:
 * the element was modified in between. The rewrite loop computes its values
 * in registers and loads nothing. Expected: silent-load fraction near zero.
 *
 * Usage: java ControlLoads [searches-in-thousands]   (default 1800, about 4 s)
 */
public class ControlLoads {
    static final int SIZE = 4096;
    static final int K = 0x9E3779B1;

    static int indexOf(int[] table, int key) {
        for (int i = 0; i < table.length; i++) {
            if (table[i] == key) return i;
        }
        return -1;
    }

    static void rewrite(int[] table, int generation) {
        for (int i = 0; i < table.length; i++) {
            table[i] = (i + generation) * K;
        }
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 1800;
        long t0 = System.nanoTime();
        int[] table = new int[SIZE];
        long checksum = 0;
        int rnd = 12345;
        long searches = thousands * 1000L;
        for (int q = 0; q < searches; q++) {
            rewrite(table, q);
            rnd = rnd * 1103515245 + 12345;
            int want = (rnd >>> 8) % SIZE;
            checksum = checksum * 31 + indexOf(table, (want + q) * K);
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("ControlLoads: %d k searches in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
