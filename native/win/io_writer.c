/* The data-file writer (Windows). There is no io_uring and no worker thread: each batch is
 * written synchronously on the calling thread. The configure-before-start contract of the POSIX
 * worker is kept all the same, so callers behave identically on both platforms. */
#include "win_internal.h"

#define KNOWN_IO_FLAGS (CAIRN_IO_LOW_PRIORITY | CAIRN_IO_FORCE_PWRITEV)
/* The POSIX ring's limit, checked here too so a configuration is valid on both or on neither. */
#define MAX_RING_ENTRIES 32768

/* Buffers handed to the write primitive per call for one run of adjacent ops. */
#define RUN_CHUNK 256

static SRWLOCK g_lock = SRWLOCK_INIT;
static int g_started;   /* "the worker has started": set by first use, cleared by shutdown */
static int32_t g_flags; /* CAIRN_IO_* from the last cairn_io_configure */

/* Marks the writer started and returns its flags. */
static int32_t writer_use(void)
{
    AcquireSRWLockShared(&g_lock);
    int started = g_started;
    int32_t flags = g_flags;
    ReleaseSRWLockShared(&g_lock);
    if (!started) {
        AcquireSRWLockExclusive(&g_lock);
        g_started = 1;
        flags = g_flags;
        ReleaseSRWLockExclusive(&g_lock);
    }
    return flags;
}

CAIRN_EXPORT int32_t cairn_io_configure(const cairn_io_options *options, int32_t *os_error)
{
    if (options == NULL || (options->flags & ~KNOWN_IO_FLAGS) != 0 || options->ring_entries < 0 ||
        options->ring_entries > MAX_RING_ENTRIES || options->reserved != 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    AcquireSRWLockExclusive(&g_lock);
    int started = g_started;
    if (!started)
        g_flags = options->flags; /* FORCE_PWRITEV and ring_entries mean nothing without io_uring */
    ReleaseSRWLockExclusive(&g_lock);
    return cairn_status(started ? CAIRN_E_INVALID_ARGUMENT : CAIRN_OK, os_error);
}

CAIRN_EXPORT int32_t cairn_io_backend(int32_t *backend, int32_t *setup_error, int32_t *os_error)
{
    if (backend == NULL || setup_error == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    writer_use();
    *backend = CAIRN_BACKEND_WIN32;
    *setup_error = 0; /* io_uring was not tried */
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_io_shutdown(int32_t *os_error)
{
    AcquireSRWLockExclusive(&g_lock);
    g_started = 0;
    ReleaseSRWLockExclusive(&g_lock);
    return cairn_ok(os_error);
}

static int32_t check_mode(int32_t mode)
{
    switch (mode) {
    case CAIRN_BACKEND_AUTO:
    case CAIRN_BACKEND_WIN32:
        return CAIRN_OK;
    case CAIRN_BACKEND_IO_URING:
    case CAIRN_BACKEND_PWRITEV:
        return CAIRN_E_UNSUPPORTED;
    default:
        return CAIRN_E_INVALID_ARGUMENT;
    }
}

/* The per-handle I/O priority hint is the Windows counterpart of ioprio_set: it lowers the
 * priority of this handle's I/O only, where SetThreadPriority would also slow the caller's CPU
 * work. Handles start at normal priority, so normal is only set to undo an earlier low. */
static void apply_priority(struct cairn_file *file, int32_t writer_flags)
{
    PRIORITY_HINT wanted = (writer_flags & CAIRN_IO_LOW_PRIORITY) ? IoPriorityHintLow : IoPriorityHintNormal;
    LONG tag = (LONG)wanted + 1;
    LONG current = InterlockedCompareExchange(&file->io_priority, 0, 0);
    if (current == tag || (current == 0 && wanted == IoPriorityHintNormal))
        return;
    /* The structure must be 8-byte aligned. */
    union {
        FILE_IO_PRIORITY_HINT_INFO info;
        LONGLONG alignment;
    } hint;
    hint.alignment = 0;
    hint.info.PriorityHint = wanted;
    /* Only a hint: a file system that refuses it still writes correctly. The tag is recorded
     * either way, so a refusing handle costs one call rather than one per batch. */
    (void)SetFileInformationByHandle(file->handle, FileIoPriorityHintInfo, &hint.info, sizeof hint.info);
    InterlockedExchange(&file->io_priority, tag);
}

/* Sorted, non-overlapping, positive lengths, and on a DIRECT handle the alignment unbuffered
 * I/O demands; checked before anything is written so a bad batch fails whole. */
static int valid_ops(const struct cairn_file *file, const cairn_write_op *ops, int32_t count)
{
    int direct = (file->flags & CAIRN_OPEN_DIRECT) != 0;
    for (int32_t i = 0; i < count; i++) {
        const cairn_write_op *op = &ops[i];
        if (op->data == NULL || op->length <= 0 || op->offset < 0 || op->offset > INT64_MAX - op->length)
            return 0;
        if (i > 0 && op->offset < ops[i - 1].offset + ops[i - 1].length)
            return 0;
        if (direct && !(cairn_win_is_aligned(op->offset) && cairn_win_is_aligned_buffer(op->data, op->length)))
            return 0;
    }
    return 1;
}

/* How many ops from the first one are adjacent in the file. */
static int32_t run_length(const cairn_write_op *ops, int32_t count)
{
    int32_t n = 1;
    while (n < count && ops[n - 1].offset + ops[n - 1].length == ops[n].offset)
        n++;
    return n;
}

static int32_t write_run(struct cairn_file *file, const cairn_write_op *ops, int32_t count, int32_t *os_error)
{
    cairn_buffer buffers[RUN_CHUNK];
    int64_t offset = ops[0].offset;
    for (int32_t first = 0; first < count;) {
        int32_t n = count - first < RUN_CHUNK ? count - first : RUN_CHUNK;
        int64_t bytes = 0;
        for (int32_t i = 0; i < n; i++) {
            buffers[i].data = ops[first + i].data;
            buffers[i].length = ops[first + i].length;
            bytes += buffers[i].length;
        }
        int32_t status = cairn_win_write_all(file, buffers, n, offset, os_error);
        if (status != CAIRN_OK)
            return status;
        offset += bytes;
        first += n;
    }
    return CAIRN_OK;
}

CAIRN_EXPORT int32_t cairn_write_gather(cairn_file *file, const cairn_write_op *ops, int32_t count,
                                        int32_t mode, int32_t *os_error)
{
    int32_t status = check_mode(mode);
    if (status != CAIRN_OK)
        return cairn_status(status, os_error);
    if (file == NULL || count < 0 || (ops == NULL && count > 0))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (count == 0)
        return cairn_ok(os_error);
    if (!valid_ops(file, ops, count))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    apply_priority(file, writer_use());
    for (int32_t first = 0; first < count;) {
        int32_t n = run_length(ops + first, count - first);
        status = write_run(file, ops + first, n, os_error);
        if (status != CAIRN_OK)
            return status;
        first += n;
    }
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_sync_gather(cairn_file *file, int32_t mode, int32_t *os_error)
{
    int32_t status = check_mode(mode);
    if (status != CAIRN_OK)
        return cairn_status(status, os_error);
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    apply_priority(file, writer_use());
    return cairn_win_flush(file, os_error);
}
