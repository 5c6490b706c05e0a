/* The argument checks of io_checks.h that are more than one expression. */
#include "io_checks.h"

#include <stddef.h>

int cairn_buffers_valid(int32_t flags, const cairn_buffer *buffers, int32_t count, int64_t offset)
{
    if (count < 0 || (buffers == NULL && count > 0) || offset < 0)
        return 0;
    int direct = (flags & CAIRN_OPEN_DIRECT) != 0;
    if (direct && !cairn_is_direct_aligned(offset))
        return 0;
    int64_t end = offset;
    for (int32_t i = 0; i < count; i++) {
        int64_t length = buffers[i].length;
        if (length < 0 || (buffers[i].data == NULL && length > 0) || length > INT64_MAX - end)
            return 0;
        if (direct && !cairn_is_direct_aligned_buffer(buffers[i].data, length))
            return 0;
        end += length;
    }
    return 1;
}
