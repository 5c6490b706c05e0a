/* Internals of the data-file writer, shared by io_writer.c (the exports: planning, backend choice,
 * lifecycle, waiting for completion) and io_uring_worker.c (the ring and the thread that owns it).
 * Not part of the ABI. */
#ifndef CAIRN_IO_WRITER_H
#define CAIRN_IO_WRITER_H

#include "posix_internal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Ring size when cairn_io_configure asks for 0 (its upper limit is in common/write_ops.h). */
#define CAIRN_IO_DEFAULT_RING_ENTRIES 256

/* One cairn_write_gather / cairn_sync_gather call as the worker sees it. It lives on the caller's
 * stack; the worker touches it only up to the decrement of `pending` that reaches zero, after
 * which it writes notify_fd (read beforehand) exactly once and forgets the call. */
struct cairn_io_call {
    atomic_int pending;   /* work items not yet complete */
    atomic_int error;     /* first errno an item reported; 0 if none */
    int notify_fd;        /* the calling thread's eventfd */
};

enum { CAIRN_WORK_WRITE = 1, CAIRN_WORK_SYNC = 2 };

/* One SQE's worth of work: a vectored write of up to IOV_MAX buffers at one offset, or a data
 * sync. Items of one call are allocated together and owned by the caller; the worker owns them
 * from the push until it completes them. */
struct cairn_io_work {
    struct cairn_io_work *next;                  /* submission stack, then the worker's queue */
    struct cairn_io_work *ring_prev, *ring_next; /* the worker's list of items with an SQE out */
    struct cairn_io_call *call;
    const char *path;                            /* the file's path, for the fault hooks */
    struct iovec *iov;                           /* first buffer not completely written */
    int64_t offset;                              /* file offset of the first unwritten byte */
    int64_t remaining;                           /* bytes still to write */
    int32_t iov_count;                           /* buffers left, starting at iov */
    int32_t fd;
    int32_t kind;                                /* CAIRN_WORK_* */
    int32_t capped_index;                        /* buffer shortened for the SQE in flight, or -1 */
    size_t capped_length;                        /* that buffer's real length */
    int32_t retries;                             /* EINTR/EAGAIN resubmissions in a row */
};

/* Creates the ring (`entries` SQEs, at least 2) and starts the worker thread. Returns 0, or the
 * errno that makes io_uring unusable here. The caller serialises start, stop and fork handling. */
CAIRN_HIDDEN int cairn_uring_start(unsigned entries, int low_priority);

/* Stops the worker once it has nothing in flight, joins it and releases the ring. No call may be
 * submitting when this runs. */
CAIRN_HIDDEN void cairn_uring_stop(void);

/* Hands one call's items to the worker and wakes it: `newest` ... `oldest` must already be linked
 * through `next` (newest->next ... == oldest); the worker runs them oldest first. */
CAIRN_HIDDEN void cairn_uring_push(struct cairn_io_work *newest, struct cairn_io_work *oldest);

/* In a child after fork(): drop the parent's ring and worker state without touching the parent's
 * (the child has no worker thread; the next use starts a fresh one). */
CAIRN_HIDDEN void cairn_uring_forget_after_fork(void);

/* Tests only: the worker's next io_uring_enter is treated as having failed with `error` (a fatal
 * ring error) without being made, so the degraded path can be exercised. */
CAIRN_HIDDEN void cairn_uring_test_inject_fatal_error(int32_t error);

#endif
