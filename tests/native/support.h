/* Small test harness for the native tests: checks that name file and line, scratch directories on
 * the real disk that are removed when the test passes, and the handful of helpers more than one
 * test needs (opening files, comparing a file with its expected bytes, counting descriptors and
 * write calls). */
#ifndef CAIRN_TEST_SUPPORT_H
#define CAIRN_TEST_SUPPORT_H

#include "cairnpal.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
/* Removes a directory tree created by test_make_dir. */
void test_remove_dir(const char *path);
/* path + "/" + leaf, malloc'd. */
char *test_join(const char *dir, const char *leaf);
/* An aligned buffer of `size` bytes filled with a pattern derived from `seed`. */
void *test_aligned_pattern(size_t size, uint64_t seed);
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
/* Open descriptors of this process, to show that a test leaked none. */
int test_count_open_fds(void);

#endif
