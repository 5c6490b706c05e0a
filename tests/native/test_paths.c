/* Paths: hard links and link counts, injected link failures (across file systems, at the link
 * limit), a real link and rename across file systems, file identity, durable renames (same and
 * different directory), directory sync, deletes, and what cairn_fs_info_get reports for the
 * real-disk scratch directory. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <string.h>
#ifndef _WIN32
#include <linux/magic.h>
#include <sys/stat.h>
#endif

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
    CHECK(test_last_os_error == TEST_ERROR_LINK_EXISTS);

    CHECK_OK(cairn_delete_file(b, &test_last_os_error));
    CHECK(links(a) == 1);
    CHECK(cairn_delete_file(b, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    CHECK(test_last_os_error == TEST_ERROR_NOT_FOUND);
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

    arm_link_fault(0, TEST_ERROR_CROSS_DEVICE, "branch-journal");
    CHECK(cairn_hard_link(journal, branch, &test_last_os_error) == CAIRN_E_CROSS_DEVICE);
    CHECK(test_last_os_error == TEST_ERROR_CROSS_DEVICE);
    CHECK(!test_exists(branch) && links(journal) == 1);

    arm_link_fault(0, TEST_ERROR_TOO_MANY_LINKS, "branch-journal");
    CHECK(cairn_hard_link(journal, branch, &test_last_os_error) == CAIRN_E_TOO_MANY_LINKS);
    CHECK(test_last_os_error == TEST_ERROR_TOO_MANY_LINKS);
    CHECK(!test_exists(branch) && links(journal) == 1);
    CHECK_OK(cairn_hard_link(journal, branch, &test_last_os_error)); /* fired once, then disarmed */
    CHECK(links(journal) == 2 && same(journal, branch) == 1);

    /* The filter goes by the new link's path: the existing file's name does not make a link fail,
     * and a link the filter passes over leaves the fault armed for the next one that matches. */
    arm_link_fault(0, TEST_ERROR_CROSS_DEVICE, "root-journal");
    CHECK_OK(cairn_hard_link(journal, other, &test_last_os_error));
    CHECK(links(journal) == 3);
    CHECK(cairn_hard_link(journal, copy, &test_last_os_error) == CAIRN_E_CROSS_DEVICE);
    CHECK(!test_exists(copy));

    /* `after` lets that many matching links through first. */
    CHECK_OK(cairn_delete_file(branch, &test_last_os_error));
    arm_link_fault(1, TEST_ERROR_TOO_MANY_LINKS, "journal");
    CHECK_OK(cairn_hard_link(journal, branch, &test_last_os_error));
    CHECK(cairn_hard_link(journal, copy, &test_last_os_error) == CAIRN_E_TOO_MANY_LINKS);
    CHECK(links(journal) == 3 && !test_exists(copy));
    test_disarm_fault();

    CHECK(cairn_test_set_fault(CAIRN_FAULT_READ_ERROR + 1, 0, 0, 0, NULL, &test_last_os_error) ==
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
    test_mkdir(sub);

    write_text(from, "payload");
    write_text(to, "old"); /* rename replaces an existing target atomically */
    CHECK_OK(cairn_rename_durable(from, to, &test_last_os_error));
    CHECK(!test_exists(from));
    check_text(to, "payload");

    CHECK_OK(cairn_rename_durable(to, in_sub, &test_last_os_error)); /* different directories */
    check_text(in_sub, "payload");
    CHECK(!test_exists(to));

    CHECK(cairn_rename_durable(from, to, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    CHECK(test_last_os_error == TEST_ERROR_NOT_FOUND);

    /* A link into another directory, and a bare relative name (whose directory is "."). */
    char *linked = test_join(dir, "linked");
    CHECK_OK(cairn_hard_link(in_sub, linked, &test_last_os_error));
    CHECK(same(in_sub, linked) == 1);
    char *cwd = test_getcwd(); /* CAIRN_TEST_DIR may be relative */
    test_chdir(sub);
    CHECK_OK(cairn_rename_durable("moved", "moved-again", &test_last_os_error));
    test_chdir(cwd);
    free(cwd);
    char *again = test_join(sub, "moved-again");
    CHECK(same(again, linked) == 1);

    CHECK_OK(cairn_sync_directory(dir, &test_last_os_error));
    CHECK_OK(cairn_sync_directory(sub, &test_last_os_error));
    CHECK(cairn_sync_directory(again, &test_last_os_error) == CAIRN_E_NOT_FOUND); /* ENOTDIR */
    CHECK(test_last_os_error == TEST_ERROR_NOT_DIRECTORY);
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

/* A real link and rename from the scratch disk to another file system (CAIRN_TEST_OTHER_FS_DIR, which
 * ctest points at a tmpfs: /dev/shm, Z:\dev\shm under wine): EXDEV, ERROR_NOT_SAME_DEVICE on
 * Windows, reported as cross device, with nothing created or moved. */
static void test_cross_device(const char *dir)
{
    const char *other_root = getenv("CAIRN_TEST_OTHER_FS_DIR");
    if (other_root == NULL || other_root[0] == '\0') {
        printf("NOTE: the cross-device link was NOT provoked: CAIRN_TEST_OTHER_FS_DIR is not set\n");
        return;
    }
    char *other = test_make_dir_in(other_root, "paths-xdev");
#ifndef _WIN32
    struct stat here, there;
    CHECK(stat(dir, &here) == 0 && stat(other, &there) == 0);
    CHECK(here.st_dev != there.st_dev); /* else the variable names no other file system */
#endif
    char *journal = test_join(dir, "xdev-journal");
    char *link = test_join(other, "xdev-link");
    write_text(journal, "entries");

    CHECK(cairn_hard_link(journal, link, &test_last_os_error) == CAIRN_E_CROSS_DEVICE);
    CHECK(test_last_os_error == TEST_ERROR_CROSS_DEVICE);
    CHECK(!test_exists(link) && links(journal) == 1);

    CHECK(cairn_rename_durable(journal, link, &test_last_os_error) == CAIRN_E_CROSS_DEVICE);
    CHECK(test_last_os_error == TEST_ERROR_CROSS_DEVICE);
    CHECK(!test_exists(link));
    check_text(journal, "entries");

    free(link);
    free(journal);
    test_remove_dir(other);
    free(other);
    test_rmdir_if_empty(other_root);
}

static void test_fs_info(const char *dir)
{
    int entries = test_count_entries(dir);
    cairn_fs_info info;
    memset(&info, 0xAB, sizeof info);
    CHECK_OK(cairn_fs_info_get(dir, &info, &test_last_os_error));
    CHECK(info.is_volatile == 0);
    CHECK(info.supports_direct_io == 1);
#ifdef _WIN32
    CHECK(info.fs_type == 0); /* Windows reports no type */
#else
    CHECK(info.fs_type == EXT4_SUPER_MAGIC);
#endif
    CHECK(info.block_size > 0);
    CHECK(info.free_bytes > 0 && info.total_bytes >= info.free_bytes);
    CHECK(info.reserved == 0 && info.reserved2 == 0);
    CHECK(test_count_entries(dir) == entries); /* the probe file is gone */

    char *missing = test_join(dir, "missing");
    CHECK(cairn_fs_info_get(missing, &info, &test_last_os_error) == CAIRN_E_NOT_FOUND);
    free(missing);
}

/* Names past MAX_PATH (260) once joined to the directory, and names beyond ASCII: every path export
 * must take them (Windows needs the \\?\ prefix for the first and UTF-16 for the second). The
 * files are made, checked and removed through the library alone. */
static void test_long_and_unicode_names(const char *dir)
{
    char component[241];
    memset(component, 'n', sizeof component - 1);
    component[sizeof component - 1] = '\0';
    const char *leaves[] = {component, "journal-\xC3\xBC-\xE6\x97\xA5\xE6\x9C\xAC-\xF0\x9F\x93\x9D"};
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        char *path = test_join(dir, leaves[i]);
        char *linked = malloc(strlen(path) + 3);
        char *renamed = malloc(strlen(path) + 3);
        CHECK(linked != NULL && renamed != NULL);
        snprintf(linked, strlen(path) + 3, "%s-l", path);
        snprintf(renamed, strlen(path) + 3, "%s-r", path);
        if (i == 0)
            CHECK(strlen(path) > 260);

        cairn_file *f = test_open(path, CAIRN_OPEN_CREATE_NEW, NULL);
        cairn_buffer b = {"long", 4};
        CHECK_OK(cairn_file_write(f, &b, 1, 0, &test_last_os_error));
        test_close(f);
        f = test_open_journal(path, 8192, NULL);
        test_close(f);

        CHECK_OK(cairn_hard_link(path, linked, &test_last_os_error));
        CHECK(links(path) == 2 && same(path, linked) == 1);
        CHECK_OK(cairn_rename_durable(linked, renamed, &test_last_os_error));
        CHECK(same(path, renamed) == 1);
        CHECK(cairn_link_count(linked, &(int64_t){0}, &test_last_os_error) == CAIRN_E_NOT_FOUND);

        f = test_open(renamed, CAIRN_OPEN_READ_ONLY, NULL);
        char back[4];
        int64_t got = 0;
        CHECK_OK(cairn_file_read(f, back, 4, 0, &got, &test_last_os_error));
        CHECK(got == 4 && memcmp(back, "long", 4) == 0);
        test_close(f);

        CHECK_OK(cairn_delete_file(renamed, &test_last_os_error));
        CHECK_OK(cairn_delete_file(path, &test_last_os_error));
        CHECK(cairn_link_count(path, &(int64_t){0}, &test_last_os_error) == CAIRN_E_NOT_FOUND);
        free(renamed);
        free(linked);
        free(path);
    }

#ifdef _WIN32
    /* Paths are UTF-8: bytes that are not must fail, not become U+FFFD and name some other file.
     * (On POSIX a name is bytes, and these are a valid one.) */
    char *invalid = test_join(dir, "bad-\xff\xfe");
    cairn_file *none = NULL;
    int32_t effective = 0;
    CHECK(cairn_file_open(invalid, CAIRN_OPEN_CREATE, &none, &effective, &test_last_os_error) ==
          CAIRN_E_INVALID_ARGUMENT);
    CHECK(test_last_os_error == ERROR_NO_UNICODE_TRANSLATION);
    CHECK(cairn_delete_file(invalid, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    free(invalid);
#endif

    /* A directory whose own path is past MAX_PATH: what the library asks of a directory (sync,
     * file system information and its direct I/O probe, the parent of a new link) works there too. */
    char *deep = test_join(dir, component);
    test_mkdir(deep);
    char *inside = test_join(deep, "journal");
    cairn_file *f = test_open_journal(inside, 8192, NULL);
    test_close(f);
    char *linked = test_join(deep, "linked");
    CHECK_OK(cairn_hard_link(inside, linked, &test_last_os_error));
    CHECK_OK(cairn_sync_directory(deep, &test_last_os_error));
    cairn_fs_info info;
    CHECK_OK(cairn_fs_info_get(deep, &info, &test_last_os_error));
    CHECK(info.supports_direct_io == 1 && info.block_size > 0 && info.free_bytes > 0);
    CHECK_OK(cairn_delete_file(linked, &test_last_os_error));
    CHECK_OK(cairn_delete_file(inside, &test_last_os_error));
    test_rmdir(deep);
    free(linked);
    free(inside);
    free(deep);
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
    test_cross_device(dir);
    test_renames(dir);
    test_fs_info(dir);
    test_long_and_unicode_names(dir);
    test_null_arguments(dir);
    test_remove_dir(dir);
    free(dir);
    return 0;
}
