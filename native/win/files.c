/* Opening, closing, sizing, syncing and locking files (Windows). */
#include "win_internal.h"

#include <stdlib.h>
#include <string.h>

#define KNOWN_OPEN_FLAGS (CAIRN_OPEN_READ_ONLY | CAIRN_OPEN_CREATE | CAIRN_OPEN_CREATE_NEW | \
                          CAIRN_OPEN_DIRECT | CAIRN_OPEN_DSYNC | CAIRN_OPEN_SEQUENTIAL)

/* Windows byte-range locks are mandatory: locking real bytes would make reads and writes through
 * every other handle (our own included) fail with ERROR_LOCK_VIOLATION. One byte far past any
 * file's end carries the lock instead, which then behaves like the advisory flock of POSIX. */
#define LOCK_OFFSET ((int64_t)1 << 62)

static DWORD creation_disposition(int32_t flags)
{
    if (flags & CAIRN_OPEN_CREATE_NEW)
        return CREATE_NEW;
    if (flags & CAIRN_OPEN_CREATE)
        return OPEN_ALWAYS;
    return OPEN_EXISTING;
}

static DWORD flags_and_attributes(int32_t flags)
{
    DWORD result = FILE_ATTRIBUTE_NORMAL;
    if (flags & CAIRN_OPEN_DIRECT)
        result |= FILE_FLAG_NO_BUFFERING | FILE_FLAG_OVERLAPPED; /* WriteFileGather needs both */
    if (flags & CAIRN_OPEN_DSYNC)
        result |= FILE_FLAG_WRITE_THROUGH;
    if (flags & CAIRN_OPEN_SEQUENTIAL)
        result |= FILE_FLAG_SEQUENTIAL_SCAN;
    return result;
}

static HANDLE open_handle(const wchar_t *path, int32_t flags, DWORD disposition)
{
    DWORD access = GENERIC_READ | ((flags & CAIRN_OPEN_READ_ONLY) ? 0 : GENERIC_WRITE);
    /* Full sharing, as on POSIX: readers map data files other handles write, and a file in use
     * can still be renamed over or deleted. */
    DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
    return CreateFileW(path, access, share, NULL, disposition, flags_and_attributes(flags), NULL);
}

static int direct_refused(DWORD error)
{
    return error == ERROR_INVALID_PARAMETER || cairn_status_from_os_error((int32_t)error) == CAIRN_E_UNSUPPORTED;
}

/* Unbuffered transfers must be whole logical sectors; on a volume whose sectors are larger than
 * the unit the engine aligns to, every unbuffered write would fail, which is the file system
 * refusing DIRECT as surely as a failed open. */
static int sectors_too_large(HANDLE handle)
{
    FILE_STORAGE_INFO storage;
    if (!GetFileInformationByHandleEx(handle, FileStorageInfo, &storage, sizeof storage))
        return 0; /* before Windows 8, or a file system that cannot say: trust the open */
    DWORD sector = storage.LogicalBytesPerSector;
    return sector != 0 && (sector > CAIRN_DIRECT_IO_ALIGNMENT || CAIRN_DIRECT_IO_ALIGNMENT % sector != 0);
}

static int32_t without_direct(int32_t flags)
{
    return (flags & ~CAIRN_OPEN_DIRECT) | CAIRN_OPEN_DIRECT_FALLBACK;
}

/* Opens with `*flags`, dropping DIRECT (and saying so in *flags) where the file system refuses it.
 * Returns the handle or INVALID_HANDLE_VALUE with *error set. */
static HANDLE open_with_fallback(const wchar_t *path, int32_t *flags, DWORD *error)
{
    DWORD disposition = creation_disposition(*flags);
    HANDLE handle = open_handle(path, *flags, disposition);
    *error = handle == INVALID_HANDLE_VALUE ? cairn_win_last_error() : 0;
    if (!(*flags & CAIRN_OPEN_DIRECT))
        return handle;

    if (handle == INVALID_HANDLE_VALUE) {
        if (!direct_refused(*error))
            return handle;
    } else if (sectors_too_large(handle)) {
        CloseHandle(handle);
        disposition = OPEN_EXISTING; /* the first open may have created it */
    } else {
        return handle;
    }
    *flags = without_direct(*flags);
    handle = open_handle(path, *flags, disposition);
    *error = handle == INVALID_HANDLE_VALUE ? cairn_win_last_error() : 0;
    return handle;
}

static struct cairn_file *new_file(HANDLE handle, int32_t flags, const char *path)
{
    struct cairn_file *file = calloc(1, sizeof *file);
    size_t length = strlen(path) + 1;
    char *copy = malloc(length);
    if (file == NULL || copy == NULL) {
        free(file);
        free(copy);
        return NULL;
    }
    memcpy(copy, path, length);
    file->handle = handle;
    file->flags = flags;
    file->path = copy;
    return file;
}

CAIRN_EXPORT int32_t cairn_file_open(const char *path, int32_t flags, cairn_file **file,
                                     int32_t *effective_flags, int32_t *os_error)
{
    if (path == NULL || file == NULL || effective_flags == NULL || (flags & ~KNOWN_OPEN_FLAGS) != 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    wchar_t *wide = NULL;
    DWORD error = cairn_win_wide_path(path, &wide);
    if (error != 0)
        return cairn_win_fail(error, os_error);

    int32_t effective = flags;
    HANDLE handle = open_with_fallback(wide, &effective, &error);
    free(wide);
    if (handle == INVALID_HANDLE_VALUE)
        return cairn_win_fail(error, os_error);

    struct cairn_file *opened = new_file(handle, effective, path);
    if (opened == NULL) {
        CloseHandle(handle);
        return cairn_status(CAIRN_E_OUT_OF_MEMORY, os_error);
    }
    *file = opened;
    *effective_flags = effective;
    return cairn_ok(os_error);
}

/* The system drops a closed handle's locks only "eventually"; unlocking first lets the next
 * opener take the lock at once. */
static void release_lock(struct cairn_file *file)
{
    if (!InterlockedCompareExchange(&file->locked, 0, 0))
        return;
    cairn_win_io io;
    if (cairn_win_io_begin(&io, file, LOCK_OFFSET) != 0)
        return;
    BOOL issued = UnlockFileEx(file->handle, 0, 1, 0, &io.overlapped);
    DWORD ignored = 0;
    (void)cairn_win_io_wait(&io, issued, &ignored);
    cairn_win_io_end(&io);
}

CAIRN_EXPORT int32_t cairn_file_close(cairn_file *file, int32_t *os_error)
{
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    release_lock(file);
    BOOL closed = CloseHandle(file->handle);
    DWORD error = closed ? 0 : cairn_win_last_error();
    free(file->path);
    free(file);
    return closed ? cairn_ok(os_error) : cairn_win_fail(error, os_error);
}

CAIRN_EXPORT int32_t cairn_file_size(cairn_file *file, int64_t *size, int32_t *os_error)
{
    if (file == NULL || size == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    LARGE_INTEGER value;
    if (!GetFileSizeEx(file->handle, &value))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    *size = value.QuadPart;
    return cairn_ok(os_error);
}

/* FlushFileBuffers flushes data and metadata alike; Windows has no fdatasync. It needs write
 * access, so on a read-only handle it fails with ERROR_ACCESS_DENIED rather than pretending. */
CAIRN_EXPORT int32_t cairn_file_sync(cairn_file *file, int32_t *os_error)
{
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    return cairn_win_flush(file, os_error);
}

/* Windows has no per-range read-ahead request for a file handle; its cache manager reads ahead of
 * sequential reads by itself, so the hint has nothing to add. */
CAIRN_EXPORT int32_t cairn_file_prefetch(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    if (file == NULL || offset < 0 || length < 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    return cairn_ok(os_error);
}

/* Byte-range locks do not nest: a second LockFileEx through the handle that holds the range fails
 * with ERROR_LOCK_VIOLATION as if someone else held it. flock(2) lets the holder ask again, and the
 * header promises CAIRN_E_LOCKED only for another holder, so the handle remembers its lock. */
CAIRN_EXPORT int32_t cairn_file_lock(cairn_file *file, int32_t *os_error)
{
    if (file == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (InterlockedCompareExchange(&file->locked, 0, 0))
        return cairn_ok(os_error);
    cairn_win_io io;
    DWORD error = cairn_win_io_begin(&io, file, LOCK_OFFSET);
    if (error != 0)
        return cairn_win_fail(error, os_error);
    BOOL issued = LockFileEx(file->handle, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
                             &io.overlapped);
    DWORD ignored = 0;
    error = cairn_win_io_wait(&io, issued, &ignored);
    cairn_win_io_end(&io);
    if (error == 0)
        InterlockedExchange(&file->locked, 1);
    else if (error == ERROR_LOCK_VIOLATION && InterlockedCompareExchange(&file->locked, 0, 0))
        error = 0; /* another thread took it through this same handle meanwhile */
    /* ERROR_LOCK_VIOLATION, classified as CAIRN_E_LOCKED, when another handle holds it. */
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}
