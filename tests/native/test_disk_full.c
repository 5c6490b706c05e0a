/* Disk full, injected and real.
 *  (a) Fault hooks: write errors (ENOSPC, EDQUOT, EIO) and zero-byte writes become the right status
 *      and OS error, honour the path filter and fire once; a journal whose pre-zeroing fails is
 *      closed and cut back.
 *  (b) A real ENOSPC on a 4 MiB ext4 image mounted through a loop device: a journal larger than the
 *      free space, then filling the file system with journal writes until the write that fails.
 *  (c) Volatile file systems: tmpfs and ramfs are reported as such; ramfs refuses O_DIRECT, so the
 *      journal falls back; tmpfs runs out of space with a real ENOSPC too.
 * (b) and (c) need mount(2); without it (not root, no loop devices) they are skipped with a note,
 * unless CAIRN_TEST_REQUIRE_MOUNTS is set, which turns a skip into a failure.
 * On Windows (under wine) (a) runs as it is, with Windows errors (ERROR_DISK_FULL,
 * ERROR_DISK_QUOTA_EXCEEDED, ERROR_IO_DEVICE), and (b) fills the small file system that win_run
 * mounts for it (a 4 MiB tmpfs, named by CAIRN_TEST_SMALL_FS_DIR) until the real ERROR_DISK_FULL
 * that wine makes of ENOSPC; (c) is about Linux file systems. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <stdarg.h>
#include <string.h>
#ifndef _WIN32
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#define KIB 1024
#define MIB (1024 * 1024)
#define MAX_MOUNTS 4
#define PATH_CAPACITY 4096

#ifndef _WIN32
static char g_mounts[MAX_MOUNTS][PATH_CAPACITY];
static int g_mount_count;

/* Runs a shell command; returns its exit status (-1 if it did not exit normally). */
static int run(const char *format, ...)
{
    char command[3 * PATH_CAPACITY];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(command, sizeof command, format, args);
    va_end(args);
    CHECK(n > 0 && (size_t)n < sizeof command);
    fflush(stdout);
    int rc = system(command);
    return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A CHECK that fails exits with mounts in place; lazy unmounts keep the scratch tree removable and
 * the loop devices from leaking. */
static void unmount_leftovers(void)
{
    for (int i = g_mount_count - 1; i >= 0; i--)
        run("umount -l '%s' >/dev/null 2>&1", g_mounts[i]);
}

static int try_mount(const char *source_and_options, const char *target)
{
    CHECK(g_mount_count < MAX_MOUNTS && strlen(target) < PATH_CAPACITY && strchr(target, '\'') == NULL);
    if (run("mount %s '%s'", source_and_options, target) != 0)
        return 0;
    snprintf(g_mounts[g_mount_count++], PATH_CAPACITY, "%s", target);
    return 1;
}

static void unmount(const char *target)
{
    CHECK(g_mount_count > 0 && strcmp(g_mounts[g_mount_count - 1], target) == 0);
    CHECK(run("umount '%s'", target) == 0);
    g_mount_count--;
}

#endif

static void skip(const char *part, const char *why)
{
    printf("NOTE: %s was NOT run: %s\n", part, why);
    if (getenv("CAIRN_TEST_REQUIRE_MOUNTS") != NULL) {
        fprintf(stderr, "CAIRN_TEST_REQUIRE_MOUNTS is set, so a skipped part is a failure\n");
        exit(1);
    }
}

static int32_t write_block(cairn_file *f, const void *data, int64_t length, int64_t offset)
{
    cairn_buffer b = {data, length};
    return cairn_file_write(f, &b, 1, offset, &test_last_os_error);
}

static int64_t size_on_disk(const char *path)
{
    return test_file_size(path);
}

static void expect_write_fails(cairn_file *f, const void *data, int32_t status, int32_t os_error)
{
    CHECK(write_block(f, data, 4096, 0) == status);
    CHECK(test_last_os_error == os_error);
}

static void test_injected_writes(const char *dir)
{
    char *victim_path = test_join(dir, "victim-journal");
    char *bystander_path = test_join(dir, "bystander-data");
    cairn_file *victim = test_open(victim_path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, NULL);
    cairn_file *bystander = test_open(bystander_path, CAIRN_OPEN_CREATE | CAIRN_OPEN_DIRECT, NULL);
    char *block = test_aligned_pattern(4096, 8);

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_WRITE_ERROR, 0, 0, TEST_ERROR_DISK_FULL, "victim-journal", &test_last_os_error));
    CHECK_OK(write_block(bystander, block, 4096, 0)); /* outside the filter: unaffected, fault stays armed */
    expect_write_fails(victim, block, CAIRN_E_DISK_FULL, TEST_ERROR_DISK_FULL);
    CHECK_OK(write_block(victim, block, 4096, 0)); /* fired once */

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_WRITE_ERROR, 2, 0, TEST_ERROR_QUOTA, "victim", &test_last_os_error));
    CHECK_OK(write_block(victim, block, 4096, 0));
    CHECK_OK(write_block(victim, block, 4096, 4096));
    expect_write_fails(victim, block, CAIRN_E_DISK_FULL, TEST_ERROR_QUOTA);

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_WRITE_ERROR, 0, 0, TEST_ERROR_IO, "victim", &test_last_os_error));
    expect_write_fails(victim, block, CAIRN_E_IO, TEST_ERROR_IO);

    /* A write that makes no progress is how some file systems say "full" without an errno. */
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_ZERO_WRITE, 0, 0, 0, "victim-journal", &test_last_os_error));
    CHECK_OK(write_block(bystander, block, 4096, 0));
    expect_write_fails(victim, block, CAIRN_E_DISK_FULL, TEST_ERROR_DISK_FULL);
    CHECK_OK(write_block(victim, block, 4096, 0));

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_WRITE_ERROR, 0, 0, TEST_ERROR_DISK_FULL, "victim", &test_last_os_error));
    CHECK(cairn_file_zero(victim, 0, 2 * MIB, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    test_disarm_fault();

    CHECK_OK(cairn_file_close(victim, &test_last_os_error));
    CHECK_OK(cairn_file_close(bystander, &test_last_os_error));
    test_free_aligned(block);
    free(bystander_path);
    free(victim_path);
}

/* A journal whose pre-zeroing fails is reported, closed, and left at its old size. */
static void test_injected_journal(const char *dir)
{
    char *path = test_join(dir, "fault-journal");
    cairn_file *f = NULL;
    int32_t eff = 0;
    int fds = test_count_open_fds();

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_ZERO_WRITE, 1, 0, 0, "fault-journal", &test_last_os_error));
    CHECK(cairn_journal_open(path, 32 * MIB, &f, &eff, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    CHECK(test_count_open_fds() == fds);
    CHECK(size_on_disk(path) == 0);

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_SYNC_ERROR, 0, 0, TEST_ERROR_IO, "fault-journal", &test_last_os_error));
    CHECK(cairn_journal_open(path, MIB, &f, &eff, &test_last_os_error) == CAIRN_E_IO);
    CHECK(test_last_os_error == TEST_ERROR_IO);
    CHECK(test_count_open_fds() == fds);
    CHECK(size_on_disk(path) == 0);
    test_disarm_fault();

    f = test_open_journal(path, MIB, NULL);
    CHECK(size_on_disk(path) == MIB);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    free(path);
}

#ifndef _WIN32
static void check_fs(const char *dir, int64_t type, int32_t is_volatile, int32_t direct, cairn_fs_info *info)
{
    CHECK_OK(cairn_fs_info_get(dir, info, &test_last_os_error));
    CHECK(info->fs_type == type);
    CHECK(info->is_volatile == is_volatile);
    if (direct >= 0)
        CHECK(info->supports_direct_io == direct);
}

#endif

/* Writes `block_size` blocks at increasing offsets from `offset` until a write fails; returns the
 * failing status and the offset reached. */
static int32_t fill(cairn_file *f, const char *block, int64_t block_size, int64_t *offset)
{
    for (int i = 0; i < 100000; i++) {
        int32_t status = write_block(f, block, block_size, *offset);
        if (status != CAIRN_OK)
            return status;
        *offset += block_size;
    }
    CHECK(!"the file system never filled up");
    return CAIRN_OK;
}

static void check_filled_range(cairn_file *f, const char *block, int64_t from, int64_t to)
{
    char *back = test_aligned_pattern(64 * KIB, 0);
    for (int64_t at = from; at < to; at += 64 * KIB) {
        int64_t got = 0;
        CHECK_OK(cairn_file_read(f, back, 64 * KIB, at, &got, &test_last_os_error));
        CHECK(memcmp(back, block, 64 * KIB) == 0);
    }
    test_free_aligned(back);
}

/* Fills a small file system (`mnt`, which reports `free_before` bytes free) through the library. */
static void fill_small_fs(const char *mnt, int64_t free_before)
{
    int fds = test_count_open_fds();
    cairn_file *journal = NULL;
    int32_t eff = 0;

    /* Larger than the free space: fails as disk full, and gives back what it grabbed. */
    char *big = test_join(mnt, "too-big-journal");
    int64_t big_size = (free_before + 2 * MIB) & ~(int64_t)(4096 - 1);
    CHECK(cairn_journal_open(big, big_size, &journal, &eff, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    CHECK(size_on_disk(big) == 0);
    CHECK(test_count_open_fds() == fds);

    char *path = test_join(mnt, "journal");
    journal = test_open_journal(path, 256 * KIB, &eff);
    CHECK(eff == CAIRN_JOURNAL_FLAGS);
    char *block = test_aligned_pattern(64 * KIB, 77);
    int64_t offset = 256 * KIB;
    CHECK(fill(journal, block, 64 * KIB, &offset) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    printf("part (b): journal writes filled %lld bytes of a file system reporting %lld free, then disk full\n",
           (long long)(offset - 256 * KIB), (long long)free_before);
    CHECK(offset - 256 * KIB >= free_before / 2); /* the failed big journal did not keep its space */
    check_filled_range(journal, block, 256 * KIB, offset);

    /* Everything else that needs space now fails the same way. */
    char *data_path = test_join(mnt, "data");
    cairn_file *data = test_open(data_path, CAIRN_OPEN_CREATE, NULL);
    CHECK(write_block(data, block, 64 * KIB, 0) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    int32_t allocated = -1;
    int32_t status = cairn_file_allocate(data, 0, MIB, &allocated, &test_last_os_error);
    /* Wine cannot reserve space (no FileAllocationInfo): it extends the file sparsely, and says so. */
    CHECK(status == CAIRN_E_DISK_FULL || (status == CAIRN_OK && allocated == 0 && test_under_wine()));
    char *second = test_join(mnt, "second-journal");
    cairn_file *unused = NULL;
    CHECK(cairn_journal_open(second, MIB, &unused, &eff, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);

    CHECK_OK(cairn_file_close(data, &test_last_os_error));
    CHECK_OK(cairn_file_close(journal, &test_last_os_error));
    CHECK(test_count_open_fds() == fds);
    free(second);
    free(data_path);
    test_free_aligned(block);
    free(path);
    free(big);
}

#ifndef _WIN32
static void test_real_ext4(const char *dir)
{
    const char *part = "part (b) (real ENOSPC on a loop-mounted ext4 image)";
    if (geteuid() != 0) {
        skip(part, "not running as root, and mount(2) needs CAP_SYS_ADMIN");
        return;
    }
    char *image = test_join(dir, "ext4.img");
    char *mnt = test_join(dir, "ext4-mnt");
    CHECK(mkdir(mnt, 0755) == 0);
    int fd = open(image, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fd >= 0 && ftruncate(fd, 4 * MIB) == 0 && close(fd) == 0);

    char source[2 * PATH_CAPACITY];
    snprintf(source, sizeof source, "-o loop '%s'", image);
    if (run("mkfs.ext4 -q -F '%s' >/dev/null 2>&1", image) != 0) {
        skip(part, "mkfs.ext4 is missing or failed");
    } else if (!try_mount(source, mnt)) {
        skip(part, "mount -o loop failed (no loop devices, or mounting is not permitted here)");
    } else {
        cairn_fs_info info;
        check_fs(mnt, EXT4_SUPER_MAGIC, 0, 1, &info);
        CHECK(info.free_bytes > MIB && info.total_bytes <= 4 * MIB);
        fill_small_fs(mnt, info.free_bytes);
        unmount(mnt);
        printf("part (b) ran\n");
    }
    free(mnt);
    free(image);
}

/* A fresh mount of `source_and_options` at dir/leaf, or NULL, after skip(part, why), where it
 * cannot be mounted. */
static char *mount_scratch(const char *dir, const char *leaf, const char *source_and_options, const char *part,
                           const char *why)
{
    char *mnt = test_join(dir, leaf);
    CHECK(mkdir(mnt, 0755) == 0);
    if (try_mount(source_and_options, mnt))
        return mnt;
    skip(part, why);
    free(mnt);
    return NULL;
}

static void test_tmpfs(const char *dir)
{
    char *mnt = mount_scratch(dir, "tmpfs-mnt", "-t tmpfs -o size=1m tmpfs", "the tmpfs check",
                              "mount -t tmpfs failed");
    if (mnt == NULL)
        return;
    cairn_fs_info info;
    check_fs(mnt, TMPFS_MAGIC, 1, -1, &info); /* newer kernels take O_DIRECT on tmpfs: either answer */

    char *path = test_join(mnt, "journal");
    int32_t eff = 0;
    cairn_file *f = test_open_journal(path, 64 * KIB, &eff);
    CHECK(((eff & CAIRN_OPEN_DIRECT_FALLBACK) != 0) == (info.supports_direct_io == 0));
    char *block = test_aligned_pattern(64 * KIB, 5);
    int64_t offset = 64 * KIB;
    CHECK(fill(f, block, 64 * KIB, &offset) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    unmount(mnt);
    test_free_aligned(block);
    free(path);
    free(mnt);
}

static void test_ramfs(const char *dir)
{
    char *mnt = mount_scratch(dir, "ramfs-mnt", "-t ramfs ramfs", "the ramfs check", "mount -t ramfs failed");
    if (mnt == NULL)
        return;
    cairn_fs_info info;
    check_fs(mnt, RAMFS_MAGIC, 1, 0, &info); /* ramfs has no direct I/O at all */

    /* The journal falls back to O_DSYNC alone, and then takes unaligned writes. */
    char *path = test_join(mnt, "journal");
    int32_t eff = 0;
    cairn_file *f = test_open_journal(path, 64 * KIB, &eff);
    CHECK(eff == ((CAIRN_JOURNAL_FLAGS & ~CAIRN_OPEN_DIRECT) | CAIRN_OPEN_DIRECT_FALLBACK));
    CHECK(size_on_disk(path) == 64 * KIB);
    CHECK_OK(write_block(f, "unaligned", 9, 3));
    char back[12];
    int64_t got = 0;
    CHECK_OK(cairn_file_read(f, back, 12, 0, &got, &test_last_os_error));
    CHECK(memcmp(back, "\0\0\0unaligned", 12) == 0);
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    /* An exclusive create must survive the fallback (the refused O_DIRECT must not leave the file
     * behind and turn the retry into EEXIST). */
    char *fresh = test_join(mnt, "fresh");
    f = NULL;
    CHECK_OK(cairn_file_open(fresh, CAIRN_OPEN_CREATE_NEW | CAIRN_OPEN_DIRECT, &f, &eff, &test_last_os_error));
    CHECK(eff == (CAIRN_OPEN_CREATE_NEW | CAIRN_OPEN_DIRECT_FALLBACK));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));

    unmount(mnt);
    free(fresh);
    free(path);
    free(mnt);
}

static void test_volatile(const char *dir)
{
    if (geteuid() != 0) {
        skip("the tmpfs/ramfs checks", "not running as root, and mount(2) needs CAP_SYS_ADMIN");
        return;
    }
    test_tmpfs(dir);
    test_ramfs(dir);
}

#else
/* The 4 MiB tmpfs win_run mounts at CAIRN_TEST_SMALL_FS_DIR when it can (as root), unmounted after. */
static void test_real_small_fs(void)
{
    const char *part = "part (b) (real ERROR_DISK_FULL on a small file system)";
    const char *root = getenv("CAIRN_TEST_SMALL_FS_DIR");
    if (root == NULL || root[0] == '\0') {
        skip(part, "CAIRN_TEST_SMALL_FS_DIR is not set (win_run mounts a small tmpfs there when run as root)");
        return;
    }
    cairn_fs_info info;
    CHECK_OK(cairn_fs_info_get(root, &info, &test_last_os_error));
    CHECK(info.free_bytes > MIB && info.total_bytes <= 4 * MIB);
    char *mnt = test_make_dir_in(root, "disk-full");
    fill_small_fs(mnt, info.free_bytes);
    test_remove_dir(mnt);
    free(mnt);
    printf("part (b) ran\n");
}
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char *dir = test_make_dir("disk-full");
    test_injected_writes(dir);
    test_injected_journal(dir);
#ifdef _WIN32
    test_real_small_fs();
#else
    atexit(unmount_leftovers);
    test_real_ext4(dir);
    test_volatile(dir);
#endif
    test_remove_dir(dir);
    free(dir);
    return 0;
}
