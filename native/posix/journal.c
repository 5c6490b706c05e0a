/* Journal files (POSIX): opened for direct, synchronous appends and pre-zeroed to their full size,
 * so that a commit's O_DSYNC write never has to allocate blocks or convert unwritten extents,
 * which would turn each commit into a journal transaction of the file system as well. */
#include "posix_files.h"

#include "io_checks.h"

#include <stddef.h>
#include <stdint.h>

/* Extends the journal to `size` with written zeros. On failure the file is cut back to its old
 * size, so a journal that does not fit does not keep the space it grabbed before failing. */
static int32_t extend_zeroed(cairn_file *file, int64_t size, int32_t *os_error)
{
    int64_t old_size = 0;
    int32_t status = cairn_file_size(file, &old_size, os_error);
    if (status != CAIRN_OK || old_size >= size)
        return status;

    int32_t allocated = 0;
    status = cairn_file_allocate(file, old_size, size - old_size, &allocated, os_error);
    if (status == CAIRN_OK) {
        /* An old size that is not a block multiple cannot come from a journal write; the bytes up to
         * the next block already read as zeros, and starting there keeps O_DIRECT's alignment. */
        int64_t start = (old_size + CAIRN_DIRECT_IO_ALIGNMENT - 1) & ~(int64_t)(CAIRN_DIRECT_IO_ALIGNMENT - 1);
        status = cairn_file_zero(file, start, size - start, os_error);
    }
    if (status != CAIRN_OK) {
        int32_t ignored;
        (void)cairn_file_set_size(file, old_size, &ignored);
    }
    return status;
}

CAIRN_EXPORT int32_t cairn_journal_open(const char *path, int64_t size, cairn_file **file,
                                        int32_t *effective_flags, int32_t *os_error)
{
    if (path == NULL || file == NULL || effective_flags == NULL || size < 0 || !cairn_is_direct_aligned(size))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    cairn_file *handle = NULL;
    int32_t effective = 0;
    int32_t status = cairn_file_open(path, CAIRN_JOURNAL_FLAGS, &handle, &effective, os_error);
    if (status != CAIRN_OK)
        return status;

    status = extend_zeroed(handle, size, os_error);
    if (status != CAIRN_OK) {
        int32_t ignored;
        (void)cairn_file_close(handle, &ignored);
        return status;
    }
    *file = handle;
    *effective_flags = effective;
    return cairn_ok(os_error);
}
