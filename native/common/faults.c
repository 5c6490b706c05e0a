/* Test-only fault injection. Armed by cairn_test_set_fault; when disarmed every hook costs one
 * relaxed atomic load, so the hooks can stay in the shipping library and serve the managed crash
 * and fault tests as well as the native ones. */
#include "pal_common.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_kind;            /* CAIRN_FAULT_* currently armed */
static atomic_llong g_after;         /* matching calls still to let through */
static atomic_llong g_limit;         /* byte cap for short writes */
static atomic_int g_error;           /* error to inject */
static char *_Atomic g_path_filter;  /* NULL = every file */

/* Filters are never freed, because a hook on another thread may still be reading a replaced one.
 * They stay reachable from this list so leak checkers see nothing lost; a test arms a handful. */
struct kept_filter {
    struct kept_filter *next;
    char text[];
};
static struct kept_filter *_Atomic g_kept_filters;
static atomic_llong g_write_calls;

static int path_matches(const char *path)
{
    const char *filter = atomic_load_explicit(&g_path_filter, memory_order_acquire);
    if (filter == NULL)
        return 1;
    return path != NULL && strstr(path, filter) != NULL;
}

/* Consumes one pass of the `after` countdown; returns 1 when this call is the one to fail, and
 * disarms the fault so it fires exactly once. */
static int fire_once(int kind)
{
    long long remaining = atomic_fetch_sub(&g_after, 1);
    if (remaining > 0)
        return 0;
    int expected = kind;
    return atomic_compare_exchange_strong(&g_kind, &expected, CAIRN_FAULT_NONE);
}

int cairn_fault_on_write(const char *path, int64_t *length, int32_t *injected_error)
{
    atomic_fetch_add_explicit(&g_write_calls, 1, memory_order_relaxed);
    int kind = atomic_load_explicit(&g_kind, memory_order_relaxed);
    if (kind == CAIRN_FAULT_NONE || !path_matches(path))
        return 0;
    switch (kind) {
    case CAIRN_FAULT_SHORT_WRITE: {
        long long limit = atomic_load(&g_limit);
        if (limit > 0 && *length > limit)
            *length = limit;
        return 0;
    }
    case CAIRN_FAULT_WRITE_ERROR:
        if (!fire_once(kind))
            return 0;
        *injected_error = atomic_load(&g_error);
        return 1;
    case CAIRN_FAULT_ZERO_WRITE:
        return fire_once(kind) ? 2 : 0;
    default:
        return 0;
    }
}

/* The one-shot error faults: when `kind` is armed for `path`, fires once with the injected error. */
static int fail_once(int kind, const char *path, int32_t *injected_error)
{
    if (atomic_load_explicit(&g_kind, memory_order_relaxed) != kind || !path_matches(path))
        return 0;
    if (!fire_once(kind))
        return 0;
    *injected_error = atomic_load(&g_error);
    return 1;
}

int cairn_fault_on_sync(const char *path, int32_t *injected_error)
{
    return fail_once(CAIRN_FAULT_SYNC_ERROR, path, injected_error);
}

int cairn_fault_on_link(const char *new_link, int32_t *injected_error)
{
    return fail_once(CAIRN_FAULT_LINK_ERROR, new_link, injected_error);
}

int cairn_fault_on_read(const char *path, int32_t *injected_error)
{
    return fail_once(CAIRN_FAULT_READ_ERROR, path, injected_error);
}

int cairn_fault_on_uring_setup(int32_t *injected_error)
{
    if (atomic_load_explicit(&g_kind, memory_order_relaxed) != CAIRN_FAULT_URING_SETUP)
        return 0;
    /* Setup failures stay armed: every restart of the worker must fall back until disarmed. */
    *injected_error = atomic_load(&g_error);
    return 1;
}

int cairn_fault_on_allocate(const char *path, int64_t *growth, int32_t *injected_error)
{
    if (!fail_once(CAIRN_FAULT_ALLOCATE_ERROR, path, injected_error))
        return 0;
    *growth = atomic_load(&g_limit);
    return 1;
}

CAIRN_EXPORT int32_t cairn_test_set_fault(int32_t kind, int64_t after, int64_t limit,
                                          int32_t injected_error, const char *path_filter,
                                          int32_t *os_error)
{
    if (kind < CAIRN_FAULT_NONE || kind > CAIRN_FAULT_READ_ERROR || after < 0 || limit < 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    /* Disarm first so no hook sees a half-written configuration. */
    atomic_store(&g_kind, CAIRN_FAULT_NONE);
    char *copy = NULL;
    if (path_filter != NULL) {
        size_t n = strlen(path_filter) + 1;
        struct kept_filter *kept = malloc(sizeof *kept + n);
        if (kept == NULL)
            return cairn_status(CAIRN_E_OUT_OF_MEMORY, os_error);
        memcpy(kept->text, path_filter, n);
        kept->next = atomic_load(&g_kept_filters);
        while (!atomic_compare_exchange_weak(&g_kept_filters, &kept->next, kept))
            ;
        copy = kept->text;
    }
    atomic_store(&g_path_filter, copy);
    atomic_store(&g_after, after);
    atomic_store(&g_limit, limit);
    atomic_store(&g_error, injected_error);
    atomic_store(&g_kind, kind);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_test_write_calls(int64_t *count, int32_t *os_error)
{
    if (count == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    *count = atomic_load(&g_write_calls);
    return cairn_ok(os_error);
}
