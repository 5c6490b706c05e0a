/* Journal files: opened for direct, synchronous appends and pre-zeroed to their full size, so that
 * a commit's O_DSYNC (write-through) write never has to allocate blocks, convert unwritten extents
 * or move NTFS's valid data length, which would turn each commit into a transaction of the file
 * system's own journal as well.
 *
 * The algorithm is the same on every platform and is written here once, over the file exports;
 * what differs (how a file opens with the direct fallback, reserves space, writes zeros and syncs)
 * is inside those exports. */
#include "pal_common.h"

#include "io_checks.h"

#include <stddef.h>
#include <stdint.h>

/* Extends the journal to `size` with written zeros, then syncs (in cairn_file_zero). On failure
 * the file is cut back to its old size, so a journal that does not fit does not keep the space it
 * grabbed before failing. */
static int32_t extend_zeroed(cairn_file *file, int64_t size, int32_t *os_error)
{
    int64_t old_size = 0;
    int32_t status = cairn_file_size(file, &old_size, os_error);
    if (status != CAIRN_OK || old_size >= size)
        return status;

    int32_t allocated = 0;
    status = cairn_file_allocate(file, old_size, size - old_size, &allocated, os_error);
    if (status == CAIRN_OK) {
        /* A partial last block is not rewritten: it may hold records, and its tail past the old end
         * already reads as zeros. Starting at the next block keeps direct I/O's alignment. */
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
