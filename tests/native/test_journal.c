/* Journals on the real disk: O_DIRECT|O_DSYNC without fallback, pre-zeroed to full size with no
 * unwritten extents left, aligned write/read round trips, alignment validation, and reopening
 * (which must neither re-zero nor shrink). */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <string.h>
#ifndef _WIN32
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>
#endif

#define KIB 1024
#define MIB (1024 * 1024)
#define MAX_EXTENTS 512

static cairn_file *open_journal(const char *path, int64_t size)
{
    int32_t effective = -1;
    cairn_file *f = test_open_journal(path, size, &effective);
    /* The scratch directory is on ext4: direct I/O must really be in effect, not the fallback. */
    CHECK(effective == CAIRN_JOURNAL_FLAGS);
    CHECK((effective & CAIRN_OPEN_DIRECT_FALLBACK) == 0);
    return f;
}

static int64_t journal_size(cairn_file *f)
{
    int64_t size = -1;
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    return size;
}

/* The point of pre-zeroing: every block of the journal is allocated and written, so no extent is
 * a hole or still "unwritten" (which each O_DSYNC commit would otherwise have to convert). Windows
 * does not show its valid data length, so there the check is that every byte has space. */
#ifdef _WIN32
static void check_fully_written(const char *path, int64_t size)
{
    CHECK(test_allocated_bytes(path) >= size);
}
#else
static void check_fully_written(const char *path, int64_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    struct fiemap *map = calloc(1, sizeof(struct fiemap) + MAX_EXTENTS * sizeof(struct fiemap_extent));
    CHECK(map != NULL);
    map->fm_start = 0;
    map->fm_length = (uint64_t)size;
    map->fm_flags = FIEMAP_FLAG_SYNC;
    map->fm_extent_count = MAX_EXTENTS;
    CHECK(ioctl(fd, FS_IOC_FIEMAP, map) == 0);
    CHECK(map->fm_mapped_extents < MAX_EXTENTS);
    uint64_t covered = 0;
    for (uint32_t i = 0; i < map->fm_mapped_extents; i++) {
        const struct fiemap_extent *e = &map->fm_extents[i];
        CHECK((e->fe_flags & FIEMAP_EXTENT_UNWRITTEN) == 0);
        CHECK(e->fe_logical == covered); /* no holes */
        covered += e->fe_length;
    }
    CHECK(covered >= (uint64_t)size);
    free(map);
    close(fd);
}
#endif

static void check_contents(cairn_file *f, const char *expected, int64_t size)
{
    char *back = test_aligned_pattern((size_t)size, 0);
    int64_t got = -1;
    CHECK_OK(cairn_file_read(f, back, size, 0, &got, &test_last_os_error));
    CHECK(got == size);
    CHECK(memcmp(back, expected, (size_t)size) == 0);
    test_free_aligned(back);
}

/* Writes a few aligned records (single and vectored) and keeps `model` in step. */
static void write_records(cairn_file *f, char *model, const char *pattern)
{
    cairn_buffer one = {pattern, 4 * KIB};
    CHECK_OK(cairn_file_write(f, &one, 1, 0, &test_last_os_error));
    memcpy(model, pattern, 4 * KIB);

    /* Entries from three places in memory go out as one vectored write: pwritev, and on Windows
     * WriteFileGather, which the direct, write-through journal handle allows. */
    cairn_buffer three[3] = {
        {pattern + 64 * KIB, 4 * KIB},
        {pattern + 256 * KIB, 8 * KIB},
        {pattern + 512 * KIB, 16 * KIB},
    };
    int64_t before = test_write_calls();
    CHECK_OK(cairn_file_write(f, three, 3, 64 * KIB, &test_last_os_error));
    CHECK(test_write_calls() - before == 1);
    memcpy(model + 64 * KIB, pattern + 64 * KIB, 4 * KIB);
    memcpy(model + 68 * KIB, pattern + 256 * KIB, 8 * KIB);
    memcpy(model + 76 * KIB, pattern + 512 * KIB, 16 * KIB);

    cairn_buffer big = {pattern + MIB, 256 * KIB};
    CHECK_OK(cairn_file_write(f, &big, 1, 3 * MIB, &test_last_os_error));
    memcpy(model + 3 * MIB, pattern + MIB, 256 * KIB);
}

static void test_round_trip(const char *dir)
{
    const int64_t size = 8 * MIB;
    char *path = test_join(dir, "journal");
    cairn_file *f = open_journal(path, size);
    CHECK(journal_size(f) == size);
    char *model = calloc(1, (size_t)(12 * MIB));
    CHECK(model != NULL);
    check_contents(f, model, size); /* fresh journal reads back as zeros */
    check_fully_written(path, size);

    char *pattern = test_aligned_pattern(2 * MIB, 1234);
    write_records(f, model, pattern);
    check_contents(f, model, size);

    test_expect_invalid_write(f, pattern + 512, 4096, 0); /* misaligned address */
    test_expect_invalid_write(f, pattern, 4000, 0);       /* misaligned length */
    test_expect_invalid_write(f, pattern, 4096, 100);     /* misaligned offset */
    check_contents(f, model, size);                       /* and none of them touched the file */
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    /* Reopening at the same or a smaller size keeps contents and size. */
    f = open_journal(path, size);
    check_contents(f, model, size);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    f = open_journal(path, 4 * MIB);
    CHECK(journal_size(f) == size);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    /* Growing pre-zeroes only the new tail. */
    f = open_journal(path, 12 * MIB);
    CHECK(journal_size(f) == 12 * MIB);
    check_contents(f, model, 12 * MIB);
    check_fully_written(path, 12 * MIB);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    test_free_aligned(pattern);
    free(model);
    free(path);
}

static void test_arguments(const char *dir)
{
    char *path = test_join(dir, "bad");
    cairn_file *f = NULL;
    int32_t eff = 0;
    CHECK(cairn_journal_open(NULL, 4096, &f, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_journal_open(path, 1000, &f, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_journal_open(path, -4096, &f, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_journal_open(path, 4096, NULL, &eff, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_journal_open(path, 4096, &f, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(!test_exists(path)); /* rejected before anything was created */

    char *missing = test_join(dir, "no-such-dir/journal");
    CHECK(cairn_journal_open(missing, 4096, &f, &eff, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    free(missing);

    /* A zero size opens (creating an empty journal) and extends nothing. */
    f = open_journal(path, 0);
    CHECK(journal_size(f) == 0);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    free(path);
}

int main(void)
{
    int fds_before = test_count_open_fds();
    char *dir = test_make_dir("journal");
    /* Everything below assumes a durable file system with direct I/O, as CAIRN_TEST_DIR promises. */
    cairn_fs_info info;
    CHECK_OK(cairn_fs_info_get(dir, &info, &test_last_os_error));
    CHECK(info.is_volatile == 0 && info.supports_direct_io == 1);
    test_round_trip(dir);
    test_arguments(dir);
    CHECK(test_count_open_fds() == fds_before);
    test_remove_dir(dir);
    free(dir);
    return 0;
}
