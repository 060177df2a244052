/*
 * See interpreter.h. The range only grows (the interpreter is generated
 * once, at start-up); a handler that reads it half updated sees a range
 * that is one of the two or empty: a sample counted not compiled. The
 * layout is set once before `ready`.
 *
 * ASYNC-SIGNAL-SAFE: the handler's functions read atomics and the running
 * method's own metadata.
 */
#include "watch/interpreter.h"

static uint64_t lo = UINT64_MAX, hi;
static uint64_t const_method_off, code_size_off, const_method_size;
static int ready;

void wasp_interpreter_publish(uint64_t from, uint64_t to)
{
    if (from >= to)
        return;
    if (from < __atomic_load_n(&lo, __ATOMIC_RELAXED))
        __atomic_store_n(&lo, from, __ATOMIC_RELEASE);
    if (to > __atomic_load_n(&hi, __ATOMIC_RELAXED))
        __atomic_store_n(&hi, to, __ATOMIC_RELEASE);
}

int wasp_interpreter_holds(uint64_t pc)
{
    return pc >= __atomic_load_n(&lo, __ATOMIC_ACQUIRE) && pc < __atomic_load_n(&hi, __ATOMIC_ACQUIRE);
}

void wasp_interpreter_set_layout(uint64_t const_method, uint64_t code_size, uint64_t cm_size)
{
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !cm_size)
        return;
    const_method_off = const_method;
    code_size_off = code_size;
    const_method_size = cm_size;
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

int32_t wasp_interpreter_bci(const void *method, uint64_t bcp, int32_t fallback)
{
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !method)
        return fallback;
    /* A jmethodID holds the Method*; the method runs on this thread, so it
     * and its ConstMethod are alive. */
    uint64_t m = *(const volatile uint64_t *)method;
    if (!m)
        return fallback;
    uint64_t cm = *(const volatile uint64_t *)(m + const_method_off);
    if (!cm)
        return fallback;
    uint16_t size = *(const volatile uint16_t *)(cm + code_size_off);
    uint64_t base = cm + const_method_size;
    return bcp >= base && bcp < base + size ? (int32_t)(bcp - base) : fallback;
}
