/*
 * The frames of JVM start-up work (startup_frames.h), as frame patterns
 * (frame_filter.h): a stack with any of them is start-up work, whatever
 * the application code under it. docs/findings.md lists them; keep both
 * the same.
 */
#include "cli/render/startup_frames.h"
#include "cli/render/frame_filter.h"

static const char *const startup_patterns[] = {
    /* class loading (Java) */
    "java.lang.ClassLoader.loadClass*",
    "java.lang.ClassLoader.defineClass*",
    "java.lang.Class.forName*",
    "jdk.internal.loader.*",
    /* static initialisers */
    "*.<clinit>",
    /* the launcher finding and checking the main class (reflecting on its
     * methods) before main runs */
    "sun.launcher.LauncherHelper.*",
    /* lambda and indy bootstrap */
    "java.lang.invoke.InnerClassLambdaMetafactory.*",
    "java.lang.invoke.LambdaMetafactory.*",
    "java.lang.invoke.StringConcatFactory.*",
    "java.lang.invoke.BootstrapMethodInvoker.*",
    "java.lang.invoke.CallSite.makeSite*",
    "java.lang.invoke.MethodHandleNatives.link*",
    /* the JVM's own: loading, parsing, linking, resolving (libjvm symbols) */
    "SystemDictionary::*",
    "ClassFileParser::*",
    "ClassLoader::*",
    "LinkResolver::*",
    "InterpreterRuntime::resolve*",
    "Rewriter::*",
    "InstanceKlass::link*",
    "InstanceKlass::initialize*",
    /* a method's first calls: the interpreter's counters and profile */
    "InterpreterRuntime::build_method_counters*",
    "Method::build_profiling_method_data*",
};

bool wasp_context_startup(const wasp_profile *p, const wasp_context *c)
{
    return wasp_context_matches(p, c, startup_patterns,
                                (int)(sizeof startup_patterns / sizeof *startup_patterns));
}
