/* Small test harness for the native tests: checks that name file and line, scratch directories on
 * the real disk that are removed when the test passes, and the handful of helpers more than one
 * test needs (opening files, comparing a file with its expected bytes, counting descriptors and
 * write calls). The same tests build for Linux and for Windows (run under wine): support.c has both
 * implementations, and the OS errors the tests expect are named here once per platform. */
#ifndef CAIRN_TEST_SUPPORT_H
#define CAIRN_TEST_SUPPORT_H

#include "cairnpal.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
/* The OS error (GetLastError) each situation gives; cairn_test_set_fault injects these too. */
#define TEST_ERROR_NOT_FOUND ERROR_FILE_NOT_FOUND
#define TEST_ERROR_EXISTS ERROR_FILE_EXISTS          /* an exclusive create of an existing file */
#define TEST_ERROR_LINK_EXISTS ERROR_ALREADY_EXISTS  /* a hard link whose name is taken */
#define TEST_ERROR_NOT_DIRECTORY ERROR_DIRECTORY
#define TEST_ERROR_LOCKED ERROR_LOCK_VIOLATION
#define TEST_ERROR_DISK_FULL ERROR_DISK_FULL
#define TEST_ERROR_QUOTA 1295                         /* ERROR_DISK_QUOTA_EXCEEDED */
#define TEST_ERROR_IO ERROR_IO_DEVICE
#define TEST_ERROR_CROSS_DEVICE ERROR_NOT_SAME_DEVICE
#define TEST_ERROR_TOO_MANY_LINKS ERROR_TOO_MANY_LINKS
/* A write through a read-only handle: Windows refuses access to the handle. */
#define TEST_ERROR_READ_ONLY_WRITE ERROR_ACCESS_DENIED
#define TEST_STATUS_READ_ONLY_WRITE CAIRN_E_ACCESS_DENIED
#else
#include <errno.h>
#define TEST_ERROR_NOT_FOUND ENOENT
#define TEST_ERROR_EXISTS EEXIST
#define TEST_ERROR_LINK_EXISTS EEXIST
#define TEST_ERROR_NOT_DIRECTORY ENOTDIR
#define TEST_ERROR_LOCKED EWOULDBLOCK
#define TEST_ERROR_DISK_FULL ENOSPC
#define TEST_ERROR_QUOTA EDQUOT
#define TEST_ERROR_IO EIO
#define TEST_ERROR_CROSS_DEVICE EXDEV
#define TEST_ERROR_TOO_MANY_LINKS EMLINK
/* A write through a read-only descriptor: EBADF, a descriptor not open for writing. */
#define TEST_ERROR_READ_ONLY_WRITE EBADF
#define TEST_STATUS_READ_ONLY_WRITE CAIRN_E_INVALID_ARGUMENT
#endif

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* Checks a PAL call returned CAIRN_OK and prints the status and OS error otherwise. */
#define CHECK_OK(call)                                                                       \
    do {                                                                                     \
        int32_t status_ = (call);                                                            \
        if (status_ != CAIRN_OK) {                                                           \
            fprintf(stderr, "%s:%d: %s returned status %d (os error %d)\n", __FILE__,        \
                    __LINE__, #call, status_, test_last_os_error);                           \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* Tests pass &test_last_os_error as the os_error argument so CHECK_OK can print it. */
extern int32_t test_last_os_error;

/* Creates a fresh directory $CAIRN_TEST_DIR/<name>-<pid>-<n> and returns its path (malloc'd). */
char *test_make_dir(const char *name);
/* The same under `root` (created if missing) instead of $CAIRN_TEST_DIR. */
char *test_make_dir_in(const char *root, const char *name);
/* Removes a directory tree created by test_make_dir. */
void test_remove_dir(const char *path);
/* path + separator + leaf, malloc'd ('\\' on Windows, '/' elsewhere). */
char *test_join(const char *dir, const char *leaf);
/* An aligned buffer of `size` bytes filled with a pattern derived from `seed`; release it with
 * test_free_aligned (Windows has no aligned allocation that free() takes). */
void *test_aligned_pattern(size_t size, uint64_t seed);
void test_free_aligned(void *buffer);
/* Reads a whole file into a malloc'd buffer; *size receives its length. */
void *test_read_file(const char *path, int64_t *size);
/* A fast deterministic generator for test data. */
uint64_t test_next_random(uint64_t *state);

/* The file must hold exactly expected[0, size); says where it first differs when it does not. */
void test_check_file(const char *path, const void *expected, int64_t size);

/* Opens through cairn_file_open, which must succeed; *effective (may be NULL) receives the flags in
 * effect. */
cairn_file *test_open(const char *path, int32_t flags, int32_t *effective);
/* Opens through cairn_journal_open, which must succeed; *effective as for test_open. */
cairn_file *test_open_journal(const char *path, int64_t size, int32_t *effective);
/* Closes through cairn_file_close, which must succeed. */
void test_close(cairn_file *file);
/* A one-buffer cairn_file_write that must be refused as CAIRN_E_INVALID_ARGUMENT with os_error 0. */
void test_expect_invalid_write(cairn_file *file, const void *data, int64_t length, int64_t offset);

/* Disarms whatever fault cairn_test_set_fault armed. */
void test_disarm_fault(void);
/* How many write syscalls the library has issued so far (cairn_test_write_calls). */
int64_t test_write_calls(void);
/* Open descriptors (handles on Windows) of this process, to show that a test leaked none. */
int test_count_open_fds(void);

/* File system helpers with one meaning on every platform. */
void test_mkdir(const char *path);           /* must succeed; long paths too */
void test_rmdir(const char *path);           /* an empty directory; must succeed; long paths too */
void test_rmdir_if_empty(const char *path);  /* the same, where it may still be in use: no check */
int test_exists(const char *path);
int64_t test_file_size(const char *path);    /* must exist */
int64_t test_allocated_bytes(const char *path); /* space the file system gave the file */
int test_count_entries(const char *dir);     /* entries other than . and .. */
char *test_getcwd(void);                     /* malloc'd */
void test_chdir(const char *path);           /* must succeed */
/* Whether this is Windows emulated by wine (which lacks some file system features: say so where a
 * test relaxes a check for it). Always 0 elsewhere. */
int test_under_wine(void);

/* Another process that holds a copy of `file`'s descriptor (POSIX: a forked child that inherited
 * it; Windows: a child process the handle was duplicated into) until test_release_holder. */
typedef struct test_holder test_holder;
test_holder *test_hold_in_child(cairn_file *file);
void test_release_holder(test_holder *holder); /* the child must exit cleanly */

/* Threads, for the tests that submit from many at once. */
typedef struct test_thread test_thread;
test_thread *test_thread_start(void *(*run)(void *), void *argument);
void test_thread_join(test_thread *thread);

#endif
