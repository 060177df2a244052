/*
 * Metadata and counters (few entries: linear search is fine). A metadata
 * value is text, or a number kept with its text: readers that know only text
 * (get_meta, older wasps reading the file) see the number written out.
 */
#include "profile/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* The entry of key, created (empty) when new; NULL when out of memory. */
static wasp_kv *meta_entry(wasp_profile *p, const char *key)
{
    for (uint32_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0)
            return &p->meta[i];
    char *k = dupstr(key), *v = dupstr("");
    if (!k || !v || wasp_grow(&p->meta, &p->cap_meta, p->nmeta + 1, sizeof *p->meta) != 0) {
        free(k);
        free(v);
        return NULL;
    }
    p->meta[p->nmeta] = (wasp_kv){.key = k, .value = v};
    return &p->meta[p->nmeta++];
}

void wasp_profile_remove_meta(wasp_profile *p, const char *key)
{
    for (uint32_t i = 0; i < p->nmeta; i++) {
        if (strcmp(p->meta[i].key, key) != 0)
            continue;
        free(p->meta[i].key);
        free(p->meta[i].value);
        memmove(&p->meta[i], &p->meta[i + 1], (p->nmeta - i - 1) * sizeof *p->meta);
        p->nmeta--;
        return;
    }
}

static const wasp_kv *meta_find(const wasp_profile *p, const char *key)
{
    for (uint32_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, key) == 0)
            return &p->meta[i];
    return NULL;
}

int wasp_profile_set_meta_checked(wasp_profile *p, const char *key, const char *value)
{
    char *v = dupstr(value ? value : "");
    wasp_kv *kv = v ? meta_entry(p, key) : NULL;
    if (!kv) {
        free(v);
        return -1;
    }
    free(kv->value);
    *kv = (wasp_kv){.key = kv->key, .value = v};
    return 0;
}

void wasp_profile_set_meta(wasp_profile *p, const char *key, const char *value)
{
    (void)wasp_profile_set_meta_checked(p, key, value);
}

/* The shortest text that reads back as v ("1000", "0.02", "0.1"). */
static void number_text(double v, char *buf, size_t n)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

int wasp_profile_set_meta_num_checked(wasp_profile *p, const char *key, double value)
{
    char text[40];
    number_text(value, text, sizeof text);
    if (wasp_profile_set_meta_checked(p, key, text) != 0)
        return -1;
    wasp_kv *kv = meta_entry(p, key); /* there: just set */
    kv->numeric = true;
    kv->number = value;
    return 0;
}

void wasp_profile_set_meta_num(wasp_profile *p, const char *key, double value)
{
    (void)wasp_profile_set_meta_num_checked(p, key, value);
}

void wasp_profile_set_meta_rounded(wasp_profile *p, const char *key, double v, const char *fmt)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    wasp_profile_set_meta_num(p, key, strtod(buf, NULL));
}

int wasp_profile_copy_meta_checked(wasp_profile *p, const wasp_kv *kv)
{
    return kv->numeric ? wasp_profile_set_meta_num_checked(p, kv->key, kv->number)
                       : wasp_profile_set_meta_checked(p, kv->key, kv->value);
}

const char *wasp_profile_get_meta(const wasp_profile *p, const char *key)
{
    const wasp_kv *kv = meta_find(p, key);
    return kv ? kv->value : NULL;
}

bool wasp_profile_get_meta_num(const wasp_profile *p, const char *key, double *value)
{
    const wasp_kv *kv = meta_find(p, key);
    if (!kv || !kv->numeric)
        return false;
    *value = kv->number;
    return true;
}

/* ---- counters ---- */

int wasp_profile_add_counter_checked(wasp_profile *p, const char *name, uint64_t v)
{
    for (uint32_t i = 0; i < p->ncounters; i++) {
        if (strcmp(p->counters[i].name, name) == 0) {
            p->counters[i].value += v;
            return 0;
        }
    }
    char *n = dupstr(name);
    if (!n ||
        wasp_grow(&p->counters, &p->cap_counters, p->ncounters + 1, sizeof *p->counters) != 0) {
        free(n);
        return -1;
    }
    p->counters[p->ncounters++] = (wasp_counter){n, v};
    return 0;
}

void wasp_profile_add_counter(wasp_profile *p, const char *name, uint64_t v)
{
    (void)wasp_profile_add_counter_checked(p, name, v);
}

void wasp_profile_set_counter(wasp_profile *p, const char *name, uint64_t v)
{
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (strcmp(p->counters[i].name, name) == 0) {
            p->counters[i].value = v;
            return;
        }
    wasp_profile_add_counter(p, name, v);
}

uint64_t wasp_profile_get_counter(const wasp_profile *p, const char *name)
{
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (strcmp(p->counters[i].name, name) == 0)
            return p->counters[i].value;
    return 0;
}
