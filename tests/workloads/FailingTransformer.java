/*
 * A Java agent whose transformer, like a careless APM agent's, breaks one
 * class at its retransformation (test attach.recompile-transformer): the
 * first class an attaching agent asks to retransform (on the JVM's "Attach
 * Listener" thread), other than AttachTarget, gets bytes that are no class
 * file, so that JVMTI's RetransformClasses fails for every batch that holds
 * that class (and changes no class of it). Loading is left alone, and so is
 * what the JDK itself retransforms at start-up.
 *
 * Usage: java -javaagent:JAR AttachTarget, JAR holding this class with the
 *        manifest lines "Premain-Class: FailingTransformer" and
 *        "Can-Retransform-Classes: true". Says on stderr which class it broke.
 */
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

public class FailingTransformer implements ClassFileTransformer {
    private volatile String broken;

    public static void premain(String args, Instrumentation inst) {
        inst.addTransformer(new FailingTransformer(), true);
    }

    @Override
    public byte[] transform(ClassLoader loader, String name, Class<?> redefined,
                            ProtectionDomain domain, byte[] bytes) {
        if (redefined == null || redefined == AttachTarget.class
            || !Thread.currentThread().getName().equals("Attach Listener"))
            return null; /* unchanged */
        /* By the class, not the name given beside it: JDK 17 gave the first
         * class of a batch another class's name. */
        String which = redefined.getName();
        if (broken == null) {
            broken = which;
            System.err.println("FailingTransformer: breaking " + which);
        }
        return which.equals(broken) ? new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE}
                                    : null;
    }
}
