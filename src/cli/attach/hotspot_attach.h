/*
 * The client side of HotSpot's dynamic attach protocol on Linux: how jcmd
 * and VirtualMachine.loadAgentPath talk to a running JVM, written in C.
 *
 * The handshake: the JVM listens on the UNIX socket /tmp/.java_pid<pid> (its
 * own /tmp and its own pid, which differ from ours when it runs in a
 * container), but only once asked. To ask, a client creates the file
 * .attach_pid<pid> in the JVM's working directory (or its /tmp) and sends it
 * SIGQUIT; the JVM's signal thread sees the file, starts the Attach Listener
 * thread, which creates the socket. Without the file, SIGQUIT only makes the
 * JVM print a thread dump.
 *
 * A request (protocol version 1) is NUL-terminated strings: "1", the command
 * name (at most 16 bytes) and exactly three arguments (at most 1024 bytes
 * each; missing ones empty). The JVM answers with a status line (0: the
 * command ran; 101: protocol mismatch; other: failed, the rest of the reply
 * says why), then the command's output, then closes the connection. For
 * "load <path> <is-absolute> <options>" the output is the agent's
 * Agent_OnAttach return code: "0" (JDK 17) or "return code: 0" (JDK 21+).
 *
 * The JVM accepts only connections from its own effective uid and gid, or
 * root. SIGQUIT kills a process that does not catch it, so every check here
 * (the pid is ours to signal, it maps libjvm.so, it catches SIGQUIT) runs
 * before any signal, and the signal goes through a pidfd opened before the
 * checks so that a recycled pid cannot receive it.
 *
 * Messages put in err have no "wasp <cmd>: " prefix; the caller adds it.
 */
#ifndef WASP_CLI_HOTSPOT_ATTACH_H
#define WASP_CLI_HOTSPOT_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

/* Protocol limits (HotSpot's AttachOperation, version 1). */
enum { WASP_HS_NAME_MAX = 16, WASP_HS_ARG_MAX = 1024, WASP_HS_NARGS = 3 };
/* Attach-level status for a protocol version the JVM does not speak. */
enum { WASP_HS_STATUS_BADVERSION = 101 };
/* How long attach waits for the JVM to open its socket, by default. */
enum { WASP_HS_SOCKET_TIMEOUT_MS = 10000 };

typedef struct wasp_hs_target {
    pid_t pid;                     /* as we see it */
    pid_t ns_pid;                  /* as the JVM sees itself: last NSpid entry */
    uid_t uid;                     /* effective uid */
    gid_t gid;                     /* effective gid */
    unsigned long long start_time; /* /proc/P/stat field 22: tells a reused pid apart */
    char name[64];                 /* the command name (/proc/P/status Name) */
} wasp_hs_target;

/* wasp_hs_inspect's refusals. */
enum {
    WASP_HS_OK = 0,
    WASP_HS_NO_PROCESS = 1, /* "no process 123" */
    WASP_HS_OTHER_USER = 2, /* "process 123 belongs to user bob; attach as that user ..." */
    WASP_HS_NOT_JVM = 3,    /* "process 123 (sleep) is not a HotSpot JVM" */
    WASP_HS_FAILED = 4      /* /proc unreadable and the like */
};

/* Look at process pid without signalling it: it exists, we may attach to it
 * (same effective uid, or we are root), it maps libjvm.so. Fills t. Returns
 * WASP_HS_OK or one of the refusals above with a message in err. */
int wasp_hs_inspect(pid_t pid, wasp_hs_target *t, char *err, size_t errlen);

/* Whether process pid maps a library of base name lib ("libwasp.so"): 1,
 * 0, or -1 when its maps cannot be read. */
int wasp_hs_maps_library(pid_t pid, const char *lib);

/* Whether the process catches SIGQUIT (and does not ignore it), from
 * /proc/P/status: a JVM does once started, unless run with -Xrs. Returns 1,
 * 0, or -1 when the process is gone. */
int wasp_hs_catches_sigquit(pid_t pid);

/* The request bytes for cmd and up to three arguments (NULL or missing ones
 * are sent empty). Returns the length, or -1 with err set when cmd or an
 * argument exceeds the protocol's limits or buf is too small. */
long wasp_hs_build_request(const char *cmd, const char *const *args, int nargs, char *buf,
                           size_t buflen, char *err, size_t errlen);

/* Split a reply: the status line (an integer) and the output after it.
 * Returns 0, or -1 when the reply is empty or its first line is no integer. */
int wasp_hs_parse_status(const char *reply, size_t len, int *status, const char **output);

/* The Agent_OnAttach return code in a load command's output: "0\n" (JDK 17)
 * or "return code: 0\n" (JDK 21+). Returns 0, or -1 when the output is
 * something else (a message from the JVM). */
int wasp_hs_parse_load_output(const char *output, int *agent_rc);

/* The socket of t's attach listener, without starting it:
 * /proc/P/root/tmp/.java_pid<ns_pid>, or /tmp/.java_pid<ns_pid> when the
 * former cannot be reached. */
void wasp_hs_socket_path(const wasp_hs_target *t, char *out, size_t outlen);

/* Make sure t's attach listener runs: if its socket is absent, create the
 * .attach_pid file, send SIGQUIT (only if the process catches it), wait up
 * to timeout_ms for the socket, remove the file. Writes the socket's path to
 * out. Returns 0, or -1 with err set. */
int wasp_hs_start_listener(const wasp_hs_target *t, int timeout_ms, char *out, size_t outlen,
                           char *err, size_t errlen);

/* Connect to the socket at path (refusing one not made by process
 * expect_pid when that is > 0, or one others may use), send cmd with its
 * arguments, and read the whole reply into *reply (malloc'ed,
 * NUL-terminated, *len bytes). Returns 0, or -1 with err set. */
int wasp_hs_execute(const char *path, pid_t expect_pid, const char *cmd, const char *const *args,
                    int nargs, char **reply, size_t *len, char *err, size_t errlen);

/* What the JVM answered to load. */
typedef struct wasp_hs_load_result {
    int status;    /* attach-level status (first line) */
    int have_rc;   /* the output held an Agent_OnAttach return code */
    int agent_rc;  /* that code */
    char said[1024]; /* the output, lines joined with spaces, for messages */
} wasp_hs_load_result;

/* Interpret a load reply. Returns 0 when the agent was loaded and returned 0,
 * or -1 with err saying what went wrong and what the JVM said. */
int wasp_hs_load_verdict(const char *reply, size_t len, wasp_hs_load_result *res, char *err,
                         size_t errlen);

/* A pidfd for process pid (-1 when the kernel has none), for wasp_hs_gone. */
int wasp_hs_pidfd(pid_t pid);

/* Whether t's process is gone, waiting up to wait_ms for it to go: through
 * pidfd when it is >= 0, else by its pid and start time. 1 or 0. */
int wasp_hs_gone(const wasp_hs_target *t, int pidfd, int wait_ms);

/* wasp_hs_load_agent's return when the JVM died while it talked to it. */
enum { WASP_HS_DIED = -2 };
/* How long a connection closed without an answer waits for the JVM to be
 * gone before taking it for alive: a dying process closes its files an
 * instant before it exits. */
enum { WASP_HS_DEATH_WAIT_MS = 2000 };

/* The whole thing: start t's listener (waiting up to timeout_ms), then
 * "load <agent_abs> true <options>". Returns 0 when Agent_OnAttach returned
 * 0; WASP_HS_DIED when the JVM died meanwhile (the connection failed or
 * closed unanswered and the process is gone: the caller looks for its
 * fatal-error report, cli/attach/jvm_death.h); or -1 with err set (res, when not
 * NULL, says what the JVM answered; an unanswered connection to a JVM that
 * lives says whether its user and group differ from ours, which HotSpot
 * refuses silently). */
int wasp_hs_load_agent(const wasp_hs_target *t, const char *agent_abs, const char *options,
                       int timeout_ms, wasp_hs_load_result *res, char *err, size_t errlen);

#endif
