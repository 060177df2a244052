import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import javax.management.ObjectName;

/**
 * Every allocation of a program counted by class, cheaply: run it under
 * Epsilon (a collector that never frees) and take a histogram of the whole
 * heap, dead objects included, when it exits. The reference for
 * bench/alloc_overlap.py on runs too long for a JVMTI event per allocation
 * (SableCC for 30 s makes ~250 million; at ~13 us an event that took hours).
 *
 *   java -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xmx20g \
 *        -Dcensus.out=census.txt -cp build/bench:APP AllocCensus MAIN ARGS...
 *
 * The histogram is GC.class_histogram -all (no collection first, every
 * object counted), written by a shutdown hook, so System.exit is covered.
 */
public final class AllocCensus {
    public static void main(String[] args) throws Exception {
        String out = System.getProperty("census.out");
        if (out == null || args.length < 1) {
            System.err.println("usage: java -Dcensus.out=FILE AllocCensus MAIN [ARGS...]");
            System.exit(2);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> writeHistogram(out)));
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        main.invoke(null, (Object) rest);
    }

    private static void writeHistogram(String out) {
        try {
            ObjectName dcmd = new ObjectName("com.sun.management:type=DiagnosticCommand");
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(dcmd,
                    "gcClassHistogram", new Object[] {new String[] {"-all"}},
                    new String[] {String[].class.getName()});
            Files.write(Paths.get(out), String.valueOf(text).getBytes(StandardCharsets.UTF_8));
        } catch (Exception | Error e) {
            System.err.println("AllocCensus: no histogram: " + e);
        }
    }
}
