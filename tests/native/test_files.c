/* File handles: open flags and errors, size/allocate/zero/punch, reads at EOF, vectored writes
 * past IOV_MAX (direct and buffered), short-write handling through the fault hook, argument
 * validation, locking and mappings. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <limits.h>
#include <string.h>
#ifndef _WIN32
#include <sys/syscall.h>
#include <unistd.h>
#ifndef _WIN32
#include <pthread.h>
#include <sys/resource.h>
#endif
#endif

#define KIB 1024
#define MIB (1024 * 1024)
#define DIRECT_BUFFERS 3000 /* well past IOV_MAX (1024), so several pwritev batches */
#ifdef _WIN32
#define WRITE_BATCH 512 /* pages per WriteFileGather (native/win/io_win.c) */
#else
#define WRITE_BATCH IOV_MAX
#endif

static cairn_file *open_file(const char *path, int32_t flags)
{
    int32_t effective = -1;
    cairn_file *f = test_open(path, flags, &effective);
    CHECK(effective == flags); /* ext4 takes every flag as asked, DIRECT included */
    return f;
}

static void test_open_errors(const char *dir)
{
    char *path = test_join(dir, "open");
    cairn_file *f = NULL;
    int32_t eff = 0;

    CHECK(cairn_file_open(NULL, CAIRN_OPEN_CREATE, &f, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_open(path, CAIRN_OPEN_DIRECT_FALLBACK, &f, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_open(path, 0, NULL, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    CHECK(cairn_file_open(path, 0, &f, &eff, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    CHECK(test_last_os_error == TEST_ERROR_NOT_FOUND);

    f = open_file(path, CAIRN_OPEN_CREATE_NEW | CAIRN_OPEN_DIRECT | CAIRN_OPEN_SEQUENTIAL);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    CHECK(cairn_file_open(path, CAIRN_OPEN_CREATE_NEW, &f, &eff, &test_last_os_error) == CAIRN_E_ALREADY_EXISTS);
    CHECK(test_last_os_error == TEST_ERROR_EXISTS);

    /* A read-only handle refuses writes with the OS's error (EBADF; ERROR_ACCESS_DENIED on
     * Windows), not a crash or a silent success. */
    f = open_file(path, CAIRN_OPEN_READ_ONLY);
    char byte = 1;
    cairn_buffer b = {&byte, 1};
    CHECK(cairn_file_write(f, &b, 1, 0, &test_last_os_error) == TEST_STATUS_READ_ONLY_WRITE);
    CHECK(test_last_os_error == TEST_ERROR_READ_ONLY_WRITE);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    CHECK(cairn_file_close(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    free(path);
}

static void test_size_allocate_zero_punch(const char *dir)
{
    char *path = test_join(dir, "space");
    cairn_file *f = open_file(path, CAIRN_OPEN_CREATE);
    int64_t size = -1;

    CHECK_OK(cairn_file_set_size(f, 10000, &test_last_os_error));
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 10000);
    CHECK(cairn_file_set_size(f, -1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    int32_t allocated = -1;
    CHECK_OK(cairn_file_allocate(f, 0, 2 * MIB, &allocated, &test_last_os_error));
    /* Wine has no FileAllocationInfo: the file is extended without reserving, and says so. */
    CHECK(allocated == 1 || (allocated == 0 && test_under_wine()));
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 2 * MIB);
    if (allocated)
        CHECK(test_allocated_bytes(path) >= 2 * MIB);
    CHECK(cairn_file_allocate(f, -1, 10, &allocated, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_allocate(f, 1, INT64_MAX, &allocated, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    /* Fill with a pattern, then zero an odd range in the middle (allowed on a buffered handle). */
    char *expected = test_aligned_pattern(2 * MIB, 7);
    cairn_buffer whole = {expected, 2 * MIB};
    CHECK_OK(cairn_file_write(f, &whole, 1, 0, &test_last_os_error));
    CHECK_OK(cairn_file_zero(f, 100, MIB + 5000, &test_last_os_error));
    memset(expected + 100, 0, MIB + 5000);
    test_check_file(path, expected, 2 * MIB);

#ifdef _WIN32
    /* Only sparse files give space back on Windows, and nothing makes the library's files sparse:
     * the punch is refused (no OS error) and the file left as it was. */
    test_last_os_error = -1;
    CHECK(cairn_file_punch_hole(f, MIB + 64 * KIB, 256 * KIB, &test_last_os_error) == CAIRN_E_UNSUPPORTED);
    CHECK(test_last_os_error == 0);
#else
    /* Punching keeps the size, frees blocks and reads back as zeros. */
    int64_t allocated_before = test_allocated_bytes(path);
    CHECK_OK(cairn_file_punch_hole(f, MIB + 64 * KIB, 256 * KIB, &test_last_os_error));
    memset(expected + MIB + 64 * KIB, 0, 256 * KIB);
    CHECK(test_allocated_bytes(path) < allocated_before);
#endif
    test_check_file(path, expected, 2 * MIB);

    CHECK_OK(cairn_file_set_size(f, 4096, &test_last_os_error));
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 4096);
    CHECK_OK(cairn_file_sync(f, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    /* On a direct handle zero needs aligned ranges, like every other direct write. */
    f = open_file(path, CAIRN_OPEN_DIRECT);
    CHECK(cairn_file_zero(f, 100, 4096, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_zero(f, 0, 4000, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK_OK(cairn_file_zero(f, 0, 8192, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    test_free_aligned(expected);
    free(path);
}

static void test_read_eof(const char *dir)
{
    char *path = test_join(dir, "read");
    cairn_file *f = open_file(path, CAIRN_OPEN_CREATE);
    char *data = test_aligned_pattern(10000, 3);
    cairn_buffer b = {data, 10000};
    CHECK_OK(cairn_file_write(f, &b, 1, 0, &test_last_os_error));

    char *back = malloc(20000);
    CHECK(back != NULL);
    int64_t got = -1;
    CHECK_OK(cairn_file_read(f, back, 10000, 0, &got, &test_last_os_error));
    CHECK(got == 10000 && memcmp(back, data, 10000) == 0);

    test_last_os_error = -1;
    CHECK(cairn_file_read(f, back, 20000, 0, &got, &test_last_os_error) == CAIRN_E_END_OF_FILE);
    CHECK(got == 10000 && test_last_os_error == 0);
    CHECK(cairn_file_read(f, back, 1, 10000, &got, &test_last_os_error) == CAIRN_E_END_OF_FILE);
    CHECK(got == 0);
    CHECK_OK(cairn_file_read(f, back, 0, 50000, &got, &test_last_os_error));
    CHECK(got == 0);
    /* A prefetch is only a hint: past the end, empty or whole-file, it succeeds and changes nothing. */
    CHECK_OK(cairn_file_prefetch(f, 0, 10000, &test_last_os_error));
    CHECK_OK(cairn_file_prefetch(f, 8192, 1 << 20, &test_last_os_error));
    CHECK_OK(cairn_file_prefetch(f, 50000, 0, &test_last_os_error));
    CHECK(cairn_file_prefetch(f, -1, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_prefetch(f, 0, -1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK_OK(cairn_file_read(f, back, 10000, 0, &got, &test_last_os_error));
    CHECK(got == 10000 && memcmp(back, data, 10000) == 0);
    CHECK(cairn_file_read(f, NULL, 1, 0, &got, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_read(f, back, 1, -1, &got, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_read(f, back, 1, 0, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    free(back);
    test_free_aligned(data);
    free(path);
}

/* 3000 aligned 4 KiB slices of one pattern, in a shuffled order so a batch written out of order or
 * twice would show. */
static void make_direct_buffers(cairn_buffer *buffers, char *pattern, char *expected)
{
    uint64_t rng = 42;
    int order[DIRECT_BUFFERS];
    for (int i = 0; i < DIRECT_BUFFERS; i++)
        order[i] = i;
    for (int i = DIRECT_BUFFERS - 1; i > 0; i--) {
        int j = (int)(test_next_random(&rng) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < DIRECT_BUFFERS; i++) {
        buffers[i].data = pattern + (size_t)order[i] * 4096;
        buffers[i].length = 4096;
        memcpy(expected + (size_t)i * 4096, buffers[i].data, 4096);
    }
}

/* Buffers of 0..97 bytes taken from anywhere in `source`; returns the total length. */
static int64_t make_odd_buffers(cairn_buffer *buffers, int count, const char *source, size_t source_size,
                                char *expected)
{
    uint64_t rng = 99;
    int64_t total = 0;
    for (int i = 0; i < count; i++) {
        int64_t length = (int64_t)(test_next_random(&rng) % 98);
        size_t from = (size_t)(test_next_random(&rng) % (source_size - 98));
        buffers[i].data = source + from;
        buffers[i].length = length;
        memcpy(expected + total, source + from, (size_t)length);
        total += length;
    }
    return total;
}

/* Writes `buffers` at `offset` into a fresh file and checks the file is zeros then exactly `expected`. */
static void write_and_verify(const char *path, int32_t flags, const cairn_buffer *buffers, int count,
                             int64_t offset, const char *expected, int64_t total)
{
    cairn_file *f = open_file(path, flags);
    CHECK_OK(cairn_file_write(f, buffers, count, offset, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    char *whole = calloc(1, (size_t)(offset + total));
    CHECK(whole != NULL);
    memcpy(whole + offset, expected, (size_t)total);
    test_check_file(path, whole, offset + total);
    free(whole);
}

static void test_vectored_writes(const char *dir)
{
    int64_t direct_total = (int64_t)DIRECT_BUFFERS * 4096;
    char *pattern = test_aligned_pattern((size_t)direct_total, 11);
    char *expected = malloc((size_t)direct_total);
    cairn_buffer *buffers = malloc(sizeof(cairn_buffer) * DIRECT_BUFFERS);
    CHECK(expected != NULL && buffers != NULL);
    make_direct_buffers(buffers, pattern, expected);

    char *direct_path = test_join(dir, "vectored-direct");
    int64_t before = test_write_calls();
    write_and_verify(direct_path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, buffers, DIRECT_BUFFERS, 8192,
                     expected, direct_total);
    /* Exactly one vectored write (pwritev; WriteFileGather on Windows) per full batch of buffers. */
    CHECK(test_write_calls() - before == (DIRECT_BUFFERS + WRITE_BATCH - 1) / WRITE_BATCH);

    /* Short writes: the hook caps each pwritev at one block, so every batch is resumed mid-window. */
    char *short_path = test_join(dir, "short-direct");
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_SHORT_WRITE, 0, 4096, 0, "short-direct", &test_last_os_error));
    before = test_write_calls();
    write_and_verify(short_path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, buffers, DIRECT_BUFFERS, 0,
                     expected, direct_total);
    CHECK(test_write_calls() - before >= direct_total / 4096);
    test_disarm_fault();

    /* Odd lengths (some empty) at an odd offset on a buffered file, plain and with 1000-byte caps
     * that split buffers in the middle. */
    int64_t odd_total = make_odd_buffers(buffers, DIRECT_BUFFERS, pattern, (size_t)direct_total, expected);
    char *odd_path = test_join(dir, "vectored-odd");
    write_and_verify(odd_path, CAIRN_OPEN_CREATE, buffers, DIRECT_BUFFERS, 12345, expected, odd_total);

    char *odd_short_path = test_join(dir, "short-odd");
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_SHORT_WRITE, 0, 1000, 0, "short-odd", &test_last_os_error));
    before = test_write_calls();
    write_and_verify(odd_short_path, CAIRN_OPEN_CREATE, buffers, DIRECT_BUFFERS, 12345, expected, odd_total);
    CHECK(test_write_calls() - before >= odd_total / 1000);
    test_disarm_fault();

    free(odd_short_path);
    free(odd_path);
    free(short_path);
    free(direct_path);
    free(buffers);
    free(expected);
    test_free_aligned(pattern);
}

static void test_write_validation(const char *dir)
{
    char *path = test_join(dir, "validate");
    char *block = test_aligned_pattern(8192, 5);
    cairn_file *f = open_file(path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT);
    test_expect_invalid_write(f, block + 1, 4096, 0); /* address */
    test_expect_invalid_write(f, block, 4095, 0);     /* length */
    test_expect_invalid_write(f, block, 4096, 512);   /* offset */
    test_expect_invalid_write(f, block, -4096, 0);
    test_expect_invalid_write(f, NULL, 4096, 0);
    cairn_buffer b = {block, 4096};
    CHECK(cairn_file_write(f, &b, -1, 0, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_write(f, NULL, 1, 0, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_write(f, &b, 1, -4096, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK_OK(cairn_file_write(f, &b, 0, 0, &test_last_os_error));
    int64_t size = -1;
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 0); /* nothing rejected reached the file */
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    /* A buffered handle takes any alignment but still refuses nonsense lengths. */
    f = open_file(path, 0);
    test_expect_invalid_write(f, block, -1, 0);
    cairn_buffer odd = {block + 3, 5};
    CHECK_OK(cairn_file_write(f, &odd, 1, 7, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    test_free_aligned(block);
    free(path);
}

static char *g_lock_block; /* one aligned block, written through the handle without the lock */

/* `first_flags`/`second_flags`: how the two handles are opened; a direct handle is an overlapped
 * one on Windows, where the lock calls wait on an event of their own. */
static void test_lock_between(const char *dir, const char *name, int32_t first_flags, int32_t second_flags)
{
    char *path = test_join(dir, name);
    cairn_file *first = open_file(path, CAIRN_OPEN_CREATE | first_flags);
    cairn_file *second = open_file(path, second_flags);
    CHECK_OK(cairn_file_lock(first, &test_last_os_error));
    CHECK(cairn_file_lock(second, &test_last_os_error) == CAIRN_E_LOCKED);
    CHECK(test_last_os_error == TEST_ERROR_LOCKED);
    /* The holder asking again is not "someone else": it still has the lock, as flock(2) says. */
    CHECK_OK(cairn_file_lock(first, &test_last_os_error));
    CHECK(cairn_file_lock(second, &test_last_os_error) == CAIRN_E_LOCKED);
    /* The lock keeps no one from the bytes: the other handle still writes and reads. */
    cairn_buffer block = {g_lock_block, 4096};
    CHECK_OK(cairn_file_write(second, &block, 1, 0, &test_last_os_error));
    CHECK_OK(cairn_file_close(first, &test_last_os_error)); /* closing releases the lock */
    CHECK_OK(cairn_file_lock(second, &test_last_os_error));
    CHECK_OK(cairn_file_close(second, &test_last_os_error));
    free(path);
}

static void test_lock(const char *dir)
{
    g_lock_block = test_aligned_pattern(4096, 21);
    test_lock_between(dir, "lock", 0, 0);
    test_lock_between(dir, "lock-direct", CAIRN_OPEN_DIRECT, 0);
    test_lock_between(dir, "lock-direct-both", CAIRN_OPEN_DIRECT, CAIRN_OPEN_DIRECT);
    CHECK(cairn_file_lock(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    test_free_aligned(g_lock_block);
}

/* Another process holds a copy of the locked descriptor (a forked child shares the open file
 * description; on Windows a child the handle was duplicated into shares the file object): closing
 * in the parent must still release the lock. */
static void test_lock_released_while_a_child_holds_the_descriptor(const char *dir)
{
    char *path = test_join(dir, "lock-fork");
    cairn_file *first = open_file(path, CAIRN_OPEN_CREATE);
    CHECK_OK(cairn_file_lock(first, &test_last_os_error));
    test_holder *holder = test_hold_in_child(first);
    CHECK_OK(cairn_file_close(first, &test_last_os_error));
    cairn_file *second = open_file(path, 0);
    CHECK_OK(cairn_file_lock(second, &test_last_os_error));
    CHECK_OK(cairn_file_close(second, &test_last_os_error));
    test_release_holder(holder);
    free(path);
}

static void test_map(const char *dir)
{
    char *path = test_join(dir, "map");
    char *data = test_aligned_pattern(32 * KIB, 17);
    cairn_file *f = open_file(path, CAIRN_OPEN_CREATE);
    cairn_buffer first_half = {data, 16 * KIB};
    CHECK_OK(cairn_file_write(f, &first_half, 1, 0, &test_last_os_error));

    void *old_map = NULL;
    CHECK_OK(cairn_file_map(f, 16 * KIB, &old_map, &test_last_os_error));
    CHECK(memcmp(old_map, data, 16 * KIB) == 0);

    cairn_buffer second_half = {data + 16 * KIB, 16 * KIB};
    CHECK_OK(cairn_file_write(f, &second_half, 1, 16 * KIB, &test_last_os_error));
    void *new_map = NULL;
    CHECK_OK(cairn_file_map(f, 32 * KIB, &new_map, &test_last_os_error));
    CHECK(memcmp(new_map, data, 32 * KIB) == 0);
    CHECK(memcmp(old_map, data, 16 * KIB) == 0);

    /* Shared mappings see later writes; mappings outlive the handle. */
    char patch[100];
    memset(patch, 0x5A, sizeof patch);
    cairn_buffer p = {patch, sizeof patch};
    CHECK_OK(cairn_file_write(f, &p, 1, 1000, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    CHECK(memcmp((char *)old_map + 1000, patch, sizeof patch) == 0);
    CHECK(memcmp((char *)new_map + 1000, patch, sizeof patch) == 0);

    CHECK_OK(cairn_map_prefetch((char *)new_map + 100, 5000, &test_last_os_error));
    CHECK_OK(cairn_map_prefetch(new_map, 0, &test_last_os_error));
    CHECK(cairn_map_prefetch(NULL, 10, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    /* Populating maps the range in place: contents unchanged, the whole mapping or part of it. */
    CHECK_OK(cairn_map_populate((char *)new_map + 100, 5000, &test_last_os_error));
    CHECK_OK(cairn_map_populate(new_map, 32 * KIB, &test_last_os_error));
    CHECK_OK(cairn_map_populate(new_map, 0, &test_last_os_error));
    CHECK(memcmp((char *)new_map + 1000, patch, sizeof patch) == 0 && memcmp(new_map, data, 1000) == 0);
    CHECK(cairn_map_populate(NULL, 10, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_map_populate(new_map, -1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    CHECK_OK(cairn_unmap(old_map, 16 * KIB, &test_last_os_error));
    CHECK_OK(cairn_unmap(new_map, 32 * KIB, &test_last_os_error));
    CHECK(cairn_unmap(NULL, 16, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    f = open_file(path, CAIRN_OPEN_READ_ONLY);
    void *none = NULL;
    CHECK(cairn_file_map(f, 0, &none, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_map(NULL, 4096, &none, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    test_free_aligned(data);
    free(path);
}

static void test_memory(void)
{
    /* Zero-filled, writable, aligned as asked; 2 MiB multiples get huge-page advice, which is optional. */
    const int64_t arena = 2 * 1024 * KIB;
    void *memory = NULL;
    CHECK_OK(cairn_memory_allocate(arena, arena, &memory, &test_last_os_error));
    CHECK(memory != NULL && ((uintptr_t)memory & (uintptr_t)(arena - 1)) == 0);
    unsigned char *bytes = memory;
    CHECK(bytes[0] == 0 && bytes[arena / 2] == 0 && bytes[arena - 1] == 0);
    memset(bytes, 0xA5, (size_t)arena);
    CHECK(bytes[arena - 1] == 0xA5);
    CHECK_OK(cairn_memory_free(memory, arena, &test_last_os_error));

    void *small = NULL;
    CHECK_OK(cairn_memory_allocate(3 * 8 * KIB, 0, &small, &test_last_os_error));
    ((unsigned char *)small)[3 * 8 * KIB - 1] = 1;
    CHECK_OK(cairn_memory_free(small, 3 * 8 * KIB, &test_last_os_error));

    void *none = NULL;
    CHECK(cairn_memory_allocate(0, 0, &none, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_memory_allocate(4096, 3 * 4096, &none, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_memory_allocate(4096, 0, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_memory_free(NULL, 4096, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
}

static void test_null_handles(void)
{
    int64_t v = 0;
    int32_t a = 0;
    char byte = 0;
    CHECK(cairn_file_size(NULL, &v, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_set_size(NULL, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_allocate(NULL, 0, 1, &a, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_zero(NULL, 0, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_punch_hole(NULL, 0, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_sync(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_prefetch(NULL, 0, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_read(NULL, &byte, 1, 0, &v, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_write(NULL, NULL, 0, 0, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
}

/* Range copies land byte for byte (across several copy calls and at offsets), a source that ends
 * early is END_OF_FILE, an injected disk-full on the destination is DISK_FULL; ranged write-back
 * takes WRITE, WAIT and both; the thread's I/O priority goes low and comes back. */
static void test_copies(const char *dir)
{
    char *from_path = test_join(dir, "copy-from"), *to_path = test_join(dir, "copy-to");
    const int64_t size = 20 * MIB + 4321;
    cairn_file *from = open_file(from_path, CAIRN_OPEN_CREATE);
    char *data = test_aligned_pattern((size_t)size, 11);
    cairn_buffer b = {data, size};
    CHECK_OK(cairn_file_write(from, &b, 1, 0, &test_last_os_error));
    cairn_file *to = open_file(to_path, CAIRN_OPEN_CREATE);
    CHECK_OK(cairn_file_copy_range(from, 0, to, 0, 100, &test_last_os_error));
    CHECK_OK(cairn_file_copy_range(from, 100, to, 100, size - 100, &test_last_os_error));
    CHECK_OK(cairn_file_sync_range(to, 0, 8 * MIB, CAIRN_SYNC_RANGE_WRITE, &test_last_os_error));
    CHECK_OK(cairn_file_sync_range(to, 0, 8 * MIB, CAIRN_SYNC_RANGE_WAIT, &test_last_os_error));
    CHECK_OK(cairn_file_sync_range(to, 8 * MIB, 0, CAIRN_SYNC_RANGE_WRITE | CAIRN_SYNC_RANGE_WAIT, &test_last_os_error));
    CHECK_OK(cairn_file_sync(to, &test_last_os_error));
    test_check_file(to_path, data, size);

    CHECK(cairn_file_copy_range(from, size - 10, to, 0, 20, &test_last_os_error) == CAIRN_E_END_OF_FILE);
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_ZERO_WRITE, 0, 0, 0, "copy-to", &test_last_os_error));
    CHECK(cairn_file_copy_range(from, 0, to, 0, MIB, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_WRITE_ERROR, 0, 0, TEST_ERROR_DISK_FULL, "copy-to", &test_last_os_error));
    CHECK(cairn_file_copy_range(from, 0, to, 0, MIB, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    CHECK(cairn_file_copy_range(NULL, 0, to, 0, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_copy_range(from, -1, to, 0, 1, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_sync_range(to, 0, 1, 0, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_file_sync_range(to, 0, 1, 0x80, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    int32_t previous = -1;
    CHECK_OK(cairn_thread_io_priority_low(&previous, &test_last_os_error));
    CHECK(previous >= 0);
#ifndef _WIN32
    /* IOPRIO_WHO_PROCESS (1), who 0: this thread; IOPRIO_CLASS_BE (2) << 13 | level 7. */
    CHECK(syscall(SYS_ioprio_get, 1, 0) == ((2 << 13) | 7));
#endif
    CHECK_OK(cairn_thread_io_priority_restore(previous, &test_last_os_error));
#ifndef _WIN32
    CHECK(syscall(SYS_ioprio_get, 1, 0) == previous);
#endif
    CHECK(cairn_thread_io_priority_low(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    CHECK_OK(cairn_file_close(from, &test_last_os_error));
    CHECK_OK(cairn_file_close(to, &test_last_os_error));
    test_free_aligned(data);
    free(from_path);
    free(to_path);
}

#ifndef _WIN32
/* On a thread of its own: the lowered priority cannot be raised back unprivileged, and the other
 * tests run on the main thread. */
static void *lower_cpu_priority(void *result)
{
    *(int32_t *)result = cairn_thread_cpu_priority_lowest(&test_last_os_error);
#ifdef __linux__
    /* This thread alone: getpriority on its own id says 19. */
    if (*(int32_t *)result == CAIRN_OK && getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid)) != 19)
        *(int32_t *)result = -1;
#endif
    return NULL;
}

static void test_cpu_priority(void)
{
    int before = getpriority(PRIO_PROCESS, 0);
    int32_t result = -2;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, lower_cpu_priority, &result) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(result == CAIRN_OK);
#ifdef __linux__
    /* The calling (main) thread kept its own. */
    CHECK(getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid)) == before);
#else
    (void)before;
#endif
}
#else
static void test_cpu_priority(void)
{
    CHECK_OK(cairn_thread_cpu_priority_lowest(&test_last_os_error));
}
#endif

int main(void)
{
    int fds_before = test_count_open_fds();
    char *dir = test_make_dir("files");
    test_open_errors(dir);
    test_size_allocate_zero_punch(dir);
    test_read_eof(dir);
    test_vectored_writes(dir);
    test_write_validation(dir);
    test_lock(dir);
    test_lock_released_while_a_child_holds_the_descriptor(dir);
    test_map(dir);
    test_memory();
    test_copies(dir);
    test_cpu_priority();
    test_null_handles();
    CHECK(test_count_open_fds() == fds_before);
    test_remove_dir(dir);
    free(dir);
    return 0;
}
