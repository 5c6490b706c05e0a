/* The io_uring half of the data-file writer for builds without liburing (CAIRN_WITH_URING=OFF: the
 * linux-arm64 build that runs under qemu-user, which has no io_uring either). The writer asks for a
 * ring, is told ENOSYS, as by a kernel without io_uring, and writes through pwritev; everything
 * else (validation, runs, faults, lifecycle) is the same code as in the io_uring build. */
#include "io_writer.h"

#include <errno.h>
#include <stdlib.h>

int cairn_uring_start(unsigned entries, int low_priority)
{
    (void)entries;
    (void)low_priority;
    return ENOSYS;
}

void cairn_uring_stop(void)
{
}

void cairn_uring_push(struct cairn_io_work *newest, struct cairn_io_work *oldest)
{
    /* Only reached with the io_uring backend in use, which this build never chooses. */
    (void)newest;
    (void)oldest;
    abort();
}

void cairn_uring_forget_after_fork(void)
{
}

void cairn_uring_test_inject_fatal_error(int32_t error)
{
    (void)error;
}
