/* Argument checks that every platform applies identically before it touches a file, so that a
 * call the managed side makes is accepted or refused the same way on POSIX and on Windows.
 * Not part of the ABI. */
#ifndef CAIRN_IO_CHECKS_H
#define CAIRN_IO_CHECKS_H

#include "pal_common.h"

#include <stdint.h>

/* Whether `value` is a multiple of CAIRN_DIRECT_IO_ALIGNMENT, as direct (unbuffered) I/O demands
 * of offsets, lengths and buffer addresses. */
static inline int cairn_is_direct_aligned(int64_t value)
{
    return (value & (CAIRN_DIRECT_IO_ALIGNMENT - 1)) == 0;
}

/* A buffer that direct I/O can transfer: aligned address and aligned length. */
static inline int cairn_is_direct_aligned_buffer(const void *data, int64_t length)
{
    return cairn_is_direct_aligned((int64_t)(uintptr_t)data) && cairn_is_direct_aligned(length);
}

/* A range [offset, offset + length) that a 64-bit file offset can represent. */
static inline int cairn_is_valid_range(int64_t offset, int64_t length)
{
    return offset >= 0 && length >= 0 && length <= INT64_MAX - offset;
}

/* A range a handle opened with `flags` (effective CAIRN_OPEN_*) can write: valid, and aligned when
 * the handle is DIRECT. */
static inline int cairn_is_valid_write_range(int32_t flags, int64_t offset, int64_t length)
{
    if (!cairn_is_valid_range(offset, length))
        return 0;
    return !(flags & CAIRN_OPEN_DIRECT) || (cairn_is_direct_aligned(offset) && cairn_is_direct_aligned(length));
}

/* The buffer list of cairn_file_write on a handle opened with `flags`: a non-negative count, no
 * NULL list or data where there are bytes, no negative lengths (which a write call would misread as
 * huge unsigned ones), an end that fits in 64 bits, and on a DIRECT handle the alignment direct
 * I/O demands. Checked whole before anything is written, so a bad list fails without a partial
 * write or a vaguer OS error halfway through. */
CAIRN_HIDDEN int cairn_buffers_valid(int32_t flags, const cairn_buffer *buffers, int32_t count, int64_t offset);

#endif
