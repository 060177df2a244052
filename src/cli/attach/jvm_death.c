/*
 * Finding and reading a dead JVM's fatal-error report (see jvm_death.h).
 */
#include "cli/attach/jvm_death.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* pattern with HotSpot's %p (the pid) and %% expanded. */
static void expand_pid(const char *pattern, int pid, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = pattern; *c && n + 1 < len; c++) {
        if (c[0] == '%' && (c[1] == 'p' || c[1] == '%')) {
            int w = c[1] == 'p' ? snprintf(out + n, len - n, "%d", pid)
                                : snprintf(out + n, len - n, "%%");
            n += w > 0 && (size_t)w < len - n ? (size_t)w : 0;
            c++;
        } else {
            out[n++] = *c;
        }
    }
    out[n] = 0;
}

static const char error_file_opt[] = "-XX:ErrorFile=";

/* The -XX:ErrorFile value among args, the last one winning, into *found. */
static void scan_args(char *const *args, const char **found)
{
    for (char *const *a = args; a && *a; a++)
        if (!strncmp(*a, error_file_opt, sizeof error_file_opt - 1))
            *found = *a + sizeof error_file_opt - 1;
}

/* The same in an options variable's value (words split at white space);
 * the value is copied into buf, which *found may then point into. */
static void scan_var(char *const *env, const char *name, char *buf, size_t buflen,
                     const char **found)
{
    size_t nlen = strlen(name);
    for (char *const *e = env; e && *e; e++) {
        if (strncmp(*e, name, nlen) || (*e)[nlen] != '=')
            continue;
        snprintf(buf, buflen, "%s", *e + nlen + 1);
        for (char *w = strtok(buf, " \t\n"); w; w = strtok(NULL, " \t\n"))
            if (!strncmp(w, error_file_opt, sizeof error_file_opt - 1))
                *found = w + sizeof error_file_opt - 1;
    }
}

static void add(wasp_jvm_death *d, const char *cwd, const char *name)
{
    if (d->n >= WASP_JVM_DEATH_CANDIDATES)
        return;
    char *out = d->file[d->n++];
    if (name[0] != '/' && cwd)
        snprintf(out, WASP_JVM_DEATH_PATH, "%s/%s", cwd, name);
    else
        snprintf(out, WASP_JVM_DEATH_PATH, "%s", name);
}

void wasp_jvm_death_from(wasp_jvm_death *d, int file_pid, const char *cwd, char *const *args,
                         char *const *env, time_t since)
{
    memset(d, 0, sizeof *d);
    d->since = since;
    /* HotSpot reads JAVA_TOOL_OPTIONS, then the command line (with the
     * launcher's JDK_JAVA_OPTIONS first), then _JAVA_OPTIONS: the last wins. */
    static char tool[8192], jdk[8192], under[8192];
    const char *error_file = NULL;
    scan_var(env, "JAVA_TOOL_OPTIONS", tool, sizeof tool, &error_file);
    scan_var(env, "JDK_JAVA_OPTIONS", jdk, sizeof jdk, &error_file);
    scan_args(args, &error_file);
    scan_var(env, "_JAVA_OPTIONS", under, sizeof under, &error_file);
    char name[WASP_JVM_DEATH_PATH];
    if (error_file && *error_file) {
        expand_pid(error_file, file_pid, name, sizeof name);
        add(d, cwd, name);
    }
    snprintf(name, sizeof name, "hs_err_pid%d.log", file_pid);
    add(d, cwd, name);
    snprintf(name, sizeof name, "/tmp/hs_err_pid%d.log", file_pid);
    add(d, NULL, name);
}

/* A NUL-separated /proc file as a NULL-terminated array (one allocation). */
static char **read_nul_list(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        ssize_t r = read(fd, buf + len, cap - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len + 1 >= cap) {
            char *nb = cap < (1u << 24) ? realloc(buf, cap * 2) : NULL;
            if (!nb)
                break; /* keep what fits */
            buf = nb;
            cap *= 2;
        }
    }
    close(fd);
    if (!buf)
        return NULL;
    buf[len] = '\0';
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\0';
    /* The array, then the strings, in one block that one free releases. */
    char **list = malloc((n + 2) * sizeof *list + len + 1);
    if (!list) {
        free(buf);
        return NULL;
    }
    char *text = (char *)(list + n + 2);
    memcpy(text, buf, len + 1);
    free(buf);
    size_t k = 0;
    for (size_t i = 0; i < len; i += strlen(text + i) + 1)
        list[k++] = text + i;
    list[k] = NULL;
    return list;
}

int wasp_jvm_death_prepare(wasp_jvm_death *d, pid_t pid, pid_t ns_pid, time_t since)
{
    char path[64], cwd[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
    ssize_t n = readlink(path, cwd, sizeof cwd - 1);
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    char **args = read_nul_list(path);
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    char **env = read_nul_list(path);
    if (n > 0)
        cwd[n] = '\0';
    wasp_jvm_death_from(d, (int)ns_pid, n > 0 ? cwd : NULL, args && args[0] ? args + 1 : NULL,
                        env, since);
    int known = n > 0 && args;
    free(args);
    free(env);
    if (known)
        return 0;
    /* Without the working directory, relative candidates would be ours: keep
     * only the temporary directory's. */
    snprintf(d->file[0], sizeof d->file[0], "%s", d->file[d->n - 1]);
    d->n = 1;
    return -1;
}

int wasp_jvm_death_report(const wasp_jvm_death *d, char *out, size_t outlen)
{
    for (int i = 0; i < d->n; i++) {
        struct stat st;
        if (stat(d->file[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime >= d->since) {
            snprintf(out, outlen, "%s", d->file[i]);
            return 1;
        }
    }
    return 0;
}

int wasp_jvm_maps_file(pid_t pid, const char *file)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        char *name = strchr(line, '/'); /* addresses, perms, offset, dev, inode hold none */
        found = name && !strncmp(name, file, strlen(file)) &&
                (name[strlen(file)] == '\n' || name[strlen(file)] == ' ');
    }
    free(line);
    fclose(f);
    return found;
}

void wasp_jvm_death_candidates(const wasp_jvm_death *d, char *out, size_t outlen)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < d->n && len < outlen; i++) {
        const char *sep = i == 0 ? "" : i == d->n - 1 ? " or " : ", ";
        int w = snprintf(out + len, outlen - len, "%s%s", sep, d->file[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* ------------------------------------------------------------------ */
/* The report's header                                                 */

/* line (up to its end) with "# " and surrounding blanks stripped, and
 * HotSpot's ", pid=..., tid=..." tail dropped, into out. */
static void header_text(const char *line, char *out, size_t n)
{
    while (*line == '#' || *line == ' ')
        line++;
    size_t len = strcspn(line, "\n");
    const char *pid = strstr(line, ", pid=");
    if (pid && (size_t)(pid - line) < len)
        len = (size_t)(pid - line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '.'))
        len--;
    snprintf(out, n, "%.*s", (int)len, line);
}

static int names_agent(const char *line, size_t len, const char *agent_base)
{
    char pat[300];
    snprintf(pat, sizeof pat, "[%s+", agent_base);
    size_t plen = strlen(pat);
    for (size_t i = 0; i + plen <= len; i++)
        if (!memcmp(line + i, pat, plen))
            return 1;
    return 0;
}

int wasp_hs_err_parse(const char *text, const char *agent_base, wasp_hs_err *e)
{
    memset(e, 0, sizeof *e);
    if (!strstr(text, "# A fatal error has been detected") &&
        !strstr(text, "# There is insufficient memory"))
        return -1;
    /* The banner: '#' lines up to the first that is not. */
    int want_frame = 0;
    const char *line = text;
    for (; *line == '#'; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        const char *body = line + strspn(line, "# ");
        size_t len = strcspn(body, "\n");
        if (want_frame) {
            header_text(line, e->frame, sizeof e->frame);
            e->frame_in_agent = names_agent(body, len, agent_base);
            want_frame = 0;
        } else if (!strncmp(body, "Problematic frame:", 18)) {
            want_frame = 1;
        } else if (len == 0 || !strncmp(body, "A fatal error has been detected", 30)) {
            continue;
        } else if (!e->error[0]) {
            header_text(line, e->error, sizeof e->error);
        } else if (!e->detail[0] && !strncmp(line, "#  ", 3) && line[3] != ' ' &&
                   strncmp(body, "JRE version", 11) && strncmp(body, "Java VM", 7)) {
            header_text(line, e->detail, sizeof e->detail);
        }
    }
    e->out_of_memory = strstr(e->detail, "OutOfMemory encountered") != NULL;
    /* The crashing thread's native frames, up to the blank line after them. */
    const char *frames = strstr(line, "\nNative frames:");
    for (const char *l = frames ? strchr(frames + 1, '\n') : NULL; l && l[1] && l[1] != '\n';
         l = strchr(l + 1, '\n')) {
        size_t len = strcspn(l + 1, "\n");
        if (names_agent(l + 1, len, agent_base))
            e->agent_on_stack = 1;
    }
    return 0;
}

void wasp_hs_err_describe(const char *path, const wasp_hs_err *e, char *out, size_t outlen)
{
    if (!e) {
        snprintf(out, outlen, "its report is %.600s", path);
    } else if (e->frame_in_agent) {
        snprintf(out, outlen,
                 "its report is %.600s; its problematic frame is in wasp's agent (%.200s): a bug "
                 "in wasp — please report it with that file",
                 path, e->frame);
    } else if (e->frame[0]) {
        snprintf(out, outlen, "its report is %.600s; HotSpot reported %.200s in %.200s, not in "
                              "wasp's agent%s",
                 path, e->error[0] ? e->error : "a crash", e->frame,
                 e->agent_on_stack ? " (though wasp's agent is on the crashing thread's stack: "
                                     "please report it with that file)"
                                   : "");
    } else if (e->out_of_memory) {
        const char *what = strstr(e->detail, "encountered: ");
        snprintf(out, outlen,
                 "its report is %.600s; OutOfMemoryError: HotSpot aborted "
                 "(CrashOnOutOfMemoryError%s%.200s); it names no problematic frame",
                 path, what ? ", " : "", what ? what + 13 : "");
    } else {
        snprintf(out, outlen, "its report is %.600s; HotSpot reported %.200s%s%.200s; it names "
                              "no problematic frame",
                 path, e->error[0] ? e->error : "a fatal error", e->detail[0] ? ": " : "",
                 e->detail);
    }
}

void wasp_hs_err_explain(const char *path, const char *agent_base, char *out, size_t outlen)
{
    /* The header and the crashing thread's frames come first: 64 KiB holds them. */
    char *text = malloc(1 << 16);
    FILE *f = text ? fopen(path, "re") : NULL;
    wasp_hs_err e;
    int ok = 0;
    if (f) {
        size_t n = fread(text, 1, (1 << 16) - 1, f);
        text[n] = '\0';
        ok = wasp_hs_err_parse(text, agent_base, &e) == 0;
        fclose(f);
    }
    free(text);
    wasp_hs_err_describe(path, ok ? &e : NULL, out, outlen);
}
