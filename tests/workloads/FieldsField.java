/*
 * Planted hot field (Inoue and Nakatani's object profile: which class and
 * field the memory accesses go to). A million Cell objects of twelve fields
 * each are visited in a random order (a permutation in an int[]); every visit
 * increments one field, `hits`, and one visit in COLD also reads the other
 * fields. The Cells (~56 MB) do not fit in any cache, so the visits miss and
 * the samples land on the hot field's access.
 *
 * Usage: java FieldsField [rounds] [builds]   (default 12 and 1, about 3 s)
 * builds: how many times the million Cells are made (the last set is
 * visited), for tests of the creation profile.
 * Prints "checksum: ...".
 */
public class FieldsField {
    static final int CELLS = 1 << 20;
    static final int COLD = 64;

    static final class Cell {
        int a, b, c, d;
        long e, f;
        int hits; // WASP-FIELD: FieldsField$Cell.hits
        double g, h;
        Object link;
    }

    static long cold(Cell x) {
        return x.a + x.b + x.c + x.d + x.e + x.f + (long) x.g + (long) x.h + (x.link == null ? 0 : 1);
    }

    static long visit(Cell[] cells, int[] order) {
        long sum = 0;
        for (int i = 0; i < order.length; i++) {
            Cell x = cells[order[i]];
            x.hits++; // WASP-EXPECT: fields
            if ((i & (COLD - 1)) == 0)
                sum += cold(x);
        }
        return sum;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        int builds = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Cell[] cells = null;
        for (int b = 0; b < builds; b++) {
            cells = new Cell[CELLS];
            for (int i = 0; i < CELLS; i++) {
                cells[i] = new Cell();
                cells[i].a = i;
                cells[i].e = i * 3L;
            }
        }
        int[] order = new int[CELLS];
        for (int i = 0; i < CELLS; i++)
            order[i] = i;
        long s = 0x9E3779B97F4A7C15L;
        for (int i = CELLS - 1; i > 0; i--) {
            s ^= s << 13; s ^= s >>> 7; s ^= s << 17;
            int j = (int) Long.remainderUnsigned(s, i + 1);
            int t = order[i]; order[i] = order[j]; order[j] = t;
        }
        long checksum = 0;
        for (int r = 0; r < rounds; r++)
            checksum = checksum * 31 + visit(cells, order);
        long hits = 0;
        for (Cell c : cells)
            hits += c.hits;
        System.out.println("checksum: " + Long.toHexString(checksum * 31 + hits));
    }
}
