/*
 * Runs out of Java heap on purpose, for the tests of what wasp says when the
 * JVM ends through -XX:+CrashOnOutOfMemoryError or -XX:+ExitOnOutOfMemoryError
 * (tests/integration/messages.py): it prints "ready" (flushed), then keeps
 * every array it allocates until the heap (give a small -Xmx) is full.
 *
 * Usage: java -Xmx32m [-XX:+CrashOnOutOfMemoryError] OomGrow
 */
import java.util.ArrayList;
import java.util.List;

public class OomGrow {
    public static void main(String[] args) {
        List<long[]> kept = new ArrayList<>();
        System.out.println("ready");
        System.out.flush();
        while (true)
            kept.add(new long[1 << 16]);
    }
}
