/* Copies for backups (Windows): range copies through a buffer, the closest thing to ranged
 * write-back Windows has, and the calling thread's background mode for its I/O priority. */
#include "win_internal.h"

#include "io_checks.h"

#include <stdlib.h>

#define COPY_BUFFER_BYTES (1 << 20)

/* winerror.h of older mingw-w64 releases lacks it; the value is fixed. */
#ifndef ERROR_THREAD_MODE_ALREADY_BACKGROUND
#define ERROR_THREAD_MODE_ALREADY_BACKGROUND 400L
#endif

CAIRN_EXPORT int32_t cairn_file_copy_range(cairn_file *source, int64_t source_offset, cairn_file *destination,
                                           int64_t destination_offset, int64_t length, int32_t *os_error)
{
    if (source == NULL || destination == NULL || !cairn_is_valid_range(source_offset, length) ||
        !cairn_is_valid_range(destination_offset, length) ||
        ((source->flags | destination->flags) & CAIRN_OPEN_DIRECT) != 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    char *buffer = malloc(COPY_BUFFER_BYTES);
    if (buffer == NULL)
        return cairn_win_fail(ERROR_NOT_ENOUGH_MEMORY, os_error);
    int32_t status = cairn_ok(os_error);
    while (length > 0 && status == CAIRN_OK) {
        int64_t want = length < COPY_BUFFER_BYTES ? length : COPY_BUFFER_BYTES;
        int64_t got = 0;
        status = cairn_file_read(source, buffer, want, source_offset, &got, os_error);
        if (status != CAIRN_OK)
            break;
        cairn_buffer piece = { buffer, got };
        status = cairn_win_write_all(destination, &piece, 1, destination_offset, os_error);
        source_offset += got;
        destination_offset += got;
        length -= got;
    }
    free(buffer);
    return status;
}

/* Windows flushes whole files only: starting write-back of a range is left to the cache manager,
 * and waiting for one flushes the file (what is left dirty of it: earlier slices are clean). */
CAIRN_EXPORT int32_t cairn_file_sync_range(cairn_file *file, int64_t offset, int64_t length, int32_t flags,
                                           int32_t *os_error)
{
    if (file == NULL || !cairn_is_valid_range(offset, length) ||
        (flags & ~(CAIRN_SYNC_RANGE_WRITE | CAIRN_SYNC_RANGE_WAIT)) != 0 || flags == 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (flags & CAIRN_SYNC_RANGE_WAIT)
        return cairn_win_flush(file, os_error);
    return cairn_ok(os_error);
}

/* *previous is 1 when this call put the thread in background mode (restore ends it), 0 when it
 * already was or the system has no background mode (restore leaves it so). */
CAIRN_EXPORT int32_t cairn_thread_io_priority_low(int32_t *previous, int32_t *os_error)
{
    if (previous == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (SetThreadPriority(GetCurrentThread(), THREAD_MODE_BACKGROUND_BEGIN)) {
        *previous = 1;
        return cairn_ok(os_error);
    }
    DWORD error = cairn_win_last_error();
    /* ERROR_INVALID_PARAMETER: a Windows (or wine) without background mode; the priority is a
     * hint, so the thread stays as it was and the copy goes on. */
    if (error != ERROR_THREAD_MODE_ALREADY_BACKGROUND && error != ERROR_INVALID_PARAMETER)
        return cairn_win_fail(error, os_error);
    *previous = 0;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_thread_cpu_priority_lowest(int32_t *os_error)
{
    if (!SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_LOWEST))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_thread_io_priority_restore(int32_t previous, int32_t *os_error)
{
    if (previous != 0 && previous != 1)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (previous == 1 && !SetThreadPriority(GetCurrentThread(), THREAD_MODE_BACKGROUND_END))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    return cairn_ok(os_error);
}
