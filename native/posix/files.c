/* File handles (POSIX): open/close, size and space management, sync, locking and synchronous
 * reads and writes. Every write goes through cairn_posix_pwritev_all so the short-write loop,
 * IOV_MAX batching and fault hooks apply here exactly as in the data-file writer. */
#include "posix_files.h"

#include "io_checks.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* cairn_file_write hands the caller's cairn_buffer array to pwritev as-is, so the two layouts must
 * match exactly; this holds on every 64-bit POSIX ABI and is checked rather than assumed. */
_Static_assert(sizeof(cairn_buffer) == sizeof(struct iovec), "cairn_buffer must match struct iovec");
_Static_assert(offsetof(cairn_buffer, data) == offsetof(struct iovec, iov_base), "iov_base offset");
_Static_assert(offsetof(cairn_buffer, length) == offsetof(struct iovec, iov_len), "iov_len offset");
_Static_assert(sizeof(((cairn_buffer *)0)->length) == sizeof(((struct iovec *)0)->iov_len), "iov_len size");

#define REQUEST_FLAGS (CAIRN_OPEN_READ_ONLY | CAIRN_OPEN_CREATE | CAIRN_OPEN_CREATE_NEW | \
                       CAIRN_OPEN_DIRECT | CAIRN_OPEN_DSYNC | CAIRN_OPEN_SEQUENTIAL)

/* Zeroing writes 1 MiB per pwritev. A journal is zeroed through its O_DIRECT|O_DSYNC handle while
 * commits append to the active journal on the same disk (spare journals are prepared in the
 * background), and a commit's 4 KiB write can queue behind one whole zeroing write: 16 MiB per call
 * made that wait up to about 10 ms here, 1 MiB keeps it near a millisecond. The extra syscalls (256
 * for a 256 MiB journal) cost nothing next to the writes. */
#define ZERO_CHUNK_BYTES (1 << 20)
#define ZERO_CHUNKS_PER_CALL 1

int cairn_posix_enable_direct(int fd)
{
    int current = fcntl(fd, F_GETFL);
    if (current < 0)
        return errno;
    if (fcntl(fd, F_SETFL, current | O_DIRECT) != 0)
        return errno;
    return 0;
}

static int os_open_flags(int32_t flags)
{
    int os = O_CLOEXEC | ((flags & CAIRN_OPEN_READ_ONLY) ? O_RDONLY : O_RDWR);
    if (flags & CAIRN_OPEN_CREATE_NEW)
        os |= O_CREAT | O_EXCL;
    else if (flags & CAIRN_OPEN_CREATE)
        os |= O_CREAT;
    if (flags & CAIRN_OPEN_DSYNC)
        os |= O_DSYNC;
    return os;
}

static int open_retrying(const char *path, int os_flags)
{
    int fd;
    do {
        /* 0666: the process umask, not the engine, decides who may read the store. */
        fd = open(path, os_flags, 0666);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

/* Applies the flags open(2) cannot: direct I/O (with its fallback) and the readahead hint.
 * Returns 0 or an errno, and the flags in effect. */
static int apply_open_flags(int fd, int32_t requested, int32_t *effective)
{
    *effective = requested;
    if (requested & CAIRN_OPEN_DIRECT) {
        int error = cairn_posix_enable_direct(fd);
        if (error == EINVAL)
            *effective = (requested & ~CAIRN_OPEN_DIRECT) | CAIRN_OPEN_DIRECT_FALLBACK;
        else if (error != 0)
            return error;
    }
    /* Only a hint: a file system that ignores it reads correctly anyway, so it cannot fail the open. */
    if (requested & CAIRN_OPEN_SEQUENTIAL)
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return 0;
}

CAIRN_EXPORT int32_t cairn_file_open(const char *path, int32_t flags, cairn_file **file,
                                     int32_t *effective_flags, int32_t *os_error)
{
    if (path == NULL || file == NULL || effective_flags == NULL || (flags & ~REQUEST_FLAGS) != 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    struct cairn_file *handle = malloc(sizeof *handle);
    char *path_copy = strdup(path);
    if (handle == NULL || path_copy == NULL) {
        free(handle);
        free(path_copy);
        return cairn_fail(ENOMEM, os_error);
    }

    int fd = open_retrying(path, os_open_flags(flags));
    int error = fd < 0 ? errno : 0;
    int32_t effective = 0;
    if (error == 0)
        error = apply_open_flags(fd, flags, &effective);
    if (error != 0) {
        if (fd >= 0)
            close(fd);
        free(handle);
        free(path_copy);
        return cairn_fail(error, os_error);
    }

    handle->fd = fd;
    handle->flags = effective;
    handle->path = path_copy;
    *file = handle;
    *effective_flags = effective;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_close(cairn_file *file, int32_t *os_error)
{
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* Unlock before closing: the flock belongs to the open file description, which a child forked by
     * any thread of the host shares until its exec closes it. Closing alone would leave the lock held
     * for that window, and a reopen right after a close would find the environment locked. */
    (void)flock(file->fd, LOCK_UN);
    int error = close(file->fd) != 0 ? errno : 0;
    free(file->path);
    free(file);
    /* Linux releases the descriptor even when close is interrupted, so EINTR is not a failure and
     * must not be retried (the number may already belong to another thread's file). */
    if (error != 0 && error != EINTR)
        return cairn_fail(error, os_error);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_size(cairn_file *file, int64_t *size, int32_t *os_error)
{
    if (file == NULL || size == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    struct stat st;
    if (fstat(file->fd, &st) != 0)
        return cairn_fail(errno, os_error);
    *size = (int64_t)st.st_size;
    return cairn_ok(os_error);
}

static int truncate_retrying(int fd, int64_t size)
{
    while (ftruncate(fd, (off_t)size) != 0) {
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

CAIRN_EXPORT int32_t cairn_file_set_size(cairn_file *file, int64_t size, int32_t *os_error)
{
    if (file == NULL || size < 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int error = truncate_retrying(file->fd, size);
    return error != 0 ? cairn_fail(error, os_error) : cairn_ok(os_error);
}

static int fallocate_retrying(int fd, int mode, int64_t offset, int64_t length)
{
    while (fallocate(fd, mode, (off_t)offset, (off_t)length) != 0) {
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

/* The allocate fallback: like fallocate mode 0, it only ever grows the file. */
static int grow_to(int fd, int64_t end)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    return st.st_size < end ? truncate_retrying(fd, end) : 0;
}

CAIRN_EXPORT int32_t cairn_file_allocate(cairn_file *file, int64_t offset, int64_t length,
                                         int32_t *allocated, int32_t *os_error)
{
    if (file == NULL || allocated == NULL || !cairn_is_valid_range(offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    *allocated = 1;
    if (length == 0)
        return cairn_ok(os_error); /* fallocate(2) rejects an empty range; there is nothing to reserve */

    int64_t growth = 0;
    int32_t injected = 0;
    if (cairn_fault_on_allocate(file->path, &growth, &injected)) {
        struct stat st;
        int error = fstat(file->fd, &st) != 0 ? errno : 0;
        int64_t end = st.st_size + growth < offset + length ? st.st_size + growth : offset + length;
        if (error == 0)
            error = grow_to(file->fd, end);
        return cairn_fail(error != 0 ? error : injected, os_error);
    }
    int error = fallocate_retrying(file->fd, 0, offset, length);
    if (error == EOPNOTSUPP || error == ENOSYS) {
        *allocated = 0;
        error = grow_to(file->fd, offset + length);
    }
    return error != 0 ? cairn_fail(error, os_error) : cairn_ok(os_error);
}

/* Writes zeros over the range from one aligned buffer repeated in each pwritev, so the memory
 * cost stays at one chunk whatever the length, and the buffer is valid for O_DIRECT. */
static int32_t write_zeros(struct cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    void *chunk = NULL;
    if (posix_memalign(&chunk, CAIRN_DIRECT_IO_ALIGNMENT, ZERO_CHUNK_BYTES) != 0)
        return cairn_fail(ENOMEM, os_error);
    memset(chunk, 0, ZERO_CHUNK_BYTES);

    int32_t status = cairn_ok(os_error);
    while (length > 0 && status == CAIRN_OK) {
        struct iovec iov[ZERO_CHUNKS_PER_CALL];
        int count = 0;
        int64_t batch = 0;
        for (; count < ZERO_CHUNKS_PER_CALL && batch < length; count++) {
            int64_t piece = length - batch < ZERO_CHUNK_BYTES ? length - batch : ZERO_CHUNK_BYTES;
            iov[count].iov_base = chunk;
            iov[count].iov_len = (size_t)piece;
            batch += piece;
        }
        status = cairn_posix_pwritev_all(file, iov, count, offset, os_error);
        offset += batch;
        length -= batch;
    }
    free(chunk);
    return status;
}

CAIRN_EXPORT int32_t cairn_file_zero(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    if (file == NULL || !cairn_is_valid_write_range(file->flags, offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int32_t status = write_zeros(file, offset, length, os_error);
    if (status != CAIRN_OK)
        return status;
    /* Synced even for an empty range: callers rely on "zero then durable" to cover a size change
     * made just before (cairn_journal_open). */
    return cairn_posix_fdatasync(file, os_error);
}

CAIRN_EXPORT int32_t cairn_file_punch_hole(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    if (file == NULL || !cairn_is_valid_range(offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (length == 0)
        return cairn_ok(os_error);
    int error = fallocate_retrying(file->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length);
    return error != 0 ? cairn_fail(error, os_error) : cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_sync(cairn_file *file, int32_t *os_error)
{
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    return cairn_posix_fdatasync(file, os_error);
}

CAIRN_EXPORT int32_t cairn_file_prefetch(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    if (file == NULL || offset < 0 || length < 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (length == 0)
        return cairn_ok(os_error);
    /* posix_fadvise returns the error instead of setting errno. Only EBADF and EINVAL are
     * possible, and neither makes the data unreadable, so a refused hint is not an error. */
    (void)posix_fadvise(file->fd, offset, length, POSIX_FADV_WILLNEED);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_lock(cairn_file *file, int32_t *os_error)
{
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* flock, not fcntl locks: fcntl locks belong to the process and are dropped when any descriptor
     * of the file is closed, so they cannot keep two stores in one process apart. */
    while (flock(file->fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EINTR)
            return cairn_fail(errno, os_error);
    }
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_read(cairn_file *file, void *buffer, int64_t length, int64_t offset,
                                     int64_t *bytes_read, int32_t *os_error)
{
    if (file == NULL || bytes_read == NULL || (buffer == NULL && length > 0) ||
        !cairn_is_valid_range(offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    int32_t injected = 0;
    if (cairn_fault_on_read(file->path, &injected)) {
        *bytes_read = 0;
        return cairn_fail(injected, os_error);
    }

    int64_t done = 0;
    while (done < length) {
        ssize_t n = pread(file->fd, (char *)buffer + done, (size_t)(length - done), (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        *bytes_read = done;
        if (n < 0)
            return cairn_fail(errno, os_error);
        if (n == 0)
            return cairn_status(CAIRN_E_END_OF_FILE, os_error);
        done += n;
    }
    *bytes_read = done;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_file_write(cairn_file *file, const cairn_buffer *buffers, int32_t count,
                                      int64_t offset, int32_t *os_error)
{
    if (file == NULL || !cairn_buffers_valid(file->flags, buffers, count, offset))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* Checked, so pwritev misreads nothing (a negative length would be a huge size_t) and O_DIRECT
     * refuses nothing halfway through the list. */
    return cairn_posix_pwritev_all(file, (const struct iovec *)buffers, count, offset, os_error);
}
