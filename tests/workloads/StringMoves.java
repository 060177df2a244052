/*
 * The JVM's memset under a debug register (test budget.string-moves): each
 * round allocates a large array, which the JVM clears in its runtime with
 * memset (`rep stosb` on CPUs with fast string stores; arrays this large are
 * never made in a thread's allocation buffer), then rewrites a table, about
 * as long: stores that the next round overwrites before reading them (dead
 * stores), so a watch armed on one lives through the next round's memset. Many CPUs run
 * `rep stosb` element by element while any data breakpoint is enabled (28
 * times slower on the AMD EPYC KVM guest), so without a bound the memset
 * would take nearly all of the program's time under wasp.
 *
 * On a 1 GiB G1 heap (regions of 1 MiB) both the array and the table are
 * humongous: objects.humongous-reclaimed checks that the arrays tracked
 * under -e objects are still reclaimed at the young collection after they
 * die, and that the table's accesses are its site's.
 *
 * Usage: java StringMoves [rounds]   (default 20000)
 * Prints "checksum: ...".
 */
public class StringMoves {
    static final int BIG = 1 << 20;  /* bytes cleared a round: 1 MiB */
    static final int TABLE = 1 << 16; /* longs stored a round: 512 KiB */

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        long[] table = new long[TABLE]; // WASP-EXPECT: objects
        long h = 0;
        for (int r = 0; r < rounds; r++) {
            byte[] big = new byte[BIG];
            big[r & (BIG - 1)] = (byte) r;
            h += big[(r * 31) & (BIG - 1)];
            for (int i = 0; i < TABLE; i++)
                table[i] = h * 31 + i; // WASP-EXPECT: deadstore
            h += table[r & (TABLE - 1)];
        }
        System.out.println("checksum: " + Long.toHexString(h));
    }
}
