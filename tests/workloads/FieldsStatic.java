/*
 * Planted hot static field. A class's static fields live in its
 * java.lang.Class object (its mirror), after the fields of java.lang.Class
 * itself, so a sample there finds a java.lang.Class whose size the mirror
 * holds, and an offset that names one of the class's statics. Every step
 * updates `hot`; one step in 64 also updates the other statics. The fields
 * are volatile so that each step reads and writes the heap (the JIT would
 * keep a plain static in a register for the whole loop). Each step reads
 * `hot` again after writing it: a volatile store ends in a fence, and a
 * CPU-time sample taken during the fence lands on the instruction after it
 * (seen on JDK 25 on an AMD guest: with a register move there, the rare
 * branch's loads, each just after a fence, took 99% of the heap samples).
 *
 * Usage: java FieldsStatic [millions-of-steps]   (default 1000, about 2 s)
 * Prints "checksum: ...".
 */
public class FieldsStatic {
    static volatile long before;
    static volatile long hot; // WASP-FIELD: FieldsStatic.hot
    static volatile long after;
    static volatile int rare;

    public static void main(String[] args) {
        long steps = (args.length > 0 ? Long.parseLong(args[0]) : 1000) * 1_000_000L;
        long seen = 0;
        for (long i = 0; i < steps; i++) {
            hot = hot + i; seen ^= hot; // WASP-EXPECT: fields
            if ((i & 63) == 0) {
                before += i;
                after ^= i;
                rare++;
            }
        }
        System.out.println("checksum: " + Long.toHexString(hot ^ before ^ after ^ rare ^ seen));
    }
}
