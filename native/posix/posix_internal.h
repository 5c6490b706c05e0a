/* POSIX internals shared by the files of native/posix. Not part of the ABI. */
#ifndef CAIRN_POSIX_INTERNAL_H
#define CAIRN_POSIX_INTERNAL_H

#include "pal_common.h"

#include <sys/uio.h> /* struct iovec in the prototypes below */

struct cairn_file {
    int fd;
    int32_t flags;   /* effective CAIRN_OPEN_* flags */
    char *path;      /* owned copy, for fault filters and diagnostics */
};

/* pwritev of all `count` buffers at `offset`, in batches of at most IOV_MAX, looping on short
 * writes, honouring the fault hooks; returns CAIRN_OK or a status with *os_error set.
 * The io_uring worker's pwritev backend and cairn_file_write both use it. */
CAIRN_HIDDEN int32_t cairn_posix_pwritev_all(struct cairn_file *file, const struct iovec *iov, int count,
                                             int64_t offset, int32_t *os_error);

/* <linux/ioprio.h> varies between releases (enum vs. macros); the ABI values are fixed. */
#define CAIRN_IOPRIO_WHO_PROCESS 1
#define CAIRN_IOPRIO_CLASS_BE 2
#define CAIRN_IOPRIO_CLASS_SHIFT 13
#define CAIRN_IOPRIO_VALUE(cls, data) (((cls) << CAIRN_IOPRIO_CLASS_SHIFT) | (data))

/* fdatasync honouring the sync fault hook. */
CAIRN_HIDDEN int32_t cairn_posix_fdatasync(struct cairn_file *file, int32_t *os_error);

#endif
