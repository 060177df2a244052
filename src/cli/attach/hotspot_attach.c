/*
 * HotSpot dynamic attach, client side (see hotspot_attach.h for the
 * protocol). Everything that touches the target process is here; the
 * `wasp attach` / `wasp detach` commands are in attach.c.
 */
#include "cli/attach/hotspot_attach.h"
#include "common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REPLY_MAX (1u << 20) /* a load reply is a line; this is plenty */

/* ------------------------------------------------------------------ */
/* /proc                                                               */

/* Read a whole (small, /proc) file into buf, NUL-terminated. Returns the
 * length, or -1 with errno set. */
static ssize_t read_text(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    while (len + 1 < n) {
        ssize_t r = read(fd, buf + len, n - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

/* The value of "Key:" in a /proc/P/status text, or NULL. */
static const char *status_field(const char *status, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = status; line && *line;) {
        if (!strncmp(line, key, klen) && line[klen] == ':') {
            const char *v = line + klen + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            return v;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return NULL;
}

/* Field 22 of /proc/P/stat (start time in clock ticks since boot), or 0. */
static unsigned long long start_time_of(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_text(path, buf, sizeof buf) < 0)
        return 0;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
    if (!p)
        return 0;
    p++;
    /* Fields 3.. follow; field 22 is the 20th of them. */
    for (int field = 3; field < 22; field++) {
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    return strtoull(p, NULL, 10);
}

static const char *user_name(uid_t uid, char *buf, size_t n)
{
    struct passwd *pw = getpwuid(uid);
    if (pw && pw->pw_name)
        snprintf(buf, n, "%s", pw->pw_name);
    else
        snprintf(buf, n, "%u", (unsigned)uid);
    return buf;
}

/* Whether a mapped file's base name (base, which runs to the line's end)
 * is lib: exactly, or with " (deleted)" after it (a rebuilt library). */
static bool is_library(const char *base, const char *lib)
{
    size_t n = strlen(lib);
    return n && !strncmp(base, lib, n) && (base[n] == '\0' || base[n] == ' ');
}

/* What the maps say about the VM: 1 HotSpot (libjvm.so), 2 OpenJ9
 * (libj9vm*.so: it maps a libjvm.so too, but speaks another protocol), 0
 * neither, -1 unreadable; *found: whether it maps a library of base name
 * lib (NULL: none asked). */
static int vm_kind(pid_t pid, const char *lib, bool *found)
{
    bool seen = false;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int jvm = 0, j9 = 0;
    while (getline(&line, &cap, f) > 0) {
        char *file = strchr(line, '/'); /* addresses, perms, offset, dev, inode hold none */
        if (!file)
            continue;
        file[strcspn(file, "\n")] = '\0';
        char *base = strrchr(file, '/') + 1;
        if (is_library(base, "libjvm.so"))
            jvm = 1;
        else if (!strncmp(base, "libj9vm", 7))
            j9 = 1;
        else if (lib && is_library(base, lib))
            seen = true;
    }
    free(line);
    int err = ferror(f);
    fclose(f);
    if (err)
        return -1;
    if (found)
        *found = seen;
    return j9 ? 2 : jvm;
}

int wasp_hs_maps_library(pid_t pid, const char *lib)
{
    bool found;
    return vm_kind(pid, lib, &found) < 0 ? -1 : found;
}

int wasp_hs_inspect(pid_t pid, wasp_hs_target *t, char *err, size_t errlen)
{
    char path[64], status[16384];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->ns_pid = pid;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (pid <= 0 || read_text(path, status, sizeof status) < 0) {
        if (pid <= 0 || errno == ENOENT || errno == ESRCH) {
            snprintf(err, errlen, "no process %d", (int)pid);
            return WASP_HS_NO_PROCESS;
        }
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return WASP_HS_FAILED;
    }

    const char *v = status_field(status, "Name");
    if (v)
        snprintf(t->name, sizeof t->name, "%.*s", (int)strcspn(v, "\n"), v);
    /* A process that has exited stays in /proc until its parent reaps it. */
    v = status_field(status, "State");
    if (v && (*v == 'Z' || *v == 'X')) {
        snprintf(err, errlen, "no process %d (it has exited; its parent has not reaped it yet)",
                 (int)pid);
        return WASP_HS_NO_PROCESS;
    }
    v = status_field(status, "Tgid");
    if (v && atoi(v) != (int)pid) {
        snprintf(err, errlen, "%d is a thread of process %d; give the process id", (int)pid,
                 atoi(v));
        return WASP_HS_NOT_JVM;
    }
    unsigned long ruid, euid, rgid, egid;
    const char *u = status_field(status, "Uid"), *g = status_field(status, "Gid");
    if (!u || !g || sscanf(u, "%lu %lu", &ruid, &euid) != 2 ||
        sscanf(g, "%lu %lu", &rgid, &egid) != 2) {
        snprintf(err, errlen, "cannot read the owner of process %d from %s", (int)pid, path);
        return WASP_HS_FAILED;
    }
    t->uid = (uid_t)euid;
    t->gid = (gid_t)egid;
    /* NSpid: the pid in each namespace from ours inward; the JVM names its
     * files after the last one. Old kernels lack the line: same namespace. */
    v = status_field(status, "NSpid");
    if (v) {
        const char *end = v + strcspn(v, "\n");
        const char *last = v;
        for (const char *p = v; p < end; p++)
            if ((*p == ' ' || *p == '\t') && p + 1 < end && p[1] != ' ' && p[1] != '\t')
                last = p + 1;
        long n = strtol(last, NULL, 10);
        if (n > 0)
            t->ns_pid = (pid_t)n;
    }

    uid_t me = geteuid();
    if (me != 0 && t->uid != me) {
        char who[64];
        snprintf(err, errlen,
                 "process %d belongs to user %s; attach as that user (HotSpot accepts attach "
                 "only from its own user)",
                 (int)pid, user_name(t->uid, who, sizeof who));
        return WASP_HS_OTHER_USER;
    }

    int kind = vm_kind(pid, NULL, NULL);
    if (kind < 0) {
        int e = errno;
        if (e == ENOENT || e == ESRCH) {
            snprintf(err, errlen, "no process %d", (int)pid);
            return WASP_HS_NO_PROCESS;
        }
        snprintf(err, errlen, "cannot read /proc/%d/maps: %s", (int)pid, strerror(e));
        return WASP_HS_FAILED;
    }
    if (kind == 2) {
        snprintf(err, errlen,
                 "process %d (%s) is an OpenJ9 JVM, not HotSpot: wasp attach speaks HotSpot's "
                 "attach protocol only (use wasp run)",
                 (int)pid, t->name);
        return WASP_HS_NOT_JVM;
    }
    if (kind == 0) {
        snprintf(err, errlen, "process %d (%s) is not a HotSpot JVM", (int)pid, t->name);
        return WASP_HS_NOT_JVM;
    }
    t->start_time = start_time_of(pid);
    return WASP_HS_OK;
}

int wasp_hs_catches_sigquit(pid_t pid)
{
    char path[64], status[16384];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (read_text(path, status, sizeof status) < 0)
        return -1;
    const char *ign = status_field(status, "SigIgn"), *cgt = status_field(status, "SigCgt");
    if (!ign || !cgt)
        return 0;
    unsigned long long bit = 1ull << (SIGQUIT - 1);
    return (strtoull(cgt, NULL, 16) & bit) && !(strtoull(ign, NULL, 16) & bit);
}

/* ------------------------------------------------------------------ */
/* Requests and replies (pure)                                         */

long wasp_hs_build_request(const char *cmd, const char *const *args, int nargs, char *buf,
                           size_t buflen, char *err, size_t errlen)
{
    if (!cmd || !*cmd || strlen(cmd) > WASP_HS_NAME_MAX) {
        snprintf(err, errlen, "bad attach command '%.40s': 1 to %d bytes", cmd ? cmd : "",
                 WASP_HS_NAME_MAX);
        return -1;
    }
    if (nargs < 0 || nargs > WASP_HS_NARGS) {
        snprintf(err, errlen, "the attach protocol carries at most %d arguments", WASP_HS_NARGS);
        return -1;
    }
    const char *parts[2 + WASP_HS_NARGS] = {"1", cmd, "", "", ""};
    for (int i = 0; i < nargs; i++) {
        const char *a = args[i] ? args[i] : "";
        if (strlen(a) > WASP_HS_ARG_MAX) {
            snprintf(err, errlen,
                     "argument %d of '%s' is %zu bytes, more than the %d the attach protocol "
                     "carries",
                     i + 1, cmd, strlen(a), WASP_HS_ARG_MAX);
            return -1;
        }
        parts[2 + i] = a;
    }
    size_t len = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        size_t n = strlen(parts[i]) + 1; /* with its NUL */
        if (len + n > buflen) {
            snprintf(err, errlen, "attach request too long");
            return -1;
        }
        memcpy(buf + len, parts[i], n);
        len += n;
    }
    return (long)len;
}

/* An optionally signed decimal int filling [s, end). */
static int parse_int(const char *s, const char *end, int *out)
{
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    if (p >= end)
        return -1;
    long long v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
        if (v > INT_MAX)
            return -1;
    }
    *out = (int)(neg ? -v : v);
    return 0;
}

int wasp_hs_parse_status(const char *reply, size_t len, int *status, const char **output)
{
    if (!reply || len == 0)
        return -1;
    const char *nl = memchr(reply, '\n', len);
    const char *end = nl ? nl : reply + len;
    if (parse_int(reply, end, status) < 0)
        return -1;
    *output = nl ? nl + 1 : reply + len;
    return 0;
}

int wasp_hs_parse_load_output(const char *output, int *agent_rc)
{
    /* The last non-blank line holds the code. */
    const char *end = output + strlen(output);
    while (end > output && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    const char *line = end;
    while (line > output && line[-1] != '\n')
        line--;
    static const char prefix[] = "return code: ";
    if ((size_t)(end - line) > sizeof prefix - 1 && !strncmp(line, prefix, sizeof prefix - 1))
        line += sizeof prefix - 1;
    return parse_int(line, end, agent_rc);
}

/* output with its lines joined by spaces (as the JDK's client shows them),
 * into buf. */
static void one_line(const char *output, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const char *p = output; *p && len + 1 < n;) {
        size_t l = strcspn(p, "\r\n");
        if (l) {
            int w = snprintf(buf + len, n - len, "%s%.*s", len ? " " : "", (int)l, p);
            if (w < 0)
                break;
            len += (size_t)w;
            if (len >= n) {
                len = n - 1;
                break;
            }
        }
        p += l;
        while (*p == '\r' || *p == '\n')
            p++;
    }
}

int wasp_hs_load_verdict(const char *reply, size_t len, wasp_hs_load_result *res, char *err,
                         size_t errlen)
{
    const char *output;
    memset(res, 0, sizeof *res);
    if (len == 0) {
        /* wasp_hs_load_agent says why, once it knows whether the JVM lives. */
        snprintf(err, errlen, "the JVM closed the connection without answering");
        return -1;
    }
    if (wasp_hs_parse_status(reply, len, &res->status, &output) < 0) {
        one_line(reply, res->said, sizeof res->said);
        snprintf(err, errlen, "the JVM's answer is not the attach protocol's: '%.300s'",
                 res->said);
        return -1;
    }
    one_line(output, res->said, sizeof res->said);
    if (res->status == WASP_HS_STATUS_BADVERSION) {
        snprintf(err, errlen,
                 "the JVM does not speak version 1 of the attach protocol (status %d)",
                 res->status);
        return -1;
    }
    if (res->status != 0) {
        snprintf(err, errlen, "the JVM refused to load the agent (status %d): %.600s",
                 res->status, res->said[0] ? res->said : "it gave no reason");
        return -1;
    }
    if (wasp_hs_parse_load_output(output, &res->agent_rc) < 0) {
        snprintf(err, errlen, "the JVM could not load the agent: %.600s",
                 res->said[0] ? res->said : "it gave no reason");
        return -1;
    }
    res->have_rc = 1;
    if (res->agent_rc != 0) {
        snprintf(err, errlen,
                 "the agent failed: Agent_OnAttach returned %d (the JVM said '%.300s'); the "
                 "agent's log says why",
                 res->agent_rc, res->said);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Starting the listener                                               */

/* /proc/P/root/tmp when we can reach it (it is the JVM's /tmp, in a
 * container too), else our own /tmp. */
static void tmp_dir(const wasp_hs_target *t, char *out, size_t n)
{
    snprintf(out, n, "/proc/%d/root/tmp", (int)t->pid);
    if (access(out, X_OK) != 0)
        snprintf(out, n, "/tmp");
}

void wasp_hs_socket_path(const wasp_hs_target *t, char *out, size_t outlen)
{
    char dir[64];
    tmp_dir(t, dir, sizeof dir);
    snprintf(out, outlen, "%s/.java_pid%d", dir, (int)t->ns_pid);
}

static int is_socket(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* SIGQUIT through the pidfd when there is one: it names the process we
 * inspected even if its pid has been reused since. */
static int send_quit(pid_t pid, int pidfd)
{
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0)
        return (int)syscall(SYS_pidfd_send_signal, pidfd, SIGQUIT, NULL, 0);
#endif
    (void)pidfd;
    return kill(pid, SIGQUIT);
}

static int process_gone(const wasp_hs_target *t, int pidfd)
{
    return wasp_hs_gone(t, pidfd, 0);
}

int wasp_hs_pidfd(pid_t pid)
{
    return open_pidfd(pid);
}

int wasp_hs_gone(const wasp_hs_target *t, int pidfd, int wait_ms)
{
    if (pidfd >= 0) {
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        long long until = wasp_mono_ms() + wait_ms;
        for (;;) {
            int r = poll(&p, 1, wait_ms);
            if (r > 0)
                return 1; /* readable once it has exited */
            if (r == 0 || errno != EINTR)
                return 0;
            wait_ms = (int)(until - wasp_mono_ms());
            if (wait_ms < 0)
                wait_ms = 0;
        }
    }
    long long until = wasp_mono_ms() + wait_ms;
    for (;;) {
        if ((kill(t->pid, 0) < 0 && errno == ESRCH) ||
            (t->start_time && start_time_of(t->pid) != t->start_time))
            return 1;
        if (wasp_mono_ms() >= until)
            return 0;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Send SIGQUIT after checking (again, just before) that it is the process
 * inspected and that it catches the signal. Returns 0 or -1 with err. */
static int checked_quit(const wasp_hs_target *t, int pidfd, char *err, size_t errlen)
{
    if (process_gone(t, pidfd) || (t->start_time && start_time_of(t->pid) != t->start_time)) {
        snprintf(err, errlen, "process %d exited", (int)t->pid);
        return -1;
    }
    int c = wasp_hs_catches_sigquit(t->pid);
    if (c < 0) {
        snprintf(err, errlen, "process %d exited", (int)t->pid);
        return -1;
    }
    if (!c) {
        snprintf(err, errlen,
                 "process %d (%s) does not catch SIGQUIT (still starting, or run with -Xrs), "
                 "so it cannot be asked to open its attach socket; no signal was sent",
                 (int)t->pid, t->name);
        return -1;
    }
    if (send_quit(t->pid, pidfd) < 0) {
        snprintf(err, errlen, "cannot signal process %d: %s", (int)t->pid,
                 errno == ESRCH ? "it exited" : strerror(errno));
        return -1;
    }
    return 0;
}

/* Create .attach_pid<ns_pid> in the JVM's working directory, else its /tmp.
 * Leaves *dirfd open on the directory (for removing the file) and *created
 * set when the file is ours to remove. Returns 0 or -1 with err. */
static int create_attach_file(const wasp_hs_target *t, int *dirfd, int *created, char *name,
                              size_t namelen, char *err, size_t errlen)
{
    char dirs[2][64];
    snprintf(dirs[0], sizeof dirs[0], "/proc/%d/cwd", (int)t->pid);
    tmp_dir(t, dirs[1], sizeof dirs[1]);
    snprintf(name, namelen, ".attach_pid%d", (int)t->ns_pid);
    int first_errno = 0;
    for (int i = 0; i < 2; i++) {
        int d = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (d >= 0) {
            int fd = openat(d, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd >= 0 || errno == EEXIST) { /* EEXIST: another client is attaching too */
                *created = fd >= 0;
                if (fd >= 0)
                    close(fd);
                *dirfd = d;
                return 0;
            }
            int e = errno;
            close(d);
            errno = e;
        }
        if (!first_errno)
            first_errno = errno;
    }
    snprintf(err, errlen, "cannot create %s/%s: %s", dirs[0], name, strerror(first_errno));
    return -1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

int wasp_hs_start_listener(const wasp_hs_target *t, int timeout_ms, char *out, size_t outlen,
                           char *err, size_t errlen)
{
    wasp_hs_socket_path(t, out, outlen);
    if (is_socket(out))
        return 0;

    int pidfd = open_pidfd(t->pid); /* before the checks in checked_quit */
    if (pidfd < 0 && errno == ESRCH) {
        snprintf(err, errlen, "process %d exited", (int)t->pid);
        return -1;
    }
    /* Check before creating the file, so a refusal leaves nothing behind. */
    int c = wasp_hs_catches_sigquit(t->pid);
    if (c == 0) {
        snprintf(err, errlen,
                 "process %d (%s) does not catch SIGQUIT (still starting, or run with -Xrs), "
                 "so it cannot be asked to open its attach socket; no signal was sent",
                 (int)t->pid, t->name);
        if (pidfd >= 0)
            close(pidfd);
        return -1;
    }

    int dirfd = -1, created = 0, rc = -1;
    char name[64];
    if (create_attach_file(t, &dirfd, &created, name, sizeof name, err, errlen) < 0) {
        if (pidfd >= 0)
            close(pidfd);
        return -1;
    }
    if (checked_quit(t, pidfd, err, errlen) < 0)
        goto out;

    long long start = wasp_mono_ms();
    long delay = 10;
    int resent = 0;
    for (;;) {
        sleep_ms(delay);
        if (delay < 100)
            delay *= 2;
        if (is_socket(out)) {
            rc = 0;
            break;
        }
        if (process_gone(t, pidfd)) {
            snprintf(err, errlen, "process %d exited", (int)t->pid);
            break;
        }
        long long spent = wasp_mono_ms() - start;
        if (spent >= timeout_ms) {
            if (timeout_ms % 1000 == 0)
                snprintf(err, errlen,
                         "the JVM did not open its attach socket within %d s (started with "
                         "-XX:+DisableAttachMechanism?)",
                         timeout_ms / 1000);
            else
                snprintf(err, errlen,
                         "the JVM did not open its attach socket within %d ms (started with "
                         "-XX:+DisableAttachMechanism?)",
                         timeout_ms);
            break;
        }
        /* Halfway, ask once more (as the JDK's own client does): the first
         * signal may have come while the JVM was busy starting up. */
        if (!resent && spent >= timeout_ms / 2) {
            resent = 1;
            if (checked_quit(t, pidfd, err, errlen) < 0)
                break;
        }
    }
out:
    if (created)
        unlinkat(dirfd, name, 0);
    close(dirfd);
    if (pidfd >= 0)
        close(pidfd);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Talking                                                             */

static int execute_raw(const char *path, pid_t expect_pid, const char *req, size_t reqlen,
                       char **reply, size_t *replylen, char *err, size_t errlen)
{
    *reply = NULL;
    *replylen = 0;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        snprintf(err, errlen, "the attach socket path %s is too long", path);
        return -1;
    }
    strcpy(addr.sun_path, path);

    /* As the JDK's client does: the socket must be the JVM user's (ours)
     * and closed to others, or it is not the JVM's. */
    struct stat st;
    if (stat(path, &st) < 0) {
        snprintf(err, errlen, "the attach socket %s: %s", path, strerror(errno));
        return -1;
    }
    if (geteuid() != 0 && st.st_uid != geteuid()) {
        snprintf(err, errlen, "the attach socket %s belongs to uid %u, not to you; refusing it",
                 path, (unsigned)st.st_uid);
        return -1;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(err, errlen, "the attach socket %s is open to others (mode %03o); refusing it",
                 path, (unsigned)(st.st_mode & 0777));
        return -1;
    }

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    int r;
    do
        r = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot connect to the attach socket %s: %s%s", path, strerror(e),
                 e == ECONNREFUSED ? " (left behind by a JVM that exited?)" : "");
        close(fd);
        return -1;
    }
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (expect_pid > 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 &&
        cred.pid != 0 && cred.pid != expect_pid) {
        snprintf(err, errlen, "the attach socket %s belongs to process %d, not %d", path,
                 (int)cred.pid, (int)expect_pid);
        close(fd);
        return -1;
    }

    for (size_t off = 0; off < reqlen;) {
        ssize_t w = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (errno == EPIPE || errno == ECONNRESET)
                break; /* closed on us: reading tells what happened */
            snprintf(err, errlen, "cannot send to the JVM: %s", strerror(errno));
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }

    size_t cap = 256, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return -1;
    }
    for (;;) {
        if (len + 1 >= cap) {
            if (cap >= REPLY_MAX)
                break; /* keep what we have */
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (errno == ECONNRESET)
                break;
            snprintf(err, errlen, "cannot read the JVM's answer: %s", strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    *reply = buf;
    *replylen = len;
    return 0;
}

int wasp_hs_execute(const char *path, pid_t expect_pid, const char *cmd, const char *const *args,
                    int nargs, char **reply, size_t *len, char *err, size_t errlen)
{
    char req[16 + WASP_HS_NAME_MAX + WASP_HS_NARGS * (WASP_HS_ARG_MAX + 1)];
    *reply = NULL;
    *len = 0;
    long n = wasp_hs_build_request(cmd, args, nargs, req, sizeof req, err, errlen);
    if (n < 0)
        return -1;
    return execute_raw(path, expect_pid, req, (size_t)n, reply, len, err, errlen);
}

int wasp_hs_load_agent(const wasp_hs_target *t, const char *agent_abs, const char *options,
                       int timeout_ms, wasp_hs_load_result *res, char *err, size_t errlen)
{
    wasp_hs_load_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);

    /* Build first: a request the protocol cannot carry must not cost the
     * JVM a signal. */
    char req[16 + WASP_HS_NAME_MAX + WASP_HS_NARGS * (WASP_HS_ARG_MAX + 1)];
    const char *args[WASP_HS_NARGS] = {agent_abs, "true", options};
    long n = wasp_hs_build_request("load", args, WASP_HS_NARGS, req, sizeof req, err, errlen);
    if (n < 0)
        return -1;

    /* Opened first, so that a pid reused after the JVM died is not taken for it. */
    int pidfd = open_pidfd(t->pid);
    char sock[PATH_MAX];
    int rc = wasp_hs_start_listener(t, timeout_ms, sock, sizeof sock, err, errlen);
    char *reply = NULL;
    size_t len = 0;
    int talked = rc == 0; /* the listener runs: a request went, or was tried */
    if (rc == 0)
        rc = execute_raw(sock, t->pid, req, (size_t)n, &reply, &len, err, errlen);
    int reply_seen = rc == 0; /* connected, and read to the end: len may be 0 */
    if (rc == 0)
        rc = wasp_hs_load_verdict(reply, len, res, err, errlen);
    free(reply);
    /* A connection that failed or closed without an answer: the JVM may have
     * died (its files, the socket among them, close as it exits, an instant
     * before it is gone). A refusal of its own does not end it. */
    int unanswered = rc < 0 && !res->status && !res->have_rc && !res->said[0];
    if (unanswered && wasp_hs_gone(t, pidfd, talked ? WASP_HS_DEATH_WAIT_MS : 0)) {
        snprintf(err, errlen, "JVM %d died", (int)t->pid);
        rc = WASP_HS_DIED;
    } else if (unanswered && talked && reply_seen) {
        /* HotSpot drops a client whose effective uid and gid are not its own
         * (root excepted) without a word. */
        size_t used = strlen(err);
        if (geteuid() != 0 && (geteuid() != t->uid || getegid() != t->gid))
            snprintf(err + used, errlen - used,
                     " (HotSpot answers only its own user and group, or root: it runs as "
                     "uid %u gid %u, you as uid %u gid %u)",
                     (unsigned)t->uid, (unsigned)t->gid, (unsigned)geteuid(),
                     (unsigned)getegid());
        else
            snprintf(err + used, errlen - used,
                     " (it runs as your user and group, so this is no permission refusal; its "
                     "standard error may say why)");
    }
    if (pidfd >= 0)
        close(pidfd);
    return rc;
}
