import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * A deterministic program's work done N times in one JVM: a longer run with
 * the same allocation shares. For bench/alloc_overlap.py on runs longer than
 * a census of the whole run fits in memory: the census of one pass
 * (AllocCensus) is the reference for N passes, up to what only the first
 * pass allocates (class loading; measured in docs/alloc.md).
 *
 *   java -cp build/bench:APP RunTimes N CLASS.METHOD ARGS...
 *
 * METHOD is static: `main` gets ARGS as its String[]; any other method gets
 * them as that many String parameters (SableCC's main ends in System.exit,
 * so its work is called as SableCC.processGrammar GRAMMAR OUTDIR).
 */
public final class RunTimes {
    public static void main(String[] args) throws Exception {
        int n = args.length >= 2 ? Integer.parseInt(args[0]) : 0;
        int dot = n >= 1 ? args[1].lastIndexOf('.') : -1;
        if (dot < 1) {
            System.err.println("usage: java RunTimes N CLASS.METHOD [ARGS...]   (N >= 1)");
            System.exit(2);
        }
        String[] rest = new String[args.length - 2];
        System.arraycopy(args, 2, rest, 0, rest.length);
        Method m = find(Class.forName(args[1].substring(0, dot)), args[1].substring(dot + 1), rest.length);
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            if (m.getParameterCount() == 1 && m.getParameterTypes()[0] == String[].class)
                m.invoke(null, (Object) rest.clone());
            else
                m.invoke(null, (Object[]) rest.clone());
            System.err.printf("RunTimes: pass %d of %d in %.1f s%n", i + 1, n,
                    (System.nanoTime() - t0) / 1e9);
        }
    }

    /* The static method `name` taking String[] (main) or `count` Strings. */
    private static Method find(Class<?> c, String name, int count) throws NoSuchMethodException {
        for (Method m : c.getMethods()) {
            if (!m.getName().equals(name) || !Modifier.isStatic(m.getModifiers()))
                continue;
            Class<?>[] p = m.getParameterTypes();
            boolean strings = p.length == count;
            for (Class<?> t : p)
                strings &= t == String.class;
            if ((p.length == 1 && p[0] == String[].class && name.equals("main")) || strings)
                return m;
        }
        throw new NoSuchMethodException(c.getName() + "." + name + " taking String[] or "
                + count + " Strings");
    }
}
