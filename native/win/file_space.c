/* Growing, reserving, zeroing and releasing the space of a file (Windows). */
#include "win_internal.h"

#include "io_checks.h"

/* Zeroing writes this much per call from one page-aligned, zero-filled allocation. */
#define ZERO_CHUNK ((int64_t)1 << 20)

static DWORD set_end_of_file(HANDLE handle, int64_t size)
{
    FILE_END_OF_FILE_INFO info;
    info.EndOfFile.QuadPart = size;
    return SetFileInformationByHandle(handle, FileEndOfFileInfo, &info, sizeof info) ? 0 : cairn_win_last_error();
}

static DWORD set_allocation(HANDLE handle, int64_t size)
{
    FILE_ALLOCATION_INFO info;
    info.AllocationSize.QuadPart = size;
    return SetFileInformationByHandle(handle, FileAllocationInfo, &info, sizeof info) ? 0 : cairn_win_last_error();
}

static DWORD file_attributes(HANDLE handle, DWORD *attributes)
{
    FILE_BASIC_INFO basic;
    if (!GetFileInformationByHandleEx(handle, FileBasicInfo, &basic, sizeof basic))
        return cairn_win_last_error();
    *attributes = basic.FileAttributes;
    return 0;
}

CAIRN_EXPORT int32_t cairn_file_set_size(cairn_file *file, int64_t size, int32_t *os_error)
{
    if (file == NULL || size < 0)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    DWORD error = set_end_of_file(file->handle, size);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}

/* The EOPNOTSUPP of the header: what a file system (or an emulation such as Wine, which lacks
 * FileAllocationInfo) answers when it cannot reserve space at all. */
static int allocation_unsupported(DWORD error)
{
    return error == ERROR_INVALID_PARAMETER || cairn_status_from_os_error((int32_t)error) == CAIRN_E_UNSUPPORTED;
}

/* Windows reserves space per file, not per range: the allocation size counts from offset 0, so
 * reserving [offset, end) means growing the allocation to `end`. */
CAIRN_EXPORT int32_t cairn_file_allocate(cairn_file *file, int64_t offset, int64_t length,
                                         int32_t *allocated, int32_t *os_error)
{
    if (file == NULL || allocated == NULL || !cairn_is_valid_range(offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    *allocated = 1;
    if (length == 0)
        return cairn_ok(os_error); /* nothing to reserve, and fallocate(2) would not grow the file */
    const int64_t end = offset + length;

    int64_t growth = 0;
    int32_t injected = 0;
    if (cairn_fault_on_allocate(file->path, &growth, &injected)) {
        FILE_STANDARD_INFO current;
        if (!GetFileInformationByHandleEx(file->handle, FileStandardInfo, &current, sizeof current))
            return cairn_win_fail(cairn_win_last_error(), os_error);
        int64_t partial = current.EndOfFile.QuadPart + growth < end ? current.EndOfFile.QuadPart + growth : end;
        DWORD error = partial > current.EndOfFile.QuadPart ? set_end_of_file(file->handle, partial) : 0;
        return error != 0 ? cairn_win_fail(error, os_error) : cairn_fail(injected, os_error);
    }

    FILE_STANDARD_INFO standard;
    if (!GetFileInformationByHandleEx(file->handle, FileStandardInfo, &standard, sizeof standard))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    DWORD attributes = 0;
    DWORD error = file_attributes(file->handle, &attributes);
    if (error != 0)
        return cairn_win_fail(error, os_error);

    /* A sparse or compressed file's allocation can be below its end, where setting it would
     * truncate the file; and holes inside it cannot be reserved anyway. */
    int reserved = !(attributes & (FILE_ATTRIBUTE_SPARSE_FILE | FILE_ATTRIBUTE_COMPRESSED));
    if (reserved && end > standard.AllocationSize.QuadPart) {
        error = set_allocation(file->handle, end);
        if (error != 0 && !allocation_unsupported(error))
            return cairn_win_fail(error, os_error); /* ERROR_DISK_FULL among others */
        reserved = error == 0;
    }
    if (end > standard.EndOfFile.QuadPart) {
        error = set_end_of_file(file->handle, end);
        if (error != 0)
            return cairn_win_fail(error, os_error);
    }
    *allocated = reserved;
    return cairn_ok(os_error);
}

/* Explicit zeros move NTFS's valid data length past the range, so later write-through writes
 * there are plain overwrites instead of extending the valid data length (which zero-fills and
 * updates metadata inside the commit). */
CAIRN_EXPORT int32_t cairn_file_zero(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    if (file == NULL || !cairn_is_valid_write_range(file->flags, offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    if (length > 0) {
        SIZE_T chunk = (SIZE_T)(length < ZERO_CHUNK ? length : ZERO_CHUNK);
        /* VirtualAlloc's pages are page-aligned and already zero, as unbuffered writes need. */
        void *zeros = VirtualAlloc(NULL, chunk, MEM_COMMIT | MEM_RESERVE, PAGE_READONLY);
        if (zeros == NULL)
            return cairn_win_fail(cairn_win_last_error(), os_error);
        int32_t status = CAIRN_OK;
        for (int64_t done = 0; done < length && status == CAIRN_OK;) {
            int64_t left = length - done;
            cairn_buffer buffer = {zeros, left < (int64_t)chunk ? left : (int64_t)chunk};
            status = cairn_win_write_all(file, &buffer, 1, offset + done, os_error);
            done += buffer.length;
        }
        VirtualFree(zeros, 0, MEM_RELEASE);
        if (status != CAIRN_OK)
            return status;
    }
    return cairn_win_flush(file, os_error);
}

/* Only sparse files can give space back: on any other file FSCTL_SET_ZERO_DATA writes zeros over
 * the range, which costs the I/O a hole is meant to save and frees nothing. Such files report
 * CAIRN_E_UNSUPPORTED (os_error 0) and are left untouched, as a file system without hole
 * punching is on POSIX. Nothing here makes files sparse: that would also weaken
 * cairn_file_allocate on them. */
CAIRN_EXPORT int32_t cairn_file_punch_hole(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error)
{
    if (file == NULL || !cairn_is_valid_range(offset, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (length == 0)
        return cairn_ok(os_error);
    DWORD attributes = 0;
    DWORD error = file_attributes(file->handle, &attributes);
    if (error != 0)
        return cairn_win_fail(error, os_error);
    if (!(attributes & FILE_ATTRIBUTE_SPARSE_FILE))
        return cairn_status(CAIRN_E_UNSUPPORTED, os_error);

    FILE_ZERO_DATA_INFORMATION range;
    range.FileOffset.QuadPart = offset;
    range.BeyondFinalZero.QuadPart = offset + length;
    cairn_win_io io;
    error = cairn_win_io_begin(&io, file, 0);
    if (error != 0)
        return cairn_win_fail(error, os_error);
    DWORD returned = 0;
    BOOL issued = DeviceIoControl(file->handle, FSCTL_SET_ZERO_DATA, &range, sizeof range, NULL, 0,
                                  cairn_win_io_sync_count(&io, &returned), &io.overlapped);
    error = cairn_win_io_wait(&io, issued, &returned);
    cairn_win_io_end(&io);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}
