/* Windows internals shared by the files of native/win. Not part of the ABI.
 *
 * The fault hooks of common/faults.c carry OS errors through unchanged, so on Windows the
 * injected_error a test arms is a GetLastError() code (ERROR_DISK_FULL, not ENOSPC). */
#ifndef CAIRN_WIN_INTERNAL_H
#define CAIRN_WIN_INTERNAL_H

/* FileIdInfo, FileStorageInfo and WIN32_MEMORY_RANGE_ENTRY are only declared for Windows 8 and
 * later. Each use has a run-time fallback and nothing newer than Vista is imported statically, so
 * the DLL still loads on Windows 7. */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#  undef _WIN32_WINNT
#  define _WIN32_WINNT 0x0602
#endif
#ifndef WIN32_LEAN_AND_MEAN
#  define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winioctl.h>
#include <wchar.h>

#include "pal_common.h"

struct cairn_file {
    HANDLE handle;
    /* Effective CAIRN_OPEN_* flags. CAIRN_OPEN_DIRECT also means the handle was opened with
     * FILE_FLAG_OVERLAPPED (WriteFileGather needs it), so every positional call on it waits on an
     * event of its own. */
    int32_t flags;
    char *path;                 /* owned UTF-8 copy, for fault filters and diagnostics */
    volatile LONG io_priority;  /* PRIORITY_HINT the writer last set + 1; 0 = never set */
    volatile LONG locked;       /* 1 once cairn_file_lock took the lock through this handle */
};

/* Per-call byte cap: ReadFile/WriteFile take DWORD lengths, and a multiple of
 * CAIRN_DIRECT_IO_ALIGNMENT keeps every chunk of an unbuffered transfer aligned. */
#define CAIRN_WIN_MAX_IO ((int64_t)1 << 30)

/* GetLastError() after a failed call. Every helper here reports failure as a nonzero code, and
 * an API that fails without setting one must not read as success. */
static inline DWORD cairn_win_last_error(void)
{
    DWORD error = GetLastError();
    return error != 0 ? error : ERROR_INTERNAL_ERROR;
}

static inline int32_t cairn_win_fail(DWORD error, int32_t *os_error)
{
    return cairn_fail((int32_t)error, os_error);
}

static inline int cairn_win_is_overlapped(const struct cairn_file *file)
{
    return (file->flags & CAIRN_OPEN_DIRECT) != 0;
}

/* --- wide_path.c ------------------------------------------------------------------------ */

/* UTF-8 to the wide path the W APIs take, usable at any length; free() the result.
 * Returns 0 or a Windows error code. */
CAIRN_HIDDEN DWORD cairn_win_wide_path(const char *utf8, wchar_t **wide);
/* The directory holding `path` as a malloc'd UTF-8 string, or NULL when out of memory. */
CAIRN_HIDDEN char *cairn_win_parent_directory(const char *path);

/* --- io_win.c --------------------------------------------------------------------------- */

/* One positional call (ReadFile, WriteFile, WriteFileGather, LockFileEx, DeviceIoControl) on
 * either kind of handle: begin, issue the call with &io.overlapped, wait, end. */
typedef struct cairn_win_io {
    OVERLAPPED overlapped;
    HANDLE handle;
} cairn_win_io;

CAIRN_HIDDEN DWORD cairn_win_io_begin(cairn_win_io *io, const struct cairn_file *file, int64_t offset);
/* `issued` is the call's return value; *transferred receives the byte count. Returns 0 or the
 * Windows error code of the call. */
CAIRN_HIDDEN DWORD cairn_win_io_wait(cairn_win_io *io, BOOL issued, DWORD *transferred);
CAIRN_HIDDEN void cairn_win_io_end(cairn_win_io *io);

/* Where the call itself may report the byte count: only synchronous handles, since on an
 * overlapped handle that count is unreliable and GetOverlappedResult gives it. */
static inline DWORD *cairn_win_io_sync_count(cairn_win_io *io, DWORD *count)
{
    return io->overlapped.hEvent == NULL ? count : NULL;
}

CAIRN_HIDDEN DWORD cairn_win_page_size(void);

/* Writes all `count` buffers back to back at `offset`, looping on short writes and honouring the
 * fault hooks; WriteFileGather where the handle and buffers allow it, WriteFile otherwise.
 * cairn_file_write, cairn_file_zero and the data-file writer all go through it. */
CAIRN_HIDDEN int32_t cairn_win_write_all(struct cairn_file *file, const cairn_buffer *buffers, int count,
                                         int64_t offset, int32_t *os_error);

/* FlushFileBuffers honouring the sync fault hook. */
CAIRN_HIDDEN int32_t cairn_win_flush(struct cairn_file *file, int32_t *os_error);

#endif
