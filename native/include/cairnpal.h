/*
 * cairnpal: Cairn's native platform abstraction layer.
 *
 * ABI rules (the managed side in src/Pal depends on every one of them):
 *  - Every export returns an int32_t status (CAIRN_OK or a CAIRN_E_* code) and, where an OS call
 *    failed, writes the OS error (errno on POSIX, GetLastError() on Windows) to *os_error.
 *    *os_error is set to 0 on success.
 *  - Only blittable types cross the boundary: fixed-width integers, pointers and the structs below,
 *    all naturally aligned with no implicit padding (each has a static size assertion in the
 *    implementation and a matching one on the managed side).
 *  - Paths are NUL-terminated UTF-8.
 *  - Handles are opaque pointers owned by the caller until passed to the matching close function.
 *  - Bump CAIRN_PAL_ABI_VERSION on any change to a signature, a struct, a constant or a semantic.
 */
#ifndef CAIRNPAL_H
#define CAIRNPAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define CAIRN_EXPORT __declspec(dllexport)
#else
#  define CAIRN_EXPORT __attribute__((visibility("default")))
#endif

#define CAIRN_PAL_ABI_VERSION 7

/* ---------------------------------------------------------------------------------------------
 * Status codes. The managed side maps each to a typed exception.
 * ------------------------------------------------------------------------------------------- */
#define CAIRN_OK                   0
#define CAIRN_E_OS                 1  /* an OS call failed with an error not classified below */
#define CAIRN_E_DISK_FULL          2  /* ENOSPC/EDQUOT, ERROR_DISK_FULL; also a zero-byte write */
#define CAIRN_E_NOT_FOUND          3  /* ENOENT, ERROR_FILE_NOT_FOUND/PATH_NOT_FOUND */
#define CAIRN_E_OUT_OF_MEMORY      4  /* ENOMEM, ERROR_NOT_ENOUGH_MEMORY/OUTOFMEMORY */
#define CAIRN_E_IO                 5  /* EIO, ERROR_CRC/IO_DEVICE */
#define CAIRN_E_ACCESS_DENIED      6  /* EACCES/EPERM/EROFS, ERROR_ACCESS_DENIED */
#define CAIRN_E_INVALID_ARGUMENT   7  /* bad argument from the caller (misaligned buffer, NULL) */
#define CAIRN_E_LOCKED             8  /* the file lock is held by someone else */
#define CAIRN_E_ALREADY_EXISTS     9  /* EEXIST, ERROR_FILE_EXISTS/ALREADY_EXISTS */
#define CAIRN_E_UNSUPPORTED       10  /* the platform or file system cannot do this */
#define CAIRN_E_END_OF_FILE       11  /* a read asked for bytes past the end of the file */
#define CAIRN_E_CROSS_DEVICE      12  /* EXDEV, ERROR_NOT_SAME_DEVICE: a link or rename across file systems */
#define CAIRN_E_TOO_MANY_LINKS    13  /* EMLINK, ERROR_TOO_MANY_LINKS: the file is at its link limit */

/* ---------------------------------------------------------------------------------------------
 * File open flags (cairn_file_open).
 * ------------------------------------------------------------------------------------------- */
#define CAIRN_OPEN_READ_ONLY   0x01  /* otherwise read/write */
#define CAIRN_OPEN_CREATE      0x02  /* create if missing */
#define CAIRN_OPEN_CREATE_NEW  0x04  /* fail with CAIRN_E_ALREADY_EXISTS if it exists */
#define CAIRN_OPEN_DIRECT      0x08  /* O_DIRECT / FILE_FLAG_NO_BUFFERING; dropped (and reported) where unsupported */
#define CAIRN_OPEN_DSYNC       0x10  /* O_DSYNC / FILE_FLAG_WRITE_THROUGH */
#define CAIRN_OPEN_SEQUENTIAL  0x20  /* readahead hint for recovery reads */
/* The effective flags returned by cairn_file_open may also carry: */
#define CAIRN_OPEN_DIRECT_FALLBACK 0x100 /* DIRECT was asked for and refused by the file system */

/* Journal files are opened with exactly these flags by cairn_journal_open. */
#define CAIRN_JOURNAL_FLAGS (CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT | CAIRN_OPEN_DSYNC)

/* O_DIRECT buffers, offsets and lengths must be multiples of this. */
#define CAIRN_DIRECT_IO_ALIGNMENT 4096

/* ---------------------------------------------------------------------------------------------
 * Blittable structs.
 * ------------------------------------------------------------------------------------------- */

/* One contiguous buffer; layout-compatible with struct iovec on 64-bit POSIX. 16 bytes. */
typedef struct cairn_buffer {
    const void *data;
    int64_t length;
} cairn_buffer;

/* One write of the data-file writer: length bytes from data at file offset. 24 bytes.
 * Arrays of these must be sorted by offset; adjacent runs (offset + length == next offset)
 * are merged into one vectored write of up to IOV_MAX buffers. */
typedef struct cairn_write_op {
    const void *data;
    int64_t offset;
    int64_t length;
} cairn_write_op;

/* What a directory's file system offers. 48 bytes. */
typedef struct cairn_fs_info {
    int64_t free_bytes;         /* available to an unprivileged caller */
    int64_t total_bytes;
    int64_t fs_type;            /* statfs f_type on Linux; 0 elsewhere */
    int32_t block_size;
    int32_t supports_direct_io; /* 1 if an O_DIRECT open and aligned write of a probe file succeeded */
    int32_t is_volatile;        /* 1 on tmpfs/ramfs: fsync and O_DIRECT prove nothing there */
    int32_t reserved;
    int64_t reserved2;
} cairn_fs_info;

/* io_uring worker configuration (cairn_io_configure). 16 bytes. */
typedef struct cairn_io_options {
    int32_t flags;          /* CAIRN_IO_* */
    int32_t ring_entries;   /* 0 = default (256) */
    int64_t reserved;
} cairn_io_options;

#define CAIRN_IO_LOW_PRIORITY   0x01  /* IOPRIO_CLASS_BE level 7 for data-file writes and syncs */
#define CAIRN_IO_FORCE_PWRITEV  0x02  /* never try io_uring */

/* Backends of the data-file writer (cairn_io_backend, cairn_write_gather's mode). */
#define CAIRN_BACKEND_AUTO      0  /* only as a mode: whatever the process-wide writer chose */
#define CAIRN_BACKEND_IO_URING  1
#define CAIRN_BACKEND_PWRITEV   2
#define CAIRN_BACKEND_WIN32     3  /* WriteFileGather / WriteFile on Windows */

/* Fault hooks for tests (cairn_test_set_fault). Inert unless armed; one relaxed load per call. */
#define CAIRN_FAULT_NONE             0
#define CAIRN_FAULT_WRITE_ERROR      1  /* the n-th write syscall fails with os_error */
#define CAIRN_FAULT_SHORT_WRITE      2  /* every write syscall writes at most `limit` bytes */
#define CAIRN_FAULT_ZERO_WRITE       3  /* the n-th write syscall returns 0 (reported as disk full) */
#define CAIRN_FAULT_SYNC_ERROR       4  /* the n-th sync fails with os_error */
#define CAIRN_FAULT_URING_SETUP      5  /* io_uring setup fails with os_error */
#define CAIRN_FAULT_ALLOCATE_ERROR   6  /* the n-th allocate grows the file by at most `limit` bytes, then fails with os_error */
#define CAIRN_FAULT_LINK_ERROR       7  /* the n-th hard link whose new link path matches fails with os_error, creating nothing */
#define CAIRN_FAULT_READ_ERROR       8  /* the n-th cairn_file_read of a matching path fails with os_error, reading nothing */

typedef struct cairn_file cairn_file; /* opaque */

/* ---------------------------------------------------------------------------------------------
 * Library.
 * ------------------------------------------------------------------------------------------- */
CAIRN_EXPORT int32_t cairn_get_abi_version(int32_t *version, int32_t *os_error);
/* The OS's message for os_error, NUL-terminated and truncated to fit; *written excludes the NUL. */
CAIRN_EXPORT int32_t cairn_error_string(int32_t os_error_in, char *buffer, int32_t buffer_size,
                                        int32_t *written, int32_t *os_error);
/* Classify an OS error into a CAIRN_E_* status (what every export uses internally). */
CAIRN_EXPORT int32_t cairn_classify_error(int32_t os_error_in, int32_t *status, int32_t *os_error);

/* ---------------------------------------------------------------------------------------------
 * Files (data files and journals share one handle type).
 * ------------------------------------------------------------------------------------------- */
CAIRN_EXPORT int32_t cairn_file_open(const char *path, int32_t flags, cairn_file **file,
                                     int32_t *effective_flags, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_file_close(cairn_file *file, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_file_size(cairn_file *file, int64_t *size, int32_t *os_error);
/* Grow or shrink to exactly `size` (sparse growth). */
CAIRN_EXPORT int32_t cairn_file_set_size(cairn_file *file, int64_t size, int32_t *os_error);
/* Reserve blocks for [offset, offset+length) and extend the file to cover it; where the file system
 * cannot (EOPNOTSUPP), extend with set_size instead and report *allocated = 0. */
CAIRN_EXPORT int32_t cairn_file_allocate(cairn_file *file, int64_t offset, int64_t length,
                                         int32_t *allocated, int32_t *os_error);
/* Write zeros over [offset, offset+length) so later O_DSYNC writes land on written blocks
 * (no unwritten-extent conversion inside each commit), then data-sync. */
CAIRN_EXPORT int32_t cairn_file_zero(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_file_punch_hole(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_file_sync(cairn_file *file, int32_t *os_error); /* fdatasync */
/* Start reading [offset, offset + length) into the OS cache in the background (POSIX_FADV_WILLNEED;
 * on Windows a no-op, where the cache manager reads ahead of sequential handles by itself). A hint:
 * it never reads into a buffer and never fails for a file system that ignores it. */
CAIRN_EXPORT int32_t cairn_file_prefetch(cairn_file *file, int64_t offset, int64_t length, int32_t *os_error);
/* Exclusive, non-blocking advisory lock held until close: CAIRN_E_LOCKED if another holder has it. */
CAIRN_EXPORT int32_t cairn_file_lock(cairn_file *file, int32_t *os_error);

/* Read exactly `length` bytes at `offset` (loops on short reads); CAIRN_E_END_OF_FILE and
 * *bytes_read < length when the file ends first. */
CAIRN_EXPORT int32_t cairn_file_read(cairn_file *file, void *buffer, int64_t length, int64_t offset,
                                     int64_t *bytes_read, int32_t *os_error);
/* Write all buffers back to back at `offset`: pwritev in batches of at most IOV_MAX, looping on
 * short writes; a write that makes no progress is CAIRN_E_DISK_FULL. On a DIRECT handle every
 * buffer address, length and the offset must be CAIRN_DIRECT_IO_ALIGNMENT-aligned. */
CAIRN_EXPORT int32_t cairn_file_write(cairn_file *file, const cairn_buffer *buffers, int32_t count,
                                      int64_t offset, int32_t *os_error);

/* Map [0, length) read-only and shared; the mapping outlives the handle until cairn_unmap.
 * A grown file is remapped by mapping again; the old mapping stays valid until unmapped. */
CAIRN_EXPORT int32_t cairn_file_map(cairn_file *file, int64_t length, void **address, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_unmap(void *address, int64_t length, int32_t *os_error);
/* Tell the OS a range of a mapping will be needed soon (MADV_WILLNEED / PrefetchVirtualMemory). */
CAIRN_EXPORT int32_t cairn_map_prefetch(void *address, int64_t length, int32_t *os_error);
/* Read a range of a mapping in now and map it, so touching it takes no page faults
 * (MADV_POPULATE_READ; MADV_WILLNEED on kernels before 5.14; PrefetchVirtualMemory on Windows).
 * Synchronous on Linux 5.14+: returns once the range is in memory. */
CAIRN_EXPORT int32_t cairn_map_populate(void *address, int64_t length, int32_t *os_error);

/* Anonymous private read-write memory of `length` bytes whose address is a multiple of
 * `alignment` (a power of two, at least the OS page size; 0 = the OS page size), zero-filled.
 * Linux: mmap, trimmed to the alignment, and MADV_HUGEPAGE when length and alignment are multiples
 * of 2 MiB (transparent huge pages: one fault per 2 MiB). Windows: VirtualAlloc (MEM_COMMIT).
 * Release it with cairn_memory_free and the same length. */
CAIRN_EXPORT int32_t cairn_memory_allocate(int64_t length, int64_t alignment, void **address, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_memory_free(void *address, int64_t length, int32_t *os_error);

/* ---------------------------------------------------------------------------------------------
 * Copies (backups): in-kernel range copies, ranged write-back, and the calling thread's I/O priority.
 * ------------------------------------------------------------------------------------------- */
/* Copy `length` bytes of `source` at `source_offset` to `destination` at `destination_offset`
 * (copy_file_range, looping; a read/write loop through a 1 MiB buffer where the kernel refuses it,
 * e.g. across file systems, and on Windows). The destination's writes honour the write fault hooks
 * (matched against its path) and a copy that makes no progress is CAIRN_E_DISK_FULL;
 * CAIRN_E_END_OF_FILE when the source ends first. Not synced. Neither handle may be DIRECT. */
CAIRN_EXPORT int32_t cairn_file_copy_range(cairn_file *source, int64_t source_offset, cairn_file *destination,
                                           int64_t destination_offset, int64_t length, int32_t *os_error);

#define CAIRN_SYNC_RANGE_WRITE 0x01  /* start write-back of the range's dirty pages (no wait) */
#define CAIRN_SYNC_RANGE_WAIT  0x02  /* wait for write-back of the range, started now or before */
/* sync_file_range over [offset, offset + length) (0 = to the end of the file). Not a durability
 * point: neither metadata nor the device cache is flushed (cairn_file_sync does that); it paces
 * write-back so it never piles up. Windows has no ranged flush: WRITE alone does nothing, WAIT
 * flushes the whole file (FlushFileBuffers). A WAIT honours the sync fault hook. */
CAIRN_EXPORT int32_t cairn_file_sync_range(cairn_file *file, int64_t offset, int64_t length, int32_t flags,
                                           int32_t *os_error);

/* Give the calling thread the lowest best-effort I/O priority (Linux IOPRIO_CLASS_BE level 7 via
 * ioprio_set on the thread; Windows THREAD_MODE_BACKGROUND_BEGIN, which also lowers its CPU and
 * memory priority) and report what to restore in *previous. */
CAIRN_EXPORT int32_t cairn_thread_io_priority_low(int32_t *previous, int32_t *os_error);
/* Restore the calling thread's I/O priority from a cairn_thread_io_priority_low's *previous. */
CAIRN_EXPORT int32_t cairn_thread_io_priority_restore(int32_t previous, int32_t *os_error);
/* Give the calling thread the lowest CPU priority short of idle (Linux nice 19 on this thread alone;
 * Windows THREAD_PRIORITY_LOWEST), so it runs on what the other threads leave. One way: an
 * unprivileged Linux process may not raise a nice value back, so call it only on a thread made for
 * the work, which ends with it. (ABI 7) */
CAIRN_EXPORT int32_t cairn_thread_cpu_priority_lowest(int32_t *os_error);

/* ---------------------------------------------------------------------------------------------
 * Journals.
 * ------------------------------------------------------------------------------------------- */
/* Open (creating if needed) with O_DIRECT|O_DSYNC. If the file system refuses O_DIRECT, fall back
 * to O_DSYNC and set CAIRN_OPEN_DIRECT_FALLBACK in *effective_flags. If the file is shorter than
 * `size`, allocate and pre-zero the missing part and sync it, so commits never pay for
 * unwritten-extent conversion. `size` must be a multiple of CAIRN_DIRECT_IO_ALIGNMENT. */
CAIRN_EXPORT int32_t cairn_journal_open(const char *path, int64_t size, cairn_file **file,
                                        int32_t *effective_flags, int32_t *os_error);

/* ---------------------------------------------------------------------------------------------
 * Paths and directories.
 * ------------------------------------------------------------------------------------------- */
CAIRN_EXPORT int32_t cairn_delete_file(const char *path, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_sync_directory(const char *path, int32_t *os_error);
/* rename(2) then fsync of the destination's directory (and the source's, when different). */
CAIRN_EXPORT int32_t cairn_rename_durable(const char *from, const char *to, int32_t *os_error);
/* link(2) then fsync of the new link's directory. */
CAIRN_EXPORT int32_t cairn_hard_link(const char *existing, const char *new_link, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_same_file(const char *a, const char *b, int32_t *same, int32_t *os_error);
CAIRN_EXPORT int32_t cairn_link_count(const char *path, int64_t *count, int32_t *os_error);
/* Free/total space, file system type, and whether O_DIRECT works there (probes by creating,
 * writing and deleting a small file in the directory). */
CAIRN_EXPORT int32_t cairn_fs_info_get(const char *directory, cairn_fs_info *info, int32_t *os_error);

/* ---------------------------------------------------------------------------------------------
 * Data-file writer: one process-wide io_uring worker thread (pwritev when io_uring is unavailable).
 * ------------------------------------------------------------------------------------------- */
/* Configure before first use; CAIRN_E_INVALID_ARGUMENT once the worker has started. */
CAIRN_EXPORT int32_t cairn_io_configure(const cairn_io_options *options, int32_t *os_error);
/* Start the writer if needed and report the backend chosen; *setup_error is the errno that made
 * io_uring unavailable (0 if it is in use or was not tried). */
CAIRN_EXPORT int32_t cairn_io_backend(int32_t *backend, int32_t *setup_error, int32_t *os_error);
/* Stop the worker and release the ring; the next use starts it again with the configuration. */
CAIRN_EXPORT int32_t cairn_io_shutdown(int32_t *os_error);
/* Write every op (sorted by offset) and wait for all of them. mode: CAIRN_BACKEND_AUTO, or a
 * specific backend (CAIRN_E_UNSUPPORTED if that one is unavailable). On failure the first error
 * is returned; other ops of the batch may or may not have been written. */
CAIRN_EXPORT int32_t cairn_write_gather(cairn_file *file, const cairn_write_op *ops, int32_t count,
                                        int32_t mode, int32_t *os_error);
/* Data-sync the file through the writer (IORING_FSYNC_DATASYNC, or fdatasync). */
CAIRN_EXPORT int32_t cairn_sync_gather(cairn_file *file, int32_t mode, int32_t *os_error);

/* ---------------------------------------------------------------------------------------------
 * Fault hooks, for tests only. `after` counts matching calls to let through first (0 = the next
 * one); `limit` is the byte cap for CAIRN_FAULT_SHORT_WRITE; `injected_error` is the OS error to
 * report. `path_filter` (NULL = every file) limits the fault to files whose path contains it, so a
 * test can fail journal writes but not data-file writes. One fault is armed at a time,
 * process-wide; CAIRN_FAULT_NONE disarms. A WRITE/ZERO/SYNC/ALLOCATE/LINK fault fires once, then
 * disarms. A LINK fault matches the filter against the new link's path, not the existing file's.
 * ------------------------------------------------------------------------------------------- */
CAIRN_EXPORT int32_t cairn_test_set_fault(int32_t kind, int64_t after, int64_t limit,
                                          int32_t injected_error, const char *path_filter,
                                          int32_t *os_error);
/* How many write syscalls (pwritev/writev SQEs/WriteFile*) the library has issued so far. */
CAIRN_EXPORT int32_t cairn_test_write_calls(int64_t *count, int32_t *os_error);

#ifdef __cplusplus
}
#endif

#endif /* CAIRNPAL_H */
