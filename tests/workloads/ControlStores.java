/*
 * Control for the store analyses: the shape of DeadStoreEuler (a row of state
 * cells and a row of scratch cells, swept in separate loops, values in fields
 * of objects), without waste.
 *
 * Every store writes a value different from the one already there, and every
 * stored value is read before the location is written again:
 *   - the first sweep writes temp[j].a = ug[j].a * K ^ j. K is odd, so the
 *     value changes whenever ug[j].a changed; the second sweep reads it before
 *     the next step's first sweep overwrites it (not dead, not silent);
 *   - the second sweep adds an odd number to ug[j].a, so it always changes,
 *     and the next step's first sweep reads it before the next second sweep
 *     writes it again (not dead, not silent).
 * Values are longs, so equality is exact (the float threshold that lets two
 * different doubles count as equal does not apply). Expected: dead-store and
 * silent-store fractions near zero.
 *
 * Usage: java ControlStores [steps-in-thousands]   (default 1600, about 4 s)
 */
public class ControlStores {
    static final int CELLS = 1024;
    static final long K = 0x9E3779B97F4A7C15L;

    static final class Cell {
        long a;
        Cell(long a) { this.a = a; }
    }

    static long step(Cell[] ug, Cell[] temp) {
        int n = ug.length;
        for (int j = 0; j < n - 1; j++) {
            temp[j].a = ug[j].a * K ^ j;
        }
        long sum = 0;
        for (int j = 0; j < n - 1; j++) {
            long t = temp[j].a;
            ug[j].a += (t >>> 7) | 1;
            sum += t;
        }
        return sum;
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 1600;
        long t0 = System.nanoTime();
        Cell[] ug = new Cell[CELLS];
        Cell[] temp = new Cell[CELLS];
        for (int j = 0; j < CELLS; j++) {
            ug[j] = new Cell(j * 7919L);
            temp[j] = new Cell(0);
        }
        long checksum = 0;
        long steps = thousands * 1000L;
        for (long s = 0; s < steps; s++) {
            checksum = checksum * 31 + step(ug, temp);
        }
        for (Cell c : ug) checksum = checksum * 31 + c.a;
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("ControlStores: %d k steps in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
