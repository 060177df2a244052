// Runs a corpus program's main over and over in one JVM until a stop file
// appears (or N rounds, for the run without the agent to compare with): a
// long-lived JVM of real work for bench/corpus_attach.py to attach wasp to,
// detach and attach again, as a user does to a service.
//
//   java -cp PROGRAM:CLASSES Repeat STOPFILE|N MAINCLASS ARGS...
//
// Prints "ready" before the first round and "round N" after each, so the
// script paces its sessions by the program's own progress; each round's
// output (the drivers' "checksum: ..." line) is the program's own.
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

public final class Repeat {
    public static void main(String[] a) throws Throwable {
        boolean counted = a[0].matches("[0-9]+");
        int limit = counted ? Integer.parseInt(a[0]) : 0;
        Path stop = Path.of(a[0]);
        Method main = Class.forName(a[1]).getMethod("main", String[].class);
        String[] args = Arrays.copyOfRange(a, 2, a.length);
        System.out.println("ready");
        System.out.flush();
        int rounds = 0;
        do {
            try {
                main.invoke(null, (Object) args.clone());
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            System.out.println("round " + ++rounds);
            System.out.flush();
        } while (counted ? rounds < limit : !Files.exists(stop));
    }
}
