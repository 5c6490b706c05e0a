/* The synchronous write and sync primitives every POSIX write path goes through, so that the
 * short-write loop, the IOV_MAX batching and the fault hooks live in exactly one place. */
#include "posix_internal.h"

#include <errno.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* Advances the iovec window past `written` bytes; returns how many leading entries are done. */
static int consume(struct iovec *iov, int count, size_t written)
{
    int done = 0;
    while (done < count && written >= iov[done].iov_len) {
        written -= iov[done].iov_len;
        done++;
    }
    if (done < count && written > 0) {
        iov[done].iov_base = (char *)iov[done].iov_base + written;
        iov[done].iov_len -= written;
    }
    return done;
}

int32_t cairn_posix_pwritev_all(struct cairn_file *file, const struct iovec *source, int count,
                                int64_t offset, int32_t *os_error)
{
    struct iovec window[IOV_MAX];
    int next = 0; /* first entry of `source` not yet copied into the window */
    int in_window = 0;
    int start = 0; /* first live entry in the window */

    while (next < count || start < in_window) {
        if (start == in_window) {
            in_window = count - next < IOV_MAX ? count - next : IOV_MAX;
            for (int i = 0; i < in_window; i++)
                window[i] = source[next + i];
            next += in_window;
            start = 0;
        }

        int64_t batch_bytes = 0;
        for (int i = start; i < in_window; i++)
            batch_bytes += (int64_t)window[i].iov_len;
        if (batch_bytes == 0) {
            start = in_window;
            continue;
        }

        int64_t allowed = batch_bytes;
        int32_t injected = 0;
        int fault = cairn_fault_on_write(file->path, &allowed, &injected);
        if (fault == 1)
            return cairn_fail(injected, os_error);

        ssize_t written;
        if (fault == 2) {
            written = 0;
        } else if (allowed < batch_bytes) {
            /* Short-write fault: issue a write of exactly `allowed` bytes from the front. */
            struct iovec capped[IOV_MAX];
            int n = 0;
            int64_t left = allowed;
            for (int i = start; i < in_window && left > 0; i++, n++) {
                capped[n] = window[i];
                if ((int64_t)capped[n].iov_len > left)
                    capped[n].iov_len = (size_t)left;
                left -= (int64_t)capped[n].iov_len;
            }
            written = pwritev(file->fd, capped, n, offset);
        } else {
            written = pwritev(file->fd, window + start, in_window - start, offset);
        }

        if (written < 0) {
            if (errno == EINTR)
                continue;
            return cairn_fail(errno, os_error);
        }
        if (written == 0)
            return cairn_fail(ENOSPC, os_error); /* no progress on a regular file: the disk is full */

        offset += written;
        start += consume(window + start, in_window - start, (size_t)written);
    }
    return cairn_ok(os_error);
}

int32_t cairn_posix_fdatasync(struct cairn_file *file, int32_t *os_error)
{
    int32_t injected = 0;
    if (cairn_fault_on_sync(file->path, &injected))
        return cairn_fail(injected, os_error);
    while (fdatasync(file->fd) != 0) {
        if (errno != EINTR)
            return cairn_fail(errno, os_error);
    }
    return cairn_ok(os_error);
}
