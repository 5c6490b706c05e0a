/* Copies for backups (POSIX): in-kernel range copies, ranged write-back, and the calling thread's
 * I/O priority. A backup copies hundreds of MiB while writers commit on the same disk: the copy
 * should cost no user-space copy of the bytes, and its write-back should go out in slices at the
 * lowest best-effort priority instead of one large sync the journal's writes queue behind. */
#include "posix_internal.h"

#include "io_checks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Per copy_file_range call: large enough that the syscalls cost nothing, small enough that a
 * cancelled or failing copy stops soon and a short-write fault has calls to cap. */
#define COPY_CALL_BYTES ((int64_t)8 << 20)
#define FALLBACK_BUFFER_BYTES (1 << 20)

/* The read/write loop for where copy_file_range cannot serve (across file systems before Linux
 * 5.19, file systems without it, a seccomp filter that refuses it). */
static int32_t copy_through_buffer(struct cairn_file *source, int64_t source_offset, struct cairn_file *destination,
                                   int64_t destination_offset, int64_t length, int32_t *os_error)
{
    char *buffer = malloc(FALLBACK_BUFFER_BYTES);
    if (buffer == NULL)
        return cairn_fail(ENOMEM, os_error);
    int32_t status = cairn_ok(os_error);
    while (length > 0 && status == CAIRN_OK) {
        size_t want = length < FALLBACK_BUFFER_BYTES ? (size_t)length : FALLBACK_BUFFER_BYTES;
        ssize_t got = pread(source->fd, buffer, want, (off_t)source_offset);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            status = cairn_fail(errno, os_error);
            break;
        }
        if (got == 0) {
            status = cairn_status(CAIRN_E_END_OF_FILE, os_error);
            break;
        }
        struct iovec iov = { buffer, (size_t)got };
        status = cairn_posix_pwritev_all(destination, &iov, 1, destination_offset, os_error);
        source_offset += got;
        destination_offset += got;
        length -= got;
    }
    free(buffer);
    return status;
}

static int refused_by_kernel(int error)
{
    return error == EXDEV || error == ENOSYS || error == EOPNOTSUPP || error == EINVAL || error == EPERM;
}

CAIRN_EXPORT int32_t cairn_file_copy_range(cairn_file *source, int64_t source_offset, cairn_file *destination,
                                           int64_t destination_offset, int64_t length, int32_t *os_error)
{
    if (source == NULL || destination == NULL || !cairn_is_valid_range(source_offset, length) ||
        !cairn_is_valid_range(destination_offset, length) ||
        ((source->flags | destination->flags) & CAIRN_OPEN_DIRECT) != 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    while (length > 0) {
        int64_t want = length < COPY_CALL_BYTES ? length : COPY_CALL_BYTES;
        int32_t injected = 0;
        switch (cairn_fault_on_write(destination->path, &want, &injected)) {
        case 1:
            return cairn_fail(injected, os_error);
        case 2:
            return cairn_status(CAIRN_E_DISK_FULL, os_error);
        default:
            break;
        }
        loff_t in = source_offset, out = destination_offset;
        ssize_t copied = copy_file_range(source->fd, &in, destination->fd, &out, (size_t)want, 0);
        if (copied < 0 && errno == EINTR)
            continue;
        if (copied < 0 && refused_by_kernel(errno))
            return copy_through_buffer(source, source_offset, destination, destination_offset, length, os_error);
        if (copied < 0)
            return cairn_fail(errno, os_error);
        if (copied == 0) {
            /* copy_file_range returns 0 at the source's end; tell it apart from a destination that
             * took nothing (the write side reports ENOSPC itself, so this is the source). */
            return cairn_status(CAIRN_E_END_OF_FILE, os_error);
        }
        source_offset += copied;
        destination_offset += copied;
        length -= copied;
    }
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_sync_range(cairn_file *file, int64_t offset, int64_t length, int32_t flags,
                                           int32_t *os_error)
{
    if (file == NULL || !cairn_is_valid_range(offset, length) ||
        (flags & ~(CAIRN_SYNC_RANGE_WRITE | CAIRN_SYNC_RANGE_WAIT)) != 0 || flags == 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    unsigned int os_flags = 0;
    if (flags & CAIRN_SYNC_RANGE_WAIT) {
        int32_t injected = 0;
        if (cairn_fault_on_sync(file->path, &injected))
            return cairn_fail(injected, os_error);
        /* Before and after: pages already under write-back are waited for, then written again if
         * dirtied since, then waited for, so the range is on the device (cache) when this returns. */
        os_flags |= SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    }
    if (flags & CAIRN_SYNC_RANGE_WRITE)
        os_flags |= SYNC_FILE_RANGE_WRITE;
    while (sync_file_range(file->fd, (off64_t)offset, (off64_t)length, os_flags) != 0) {
        if (errno != EINTR)
            return cairn_fail(errno, os_error);
    }
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_thread_io_priority_low(int32_t *previous, int32_t *os_error)
{
    if (previous == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* who = 0 with IOPRIO_WHO_PROCESS is the calling thread: I/O priority is per task on Linux. */
    long current = syscall(SYS_ioprio_get, CAIRN_IOPRIO_WHO_PROCESS, 0);
    if (current < 0)
        return cairn_fail(errno, os_error);
    if (syscall(SYS_ioprio_set, CAIRN_IOPRIO_WHO_PROCESS, 0, CAIRN_IOPRIO_VALUE(CAIRN_IOPRIO_CLASS_BE, 7)) != 0)
        return cairn_fail(errno, os_error);
    *previous = (int32_t)current;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_thread_cpu_priority_lowest(int32_t *os_error)
{
    /* On Linux a nice value belongs to the task, so PRIO_PROCESS with the thread id lowers this
     * thread alone (POSIX would lower the process; the other POSIX systems take the same path). */
#ifdef __linux__
    id_t self = (id_t)syscall(SYS_gettid);
#else
    id_t self = 0;
#endif
    if (setpriority(PRIO_PROCESS, self, 19) != 0)
        return cairn_fail(errno, os_error);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_thread_io_priority_restore(int32_t previous, int32_t *os_error)
{
    if (previous < 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (syscall(SYS_ioprio_set, CAIRN_IOPRIO_WHO_PROCESS, 0, (int)previous) != 0)
        return cairn_fail(errno, os_error);
    return cairn_ok(os_error);
}
