/* Paths: hard links and link counts, injected link failures (across file systems, at the link
 * limit), file identity, durable renames (same and different directory), directory sync, deletes,
 * and what cairn_fs_info_get reports for the real-disk scratch directory. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
    cairn_file *f = NULL;
    int32_t eff = 0;
    CHECK_OK(cairn_file_open(path, CAIRN_OPEN_CREATE, &f, &eff, &test_last_os_error));
    cairn_buffer b = {text, (int64_t)strlen(text)};
    CHECK_OK(cairn_file_write(f, &b, 1, 0, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
}

static void check_text(const char *path, const char *text)
{
    int64_t size = 0;
    char *data = test_read_file(path, &size);
    CHECK(size == (int64_t)strlen(text) && memcmp(data, text, (size_t)size) == 0);
    free(data);
}

static int64_t links(const char *path)
{
    int64_t count = -1;
    CHECK_OK(cairn_link_count(path, &count, &test_last_os_error));
    return count;
}

static int same(const char *a, const char *b)
{
    int32_t result = -1;
    CHECK_OK(cairn_same_file(a, b, &result, &test_last_os_error));
    return result;
}

static void test_links(const char *dir)
{
    char *a = test_join(dir, "a");
    char *b = test_join(dir, "b");
    char *other = test_join(dir, "other");
    write_text(a, "alpha");
    write_text(other, "alpha"); /* same bytes, different file */

    CHECK(links(a) == 1);
    CHECK_OK(cairn_hard_link(a, b, &test_last_os_error));
    CHECK(links(a) == 2 && links(b) == 2);
    CHECK(same(a, b) == 1);
    CHECK(same(a, other) == 0);
    check_text(b, "alpha");

    CHECK(cairn_hard_link(a, other, &test_last_os_error) == CAIRN_E_ALREADY_EXISTS);
    CHECK(test_last_os_error == EEXIST);

    CHECK_OK(cairn_delete_file(b, &test_last_os_error));
    CHECK(links(a) == 1);
    CHECK(cairn_delete_file(b, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    CHECK(test_last_os_error == ENOENT);
    CHECK(cairn_link_count(b, &(int64_t){0}, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    CHECK(cairn_same_file(a, b, &(int32_t){0}, &test_last_os_error) == CAIRN_E_NOT_FOUND);

    free(other);
    free(b);
    free(a);
}

static void arm_link_fault(int64_t after, int32_t error, const char *filter)
{
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_LINK_ERROR, after, 0, error, filter, &test_last_os_error));
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The two link failures a shared journal must tell apart, provoked on one file system: the fault
 * fails the link with the injected error and creates nothing, fires once, and only for links whose
 * new path matches the filter. */
static void test_link_faults(const char *dir)
{
    char *journal = test_join(dir, "root-journal");
    char *branch = test_join(dir, "branch-journal");
    char *other = test_join(dir, "other-link");
    char *copy = test_join(dir, "root-journal-copy");
    write_text(journal, "entries");

    arm_link_fault(0, EXDEV, "branch-journal");
    CHECK(cairn_hard_link(journal, branch, &test_last_os_error) == CAIRN_E_CROSS_DEVICE);
    CHECK(test_last_os_error == EXDEV);
    CHECK(!exists(branch) && links(journal) == 1);

    arm_link_fault(0, EMLINK, "branch-journal");
    CHECK(cairn_hard_link(journal, branch, &test_last_os_error) == CAIRN_E_TOO_MANY_LINKS);
    CHECK(test_last_os_error == EMLINK);
    CHECK(!exists(branch) && links(journal) == 1);
    CHECK_OK(cairn_hard_link(journal, branch, &test_last_os_error)); /* fired once, then disarmed */
    CHECK(links(journal) == 2 && same(journal, branch) == 1);

    /* The filter goes by the new link's path: the existing file's name does not make a link fail,
     * and a link the filter passes over leaves the fault armed for the next one that matches. */
    arm_link_fault(0, EXDEV, "root-journal");
    CHECK_OK(cairn_hard_link(journal, other, &test_last_os_error));
    CHECK(links(journal) == 3);
    CHECK(cairn_hard_link(journal, copy, &test_last_os_error) == CAIRN_E_CROSS_DEVICE);
    CHECK(!exists(copy));

    /* `after` lets that many matching links through first. */
    CHECK_OK(cairn_delete_file(branch, &test_last_os_error));
    arm_link_fault(1, EMLINK, "journal");
    CHECK_OK(cairn_hard_link(journal, branch, &test_last_os_error));
    CHECK(cairn_hard_link(journal, copy, &test_last_os_error) == CAIRN_E_TOO_MANY_LINKS);
    CHECK(links(journal) == 3 && !exists(copy));
    test_disarm_fault();

    CHECK(cairn_test_set_fault(CAIRN_FAULT_LINK_ERROR + 1, 0, 0, 0, NULL, &test_last_os_error) ==
          CAIRN_E_INVALID_ARGUMENT);

    free(copy);
    free(other);
    free(branch);
    free(journal);
}

static void test_renames(const char *dir)
{
    char *from = test_join(dir, "from");
    char *to = test_join(dir, "to");
    char *sub = test_join(dir, "sub");
    char *in_sub = test_join(sub, "moved");
    CHECK(mkdir(sub, 0755) == 0);

    write_text(from, "payload");
    write_text(to, "old"); /* rename replaces an existing target atomically */
    CHECK_OK(cairn_rename_durable(from, to, &test_last_os_error));
    CHECK(access(from, F_OK) != 0);
    check_text(to, "payload");

    CHECK_OK(cairn_rename_durable(to, in_sub, &test_last_os_error)); /* different directories */
    check_text(in_sub, "payload");
    CHECK(access(to, F_OK) != 0);

    CHECK(cairn_rename_durable(from, to, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    CHECK(test_last_os_error == ENOENT);

    /* A link into another directory, and a bare relative name (whose directory is "."). */
    char *linked = test_join(dir, "linked");
    CHECK_OK(cairn_hard_link(in_sub, linked, &test_last_os_error));
    CHECK(same(in_sub, linked) == 1);
    int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* CAIRN_TEST_DIR may be relative */
    CHECK(cwd >= 0 && chdir(sub) == 0);
    CHECK_OK(cairn_rename_durable("moved", "moved-again", &test_last_os_error));
    CHECK(fchdir(cwd) == 0 && close(cwd) == 0);
    char *again = test_join(sub, "moved-again");
    CHECK(same(again, linked) == 1);

    CHECK_OK(cairn_sync_directory(dir, &test_last_os_error));
    CHECK_OK(cairn_sync_directory(sub, &test_last_os_error));
    CHECK(cairn_sync_directory(again, &test_last_os_error) == CAIRN_E_NOT_FOUND); /* ENOTDIR */
    CHECK(test_last_os_error == ENOTDIR);
    char *missing = test_join(dir, "missing");
    CHECK(cairn_sync_directory(missing, &test_last_os_error) == CAIRN_E_NOT_FOUND);

    free(missing);
    free(again);
    free(linked);
    free(in_sub);
    free(sub);
    free(to);
    free(from);
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_fs_info(const char *dir)
{
    int entries = count_entries(dir);
    cairn_fs_info info;
    memset(&info, 0xAB, sizeof info);
    CHECK_OK(cairn_fs_info_get(dir, &info, &test_last_os_error));
    CHECK(info.is_volatile == 0);
    CHECK(info.supports_direct_io == 1);
    CHECK(info.fs_type == EXT4_SUPER_MAGIC);
    CHECK(info.block_size > 0);
    CHECK(info.free_bytes > 0 && info.total_bytes >= info.free_bytes);
    CHECK(info.reserved == 0 && info.reserved2 == 0);
    CHECK(count_entries(dir) == entries); /* the probe file is gone */

    char *missing = test_join(dir, "missing");
    CHECK(cairn_fs_info_get(missing, &info, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    free(missing);
}

static void test_null_arguments(const char *dir)
{
    int64_t count = 0;
    int32_t flag = 0;
    cairn_fs_info info;
    CHECK(cairn_delete_file(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_sync_directory(NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_rename_durable(NULL, dir, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_rename_durable(dir, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_hard_link(NULL, dir, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_hard_link(dir, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_same_file(NULL, dir, &flag, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_same_file(dir, NULL, &flag, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_same_file(dir, dir, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_link_count(NULL, &count, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_link_count(dir, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_fs_info_get(NULL, &info, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_fs_info_get(dir, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
}

int main(void)
{
    char *dir = test_make_dir("paths");
    test_links(dir);
    test_link_faults(dir);
    test_renames(dir);
    test_fs_info(dir);
    test_null_arguments(dir);
    test_remove_dir(dir);
    free(dir);
    return 0;
}
