/* Positional reads and writes of files (Windows). */
#include "win_internal.h"

#include "io_checks.h"

/* One ReadFile at `offset`; reading at or past the end is a zero-byte read, not an error. */
static DWORD read_once(struct cairn_file *file, void *data, DWORD length, int64_t offset, DWORD *got)
{
    cairn_win_io io;
    DWORD error = cairn_win_io_begin(&io, file, offset);
    if (error != 0)
        return error;
    *got = 0;
    BOOL issued = ReadFile(file->handle, data, length, cairn_win_io_sync_count(&io, got), &io.overlapped);
    error = cairn_win_io_wait(&io, issued, got);
    cairn_win_io_end(&io);
    if (error == ERROR_HANDLE_EOF) {
        *got = 0;
        error = 0;
    }
    return error;
}

CAIRN_EXPORT int32_t cairn_file_read(cairn_file *file, void *buffer, int64_t length, int64_t offset,
                                     int64_t *bytes_read, int32_t *os_error)
{
    if (file == NULL || bytes_read == NULL || (buffer == NULL && length > 0) ||
        !cairn_is_valid_range(offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    int32_t injected = 0;
    if (cairn_fault_on_read(file->path, &injected)) {
        *bytes_read = 0;
        return cairn_fail(injected, os_error);
    }

    int64_t total = 0;
    while (total < length) {
        int64_t want = length - total < CAIRN_WIN_MAX_IO ? length - total : CAIRN_WIN_MAX_IO;
        DWORD got = 0;
        DWORD error = read_once(file, (char *)buffer + total, (DWORD)want, offset + total, &got);
        if (error != 0) {
            *bytes_read = total;
            return cairn_win_fail(error, os_error);
        }
        total += got;
        if (got == 0)
            break;
        /* An unbuffered read stops short only at the end of the file, and the next one would
         * start unaligned and fail instead of reporting it. */
        if ((file->flags & CAIRN_OPEN_DIRECT) && (int64_t)got < want)
            break;
    }
    *bytes_read = total;
    return total < length ? cairn_status(CAIRN_E_END_OF_FILE, os_error) : cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_write(cairn_file *file, const cairn_buffer *buffers, int32_t count,
                                      int64_t offset, int32_t *os_error)
{
    if (file == NULL || !cairn_buffers_valid(file->flags, buffers, count, offset))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    return cairn_win_write_all(file, buffers, count, offset, os_error);
}
