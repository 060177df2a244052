/*
 * Per-thread measurement records (see records.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_records_trace/context/pair run in the SIGTRAP handler
 * of the owning thread only. No allocation, no locks: open addressing in tables
 * reserved by wasp_records_init.
 */
#include "watch/records.h"

#include <string.h>
#include <sys/mman.h>

enum {
    TRACE_CAP = 1u << 12,
    CONTEXT_CAP = 1u << 13,
    PAIR_CAP = 1u << 14,
    SITE_CAP = 1u << 14,
    AVG_FRAMES = 48 /* frame arena sized for this average depth */
};

static const char *const counter_names[WASP_C_COUNT] = {
    [WASP_C_SAMPLES] = "samples",
    [WASP_C_SAMPLES_MEMORY] = "samples.memory",
    [WASP_C_SAMPLES_NOMEM] = "samples.no_memory_operand",
    [WASP_C_SAMPLES_UNDECODABLE] = "samples.undecodable",
    [WASP_C_SAMPLES_IGNORED] = "samples.ignored",
    [WASP_C_SAMPLES_SELF] = "samples.in_wasp",
    [WASP_C_ARMED] = "armed",
    [WASP_C_TRAPPED] = "trapped",
    [WASP_C_CLASSIFIED] = "classified",
    [WASP_C_DROP_RESERVOIR] = "dropped.reservoir",
    [WASP_C_DROP_REPLACED] = "dropped.replaced",
    [WASP_C_DROP_GC] = "dropped.gc",
    [WASP_C_DROP_ARM_FAILED] = "dropped.arm_failed",
    [WASP_C_DROP_FIRST_TRAP] = "dropped.first_trap_mismatch",
    [WASP_C_DROP_TRAP_DECODE] = "dropped.trap_decode",
    [WASP_C_DROP_UNREADABLE] = "dropped.unreadable",
    [WASP_C_DROP_ASYNC] = "dropped.async_trap",
    [WASP_C_DROP_TABLE_FULL] = "dropped.table_full",
    [WASP_C_DROP_STORE_CHAIN] = "dropped.store_chain",
    [WASP_C_DROP_EXIT] = "dropped.unfinished",
    [WASP_C_AGCT_FAILED] = "stack.no_java_frames",
    [WASP_C_AGCT_NATIVE] = "stack.no_java_frames.native",
    [WASP_C_AGCT_NO_CLASS_LOAD] = "stack.no_java_frames.no_class_load",
    [WASP_C_AGCT_GC] = "stack.no_java_frames.gc",
    [WASP_C_AGCT_UNKNOWN_NOT_JAVA] = "stack.no_java_frames.unknown_not_java",
    [WASP_C_AGCT_NOT_WALKABLE_NOT_JAVA] = "stack.no_java_frames.not_walkable_not_java",
    [WASP_C_AGCT_UNKNOWN_JAVA] = "stack.no_java_frames.unknown_java",
    [WASP_C_AGCT_NOT_WALKABLE_JAVA] = "stack.no_java_frames.not_walkable_java",
    [WASP_C_AGCT_UNKNOWN_STATE] = "stack.no_java_frames.unknown_state",
    [WASP_C_AGCT_THREAD_EXIT] = "stack.no_java_frames.thread_exit",
    [WASP_C_AGCT_DEOPT] = "stack.no_java_frames.deopt",
    [WASP_C_AGCT_SAFEPOINT] = "stack.no_java_frames.safepoint",
    [WASP_C_AGCT_OTHER] = "stack.no_java_frames.other",
    [WASP_C_AGCT_ANCHOR_PC] = "stack.anchor_pc",
    [WASP_C_STACK_WALKS] = "stack.walks",
    [WASP_C_STACK_WALK_NS] = "stack.walk_ns",
    [WASP_C_STACK_RETRY_NS] = "stack.retry_ns",
    [WASP_C_STACK_NATIVE_FRAMES] = "stack.native_frames",
    [WASP_C_STACK_CALLER_AT] = "stack.caller_at_return",
    [WASP_C_OBJ_SAMPLES] = "objects.samples",
    [WASP_C_OBJ_UNATTRIBUTED] = "objects.unattributed",
    [WASP_C_OBJ_STALE] = "objects.stale",
    [WASP_C_OBJ_MISMATCHED] = "objects.mismatched",
    [WASP_C_OBJ_BY_CLASS] = "objects.by_class",
    [WASP_C_OBJ_OFF_HEAP] = "objects.off_heap",
    [WASP_C_CHAIN_MAPPED] = "chain.mapped",
    [WASP_C_CHAIN_NS] = "chain.ns",
    [WASP_C_CHAIN_WALKED] = "chain.walked",
    [WASP_C_CHAIN_NOT_COMPILED] = "chain.walked.not_compiled",
    [WASP_C_CHAIN_UNVERIFIED] = "chain.walked.unverified",
    [WASP_C_CHAIN_NO_SHAPE] = "chain.walked.no_frame_shape",
    [WASP_C_CHAIN_RSP_UNKNOWN] = "chain.walked.rsp_unknown",
    [WASP_C_CHAIN_BAD_RETURN] = "chain.walked.bad_return",
    [WASP_C_CHAIN_NO_STACK] = "chain.walked.no_stack_bounds",
    [WASP_C_CHAIN_QUADS_FULL] = "chain.quadruples_dropped",
    [WASP_C_WINDOW_ARMED] = "armed.window",
    [WASP_C_WINDOW_DROPPED] = "armed.window.dropped",
    [WASP_C_DROP_BUDGET] = "dropped.budget",
    [WASP_C_DROP_NOT_HEAP] = "dropped.not_heap",
    [WASP_C_DROP_FAULT_CAP] = "dropped.fault_cap",
    [WASP_C_SAMPLER_BACKOFF] = "sampler.backoffs",
    [WASP_C_SAMPLER_PACED_SKIPS] = "sampler.paced_skips",
    [WASP_C_SAMPLER_HANDLER_NS] = "sampler.handler_ns",
    [WASP_C_WATCH_HANDLER_NS] = "watch.handler_ns",
    [WASP_C_STRING_UNDER_WATCH] = "watch.string_samples",
    [WASP_C_DROP_STRING_COST] = "dropped.string_cost",
};

const char *wasp_counter_name(wasp_counter_id id)
{
    return (unsigned)id < WASP_C_COUNT ? counter_names[id] : "?";
}

static void *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void release(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

int wasp_records_init(wasp_records *r, uint32_t max_frames, uint32_t site_tables)
{
    memset(r, 0, sizeof *r);
    r->cap_traces = TRACE_CAP;
    r->cap_contexts = CONTEXT_CAP;
    r->cap_pairs = PAIR_CAP;
    r->cap_sites = SITE_CAP;
    r->cap_frames = TRACE_CAP * AVG_FRAMES;
    if (r->cap_frames < max_frames)
        r->cap_frames = max_frames;
    r->frames = reserve(sizeof(wasp_rframe) * r->cap_frames);
    r->traces = reserve(sizeof(wasp_rtrace) * r->cap_traces);
    r->contexts = reserve(sizeof(wasp_rcontext) * r->cap_contexts);
    r->pairs = reserve(sizeof(wasp_rpair) * r->cap_pairs);
    int ok = r->frames && r->traces && r->contexts && r->pairs;
    for (int id = 0; id < WASP_ANALYSES && ok; id++)
        if (site_tables & (1u << id))
            ok = (r->sites[id] = reserve(sizeof(wasp_rsite) * r->cap_sites)) != NULL;
    if (!ok) {
        wasp_records_free(r);
        return -1;
    }
    return 0;
}

void wasp_records_free(wasp_records *r)
{
    release(r->frames, sizeof(wasp_rframe) * r->cap_frames);
    release(r->traces, sizeof(wasp_rtrace) * r->cap_traces);
    release(r->contexts, sizeof(wasp_rcontext) * r->cap_contexts);
    release(r->pairs, sizeof(wasp_rpair) * r->cap_pairs);
    for (int id = 0; id < WASP_ANALYSES; id++)
        release(r->sites[id], sizeof(wasp_rsite) * r->cap_sites);
    memset(r, 0, sizeof *r);
}

/* Back to zero pages: the memory they held goes back to the kernel. */
static void zero(void *p, size_t bytes)
{
    if (p && madvise(p, bytes, MADV_DONTNEED) != 0)
        memset(p, 0, bytes);
}

void wasp_records_clear(wasp_records *r)
{
    zero(r->frames, sizeof(wasp_rframe) * r->cap_frames);
    zero(r->traces, sizeof(wasp_rtrace) * r->cap_traces);
    zero(r->contexts, sizeof(wasp_rcontext) * r->cap_contexts);
    zero(r->pairs, sizeof(wasp_rpair) * r->cap_pairs);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        zero(r->sites[id], sizeof(wasp_rsite) * r->cap_sites);
        r->nsites[id] = 0;
    }
    r->nframes = r->ntraces = r->ncontexts = r->npairs = 0;
    memset(r->totals, 0, sizeof r->totals);
    memset(r->counters, 0, sizeof r->counters);
    memset(r->part_counters, 0, sizeof r->part_counters);
}

static double share(uint32_t n, uint32_t usable)
{
    return usable ? (double)n / (double)usable : 0.0;
}

double wasp_records_fill(const wasp_records *r)
{
    /* The hash tables stop an eighth short of their capacity (see below). */
    uint32_t n[4] = {__atomic_load_n(&r->ntraces, __ATOMIC_RELAXED),
                     __atomic_load_n(&r->nframes, __ATOMIC_RELAXED),
                     __atomic_load_n(&r->ncontexts, __ATOMIC_RELAXED),
                     __atomic_load_n(&r->npairs, __ATOMIC_RELAXED)};
    double f[4] = {share(n[0], r->cap_traces - (r->cap_traces >> 3)), share(n[1], r->cap_frames),
                   share(n[2], r->cap_contexts - (r->cap_contexts >> 3)),
                   share(n[3], r->cap_pairs - (r->cap_pairs >> 3))};
    double most = 0;
    for (int i = 0; i < 4; i++)
        most = f[i] > most ? f[i] : most;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        double s = r->sites[id] ? share(__atomic_load_n(&r->nsites[id], __ATOMIC_RELAXED),
                                        r->cap_sites - (r->cap_sites >> 3))
                                : 0.0;
        most = s > most ? s : most;
    }
    return most;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t trace_hash(const wasp_rframe *f, int n, int status)
{
    uint64_t h = mix(0x12345, (uint64_t)(uint32_t)status);
    for (int i = 0; i < n; i++)
        h = mix(mix(h, (uint64_t)(uintptr_t)f[i].method), (uint64_t)(uint32_t)f[i].bci);
    return h | 1; /* 0 marks an empty slot */
}

uint32_t wasp_records_trace(wasp_records *r, const wasp_rframe *frames, int nframes)
{
    int status = nframes > 0 ? 0 : nframes;
    if (nframes < 0)
        nframes = 0;
    uint64_t h = trace_hash(frames, nframes, status);
    uint32_t mask = r->cap_traces - 1;
    for (uint32_t i = (uint32_t)h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
        wasp_rtrace *t = &r->traces[i];
        if (t->hash == 0) {
            /* Keep a little room so lookups always end at an empty slot. */
            if (r->ntraces + 1 >= r->cap_traces - (r->cap_traces >> 3) ||
                r->nframes + (uint32_t)nframes > r->cap_frames) {
                r->counters[WASP_C_DROP_TABLE_FULL]++;
                return 0;
            }
            memcpy(&r->frames[r->nframes], frames, sizeof(wasp_rframe) * (size_t)nframes);
            t->first = r->nframes;
            t->nframes = (uint16_t)nframes;
            t->status = (int16_t)status;
            t->hash = h;
            r->nframes += (uint32_t)nframes;
            r->ntraces++;
            return i + 1;
        }
        if (t->hash == h && t->nframes == nframes && t->status == status &&
            wasp_rframes_equal(&r->frames[t->first], frames, (uint32_t)nframes))
            return i + 1;
    }
    r->counters[WASP_C_DROP_TABLE_FULL]++;
    return 0;
}

uint32_t wasp_records_context(wasp_records *r, uint32_t trace, uint64_t pc,
                              const uint8_t *insn, uint8_t insn_len)
{
    if (insn_len > sizeof r->contexts[0].insn)
        insn_len = sizeof r->contexts[0].insn;
    uint32_t mask = r->cap_contexts - 1;
    uint64_t h = mix(mix(7, pc), trace);
    for (uint32_t i = (uint32_t)h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
        wasp_rcontext *c = &r->contexts[i];
        if (c->trace == 0) {
            if (r->ncontexts + 1 >= r->cap_contexts - (r->cap_contexts >> 3)) {
                r->counters[WASP_C_DROP_TABLE_FULL]++;
                return 0;
            }
            c->pc = pc;
            c->insn_len = insn_len;
            memcpy(c->insn, insn, insn_len);
            c->trace = trace ? trace : UINT32_MAX; /* UINT32_MAX: no trace */
            r->ncontexts++;
            return i + 1;
        }
        if (c->pc == pc && c->trace == (trace ? trace : UINT32_MAX))
            return i + 1;
    }
    r->counters[WASP_C_DROP_TABLE_FULL]++;
    return 0;
}

int wasp_records_pair(wasp_records *r, wasp_analysis a, uint16_t flags,
                      uint32_t watch_ctx, uint32_t trap_ctx, double bytes, double count)
{
    if (watch_ctx == 0 || trap_ctx == 0) {
        r->counters[WASP_C_DROP_TABLE_FULL]++;
        return -1;
    }
    uint32_t mask = r->cap_pairs - 1;
    uint64_t h = mix(mix(mix(3, watch_ctx), trap_ctx), ((uint64_t)a << 16) | flags);
    for (uint32_t i = (uint32_t)h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
        wasp_rpair *p = &r->pairs[i];
        if (p->watch_ctx == 0) {
            if (r->npairs + 1 >= r->cap_pairs - (r->cap_pairs >> 3))
                break;
            p->trap_ctx = trap_ctx;
            p->analysis = (uint16_t)a;
            p->flags = flags;
            p->watch_ctx = watch_ctx;
            r->npairs++;
        } else if (p->watch_ctx != watch_ctx || p->trap_ctx != trap_ctx ||
                   p->analysis != a || p->flags != flags) {
            continue;
        }
        p->bytes += bytes;
        p->count += count;
        return 0;
    }
    r->counters[WASP_C_DROP_TABLE_FULL]++;
    return -1;
}

int wasp_records_site(wasp_records *r, int id, uint32_t site, uint32_t ctx, double a, double b,
                      double c)
{
    if (id < 0 || id >= WASP_ANALYSES || !r->sites[id])
        return -1;
    wasp_rsite *table = r->sites[id];
    uint32_t cap = r->cap_sites, *count = &r->nsites[id];
    if (ctx == 0) {
        r->counters[WASP_C_DROP_TABLE_FULL]++;
        return -1;
    }
    uint32_t key = site + 1, mask = cap - 1;
    uint64_t h = mix(mix(11, key), ctx);
    for (uint32_t i = (uint32_t)h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
        wasp_rsite *e = &table[i];
        if (e->site == 0) {
            if (*count + 1 >= cap - (cap >> 3))
                break;
            e->access_ctx = ctx;
            e->site = key;
            (*count)++;
        } else if (e->site != key || e->access_ctx != ctx) {
            continue;
        }
        e->a += a;
        e->b += b;
        e->c += c;
        return 0;
    }
    r->counters[WASP_C_DROP_TABLE_FULL]++;
    return -1;
}
