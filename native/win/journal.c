/* Journal files: unbuffered write-through handles over fully written space (Windows). */
#include "win_internal.h"

static int64_t round_up(int64_t value)
{
    return (value + CAIRN_DIRECT_IO_ALIGNMENT - 1) / CAIRN_DIRECT_IO_ALIGNMENT * CAIRN_DIRECT_IO_ALIGNMENT;
}

/* Grows the journal to `size` and writes zeros over what it did not have, then flushes (in
 * cairn_file_zero). A partial last block is not rewritten: it may hold records, and its tail past
 * the old end already reads as zeros. On failure the file is cut back to its old size, so a
 * journal that does not fit does not keep the space it took before failing. */
static int32_t extend_zeroed(cairn_file *journal, int64_t size, int32_t *os_error)
{
    int64_t current = 0;
    int32_t status = cairn_file_size(journal, &current, os_error);
    if (status != CAIRN_OK || current >= size)
        return status;
    int32_t allocated = 0;
    status = cairn_file_allocate(journal, current, size - current, &allocated, os_error);
    if (status == CAIRN_OK) {
        int64_t start = round_up(current);
        status = cairn_file_zero(journal, start, size - start, os_error);
    }
    if (status != CAIRN_OK) {
        int32_t ignored = 0;
        (void)cairn_file_set_size(journal, current, &ignored);
    }
    return status;
}

CAIRN_EXPORT int32_t cairn_journal_open(const char *path, int64_t size, cairn_file **file,
                                        int32_t *effective_flags, int32_t *os_error)
{
    if (path == NULL || file == NULL || effective_flags == NULL || size < 0 || !cairn_win_is_aligned(size))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    cairn_file *journal = NULL;
    int32_t flags = 0;
    int32_t status = cairn_file_open(path, CAIRN_JOURNAL_FLAGS, &journal, &flags, os_error);
    if (status != CAIRN_OK)
        return status;
    status = extend_zeroed(journal, size, os_error);
    if (status != CAIRN_OK) {
        int32_t ignored = 0;
        cairn_file_close(journal, &ignored);
        return status;
    }
    *file = journal;
    *effective_flags = flags;
    return cairn_ok(os_error);
}
