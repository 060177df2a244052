/*
 * Java type names from JVM signatures, as reports show them (pure string
 * work: no JVM call; java_type_name.c).
 */
#ifndef WASP_AGENT_JAVA_TYPE_NAME_H
#define WASP_AGENT_JAVA_TYPE_NAME_H

#include <stddef.h>

/* How much of a class name's len chars to keep: all but a hidden class's
 * address ("Main$$Lambda$35/0x0000000800c03000",
 * "java.lang.invoke.LambdaForm$MH/0x00007f...": '/' or '.' then 0x and hex),
 * which differs from run to run and would keep the same code of two runs,
 * or of two processes merged into one report, apart. */
size_t wasp_java_name_kept(const char *name, size_t len);
/* A type signature's Java name, malloc'd: "Ljava/lang/String;" ->
 * "java.lang.String", "[[I" -> "int[][]". NULL when out of memory. */
char *wasp_java_signature_name(const char *sig);
/* The same into out (len bytes), cut to fit. */
void wasp_java_signature_name_into(const char *sig, char *out, size_t len);
#endif
