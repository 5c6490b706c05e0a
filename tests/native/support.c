#ifndef _GNU_SOURCE /* the build also passes -D_GNU_SOURCE (=1) through cairnpal_objects */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int32_t test_last_os_error;

char *test_make_dir(const char *name)
{
    static int counter;
    const char *root = getenv("CAIRN_TEST_DIR");
    if (root == NULL || root[0] == '\0')
        root = ".scratch/native-tests";
    char root_copy[4096];
    snprintf(root_copy, sizeof root_copy, "%s", root);
    /* mkdir -p without a shell */
    for (char *p = root_copy + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(root_copy, 0755);
            *p = '/';
        }
    }
    mkdir(root_copy, 0755);

    char *path = malloc(4096);
    CHECK(path != NULL);
    CHECK(snprintf(path, 4096, "%s/%s-%d-%d", root_copy, name, (int)getpid(), counter++) < 4096);
    CHECK(mkdir(path, 0755) == 0);
    return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void test_remove_dir(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *test_join(const char *dir, const char *leaf)
{
    size_t n = strlen(dir) + strlen(leaf) + 2;
    char *path = malloc(n);
    CHECK(path != NULL);
    snprintf(path, n, "%s/%s", dir, leaf);
    return path;
}

uint64_t test_next_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void *test_aligned_pattern(size_t size, uint64_t seed)
{
    void *buffer = NULL;
    CHECK(posix_memalign(&buffer, CAIRN_DIRECT_IO_ALIGNMENT, size ? size : CAIRN_DIRECT_IO_ALIGNMENT) == 0);
    uint64_t state = seed;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t v = test_next_random(&state);
        memcpy((char *)buffer + i, &v, 8);
    }
    for (size_t i = size & ~(size_t)7; i < size; i++)
        ((char *)buffer)[i] = (char)test_next_random(&state);
    return buffer;
}

void *test_read_file(const char *path, int64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    char *buffer = malloc(st.st_size ? (size_t)st.st_size : 1);
    CHECK(buffer != NULL);
    int64_t done = 0;
    while (done < st.st_size) {
        ssize_t n = pread(fd, buffer + done, (size_t)(st.st_size - done), done);
        if (n < 0 && errno == EINTR)
            continue;
        CHECK(n > 0);
        done += n;
    }
    close(fd);
    *size = st.st_size;
    return buffer;
}

void test_check_file(const char *path, const void *expected, int64_t size)
{
    int64_t actual_size = -1;
    char *actual = test_read_file(path, &actual_size);
    if (actual_size != size)
        fprintf(stderr, "%s: size %lld, expected %lld\n", path, (long long)actual_size, (long long)size);
    CHECK(actual_size == size);
    if (memcmp(actual, expected, (size_t)size) != 0) {
        for (int64_t i = 0; i < size; i++) {
            if (actual[i] != ((const char *)expected)[i]) {
                fprintf(stderr, "%s: first difference at byte %lld\n", path, (long long)i);
                break;
            }
        }
        CHECK(!"file content differs from the expected bytes");
    }
    free(actual);
}

/* What test_open and test_open_journal check of an open that returned CAIRN_OK. */
static cairn_file *opened(cairn_file *file, int32_t in_effect, int32_t *effective)
{
    CHECK(file != NULL);
    if (effective != NULL)
        *effective = in_effect;
    return file;
}

cairn_file *test_open(const char *path, int32_t flags, int32_t *effective)
{
    cairn_file *file = NULL;
    int32_t in_effect = -1;
    CHECK_OK(cairn_file_open(path, flags, &file, &in_effect, &test_last_os_error));
    return opened(file, in_effect, effective);
}

cairn_file *test_open_journal(const char *path, int64_t size, int32_t *effective)
{
    cairn_file *file = NULL;
    int32_t in_effect = -1;
    CHECK_OK(cairn_journal_open(path, size, &file, &in_effect, &test_last_os_error));
    return opened(file, in_effect, effective);
}

void test_close(cairn_file *file)
{
    CHECK_OK(cairn_file_close(file, &test_last_os_error));
}

void test_expect_invalid_write(cairn_file *file, const void *data, int64_t length, int64_t offset)
{
    cairn_buffer buffer = {data, length};
    test_last_os_error = -1;
    CHECK(cairn_file_write(file, &buffer, 1, offset, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(test_last_os_error == 0);
}

void test_disarm_fault(void)
{
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_NONE, 0, 0, 0, NULL, &test_last_os_error));
}

int64_t test_write_calls(void)
{
    int64_t count = 0;
    CHECK_OK(cairn_test_write_calls(&count, &test_last_os_error));
    return count;
}

int test_count_open_fds(void)
{
    DIR *directory = opendir("/proc/self/fd");
    CHECK(directory != NULL);
    int count = 0;
    while (readdir(directory) != NULL)
        count++;
    closedir(directory);
    return count;
}
