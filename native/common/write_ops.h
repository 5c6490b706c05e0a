/* The platform-neutral half of the data-file writer (cairn_io_configure, cairn_write_gather):
 * which options and which batches of ops are acceptable, and how a batch is cut into runs of
 * adjacent ops that each become one vectored write. Both platforms use it, so a batch is accepted
 * or refused alike everywhere and is written as the same runs. Not part of the ABI. */
#ifndef CAIRN_WRITE_OPS_H
#define CAIRN_WRITE_OPS_H

#include "pal_common.h"

#include <stdint.h>

/* Largest ring cairn_io_configure accepts (the kernel's IORING_MAX_ENTRIES). Checked on every
 * platform, io_uring or not, so that a configuration is valid on all of them or on none. */
#define CAIRN_IO_MAX_RING_ENTRIES 32768

/* cairn_io_configure's options: known flags, a ring size in [0, CAIRN_IO_MAX_RING_ENTRIES] and a
 * zero reserved field. */
CAIRN_HIDDEN int cairn_io_options_valid(const cairn_io_options *options);

/* A batch of cairn_write_gather for a handle opened with `flags` (effective CAIRN_OPEN_*): a
 * non-negative count and no NULL array where there are ops; every op with data, a positive length
 * and an end that fits in 64 bits; sorted by offset and non-overlapping; on a DIRECT handle,
 * offsets, lengths and addresses aligned. Checked whole before anything is written, so a bad batch
 * fails without a partial write. */
CAIRN_HIDDEN int cairn_write_ops_valid(int32_t flags, const cairn_write_op *ops, int32_t count);

/* How many ops from ops[0] form one run: each starts where the previous one ends, and there are at
 * most `max_ops` of them (the buffers one write call can take). `ops` must be a valid batch with
 * count >= 1; the result is between 1 and min(count, max_ops). */
CAIRN_HIDDEN int32_t cairn_write_run_length(const cairn_write_op *ops, int32_t count, int32_t max_ops);

#endif
