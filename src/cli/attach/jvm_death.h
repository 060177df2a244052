/*
 * A JVM that died: where HotSpot put its fatal-error report (hs_err file)
 * and whose code the report blames, for `wasp run` (its own child) and
 * `wasp attach` / `wasp detach` (a JVM they talk to).
 *
 * HotSpot writes the report to -XX:ErrorFile (the last one given, %p the
 * pid, relative to its working directory), else hs_err_pid<pid>.log in its
 * working directory, else in its temporary directory (/tmp): the first it
 * can create. The working directory and options must be learned while the
 * JVM lives (/proc/PID is gone once it is reaped), so the candidates are
 * computed beforehand (wasp_jvm_death_prepare) and only looked for after.
 *
 * The report's header names the error ("SIGSEGV (0xb) at pc=...",
 * "Internal Error (debug.cpp:362)" with "fatal error: OutOfMemory
 * encountered: Java heap space" for -XX:+CrashOnOutOfMemoryError) and,
 * for a crash in code, the "Problematic frame" ("C  [libwasp.so+0x1234]
 * ..."). Only a problematic frame in the agent's library blames wasp.
 */
#ifndef WASP_CLI_JVM_DEATH_H
#define WASP_CLI_JVM_DEATH_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

enum { WASP_JVM_DEATH_CANDIDATES = 3, WASP_JVM_DEATH_PATH = 4096 };

typedef struct wasp_jvm_death {
    int n; /* candidates, in HotSpot's order */
    char file[WASP_JVM_DEATH_CANDIDATES][WASP_JVM_DEATH_PATH];
    time_t since; /* a report older than this is an earlier process's */
} wasp_jvm_death;

/* The candidates for a JVM whose own pid is file_pid, working directory cwd
 * (NULL: relative paths stay relative, i.e. ours), command line args and
 * environment env (both NULL-terminated, may be NULL; env's
 * JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and _JAVA_OPTIONS carry options too,
 * taken in the order HotSpot applies them). A report must be modified at or
 * after `since` to count. */
void wasp_jvm_death_from(wasp_jvm_death *d, int file_pid, const char *cwd, char *const *args,
                         char *const *env, time_t since);

/* The candidates for the running JVM pid (ns_pid as it sees itself), from
 * /proc/PID/cwd, cmdline and environ. Returns 0, or -1 when those could not
 * be read (then only the temporary directory's candidate is known). */
int wasp_jvm_death_prepare(wasp_jvm_death *d, pid_t pid, pid_t ns_pid, time_t since);

/* The report the JVM left: 1 with its path in out, or 0 when none. */
int wasp_jvm_death_report(const wasp_jvm_death *d, char *out, size_t outlen);

/* Whether process pid maps the file at the absolute path `file` (the agent
 * library, once the JVM loaded it): 1, 0, or -1 when its maps are
 * unreadable (it is gone). */
int wasp_jvm_maps_file(pid_t pid, const char *file);

/* The candidates as "A, B or C", for a message saying none was found. */
void wasp_jvm_death_candidates(const wasp_jvm_death *d, char *out, size_t outlen);

/* What a report's header says. */
typedef struct wasp_hs_err {
    char error[256];  /* "SIGSEGV (0xb) at pc=0x..." / "Internal Error (debug.cpp:362)" */
    char detail[256]; /* the line under it ("fatal error: ..."), or "" */
    char frame[256];  /* the problematic frame ("C  [libwasp.so+0x1234]  f+0x12"), or "" */
    int frame_in_agent; /* that frame is in the agent's library */
    int agent_on_stack; /* a native frame of the crashing thread is */
    int out_of_memory;  /* HotSpot aborted on an OutOfMemoryError */
} wasp_hs_err;

/* Parse a report's text; agent_base is the agent library's file name
 * ("libwasp.so"). Returns 0, or -1 when text is no HotSpot error report. */
int wasp_hs_err_parse(const char *text, const char *agent_base, wasp_hs_err *e);

/* The report at path, as wasp_hs_err_describe words it, into out: "its
 * report is PATH; ..." saying what HotSpot reported and whether the
 * problematic frame is wasp's (then: please report it). */
void wasp_hs_err_explain(const char *path, const char *agent_base, char *out, size_t outlen);

/* The same from a parsed report (e NULL: the file could not be read). */
void wasp_hs_err_describe(const char *path, const wasp_hs_err *e, char *out, size_t outlen);

#endif
