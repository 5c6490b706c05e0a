/* Option and batch checks and run grouping of the data-file writer; see write_ops.h. */
#include "write_ops.h"

#include "io_checks.h"

#include <stddef.h>

#define KNOWN_IO_FLAGS (CAIRN_IO_LOW_PRIORITY | CAIRN_IO_FORCE_PWRITEV)

int cairn_io_options_valid(const cairn_io_options *options)
{
    return options != NULL && (options->flags & ~KNOWN_IO_FLAGS) == 0 && options->ring_entries >= 0 &&
           options->ring_entries <= CAIRN_IO_MAX_RING_ENTRIES && options->reserved == 0;
}

int cairn_write_ops_valid(int32_t flags, const cairn_write_op *ops, int32_t count)
{
    if (count < 0 || (ops == NULL && count > 0))
        return 0;
    int direct = (flags & CAIRN_OPEN_DIRECT) != 0;
    int64_t previous_end = 0;
    for (int32_t i = 0; i < count; i++) {
        const cairn_write_op *op = &ops[i];
        if (op->data == NULL || op->length <= 0 || op->offset < 0 || op->length > INT64_MAX - op->offset)
            return 0;
        if (i > 0 && op->offset < previous_end)
            return 0; /* unsorted or overlapping */
        if (direct && !(cairn_is_direct_aligned(op->offset) && cairn_is_direct_aligned_buffer(op->data, op->length)))
            return 0;
        previous_end = op->offset + op->length;
    }
    return 1;
}

int32_t cairn_write_run_length(const cairn_write_op *ops, int32_t count, int32_t max_ops)
{
    int32_t n = 1;
    while (n < count && n < max_ops && ops[n - 1].offset + ops[n - 1].length == ops[n].offset)
        n++;
    return n;
}
