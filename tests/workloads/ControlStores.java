/*
 * Control for the store analyses: the shape of DeadStoreEuler (a state row and
 * a scratch row swept in separate loops), without waste.
 *
 * Every store writes a value different from the one already there, and every
 * stored value is read before the location is written again:
 *   - produce() writes scratch[j] = state[j] * K ^ j. K is odd, so the value
 *     changes whenever state[j] changed, and consume() reads it before the
 *     next produce() overwrites it (not dead, not silent).
 *   - consume() adds an odd number to state[j], so state[j] always changes,
 *     and the next produce() reads it before the next consume() writes it.
 * Values are ints, so equality is exact (no float threshold can call two
 * different values equal). Expected: dead-store and silent-store fractions
 * near zero.
 *
 * Usage: java ControlStores [steps-in-thousands]   (default 3000, about 4 s on JDK 17; JDK 25 vectorizes it: about 1.5 s)
 */
public class ControlStores {
    static final int CELLS = 1024;
    static final int K = 0x9E3779B1;

    static void produce(int[] state, int[] scratch) {
        for (int j = 0; j < scratch.length; j++) {
            scratch[j] = state[j] * K ^ j;
        }
    }

    static int consume(int[] scratch, int[] state) {
        int sum = 0;
        for (int j = 0; j < state.length; j++) {
            int s = scratch[j];
            state[j] += (s >>> 7) | 1;
            sum += s;
        }
        return sum;
    }

    public static void main(String[] args) {
        int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        long t0 = System.nanoTime();
        int[] state = new int[CELLS];
        int[] scratch = new int[CELLS];
        for (int j = 0; j < CELLS; j++) state[j] = j * 7919;
        long checksum = 0;
        long steps = thousands * 1000L;
        for (long step = 0; step < steps; step++) {
            produce(state, scratch);
            checksum = checksum * 31 + consume(scratch, state);
        }
        for (int j = 0; j < CELLS; j++) checksum = checksum * 31 + state[j];
        System.out.println("checksum: " + Long.toHexString(checksum));
        System.err.printf("ControlStores: %d k steps in %.2f s%n", thousands, (System.nanoTime() - t0) / 1e9);
    }
}
