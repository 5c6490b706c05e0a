/* Paths and directories (POSIX): durable renames and links, identity checks, and what a directory's
 * file system offers. A rename or link is only durable once the directory holding the new name is
 * synced; that is why those exports sync before returning. */
#include "posix_files.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

CAIRN_EXPORT int32_t cairn_delete_file(const char *path, int32_t *os_error)
{
    if (path == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (unlink(path) != 0)
        return cairn_fail(errno, os_error);
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_sync_directory(const char *path, int32_t *os_error)
{
    if (path == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int fd;
    do {
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return cairn_fail(errno, os_error);
    int error = 0;
    while (fsync(fd) != 0) {
        if (errno != EINTR) {
            error = errno;
            break;
        }
    }
    close(fd);
    return error != 0 ? cairn_fail(error, os_error) : cairn_ok(os_error);
}

/* The directory holding `path`, malloc'd; NULL when out of memory. */
static char *parent_directory(const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return NULL;
    /* dirname may return a static "." rather than a pointer into `copy`, so copy its result. */
    char *parent = strdup(dirname(copy));
    free(copy);
    return parent;
}

static int32_t sync_parent(const char *path, int32_t *os_error)
{
    char *parent = parent_directory(path);
    if (parent == NULL)
        return cairn_fail(ENOMEM, os_error);
    int32_t status = cairn_sync_directory(parent, os_error);
    free(parent);
    return status;
}

static int same_parent(const char *a, const char *b)
{
    char *parent_a = parent_directory(a);
    char *parent_b = parent_directory(b);
    /* When unsure (out of memory), say "different" so both directories get synced. */
    int same = parent_a != NULL && parent_b != NULL && strcmp(parent_a, parent_b) == 0;
    free(parent_a);
    free(parent_b);
    return same;
}

CAIRN_EXPORT int32_t cairn_rename_durable(const char *from, const char *to, int32_t *os_error)
{
    if (from == NULL || to == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (rename(from, to) != 0)
        return cairn_fail(errno, os_error);
    int32_t status = sync_parent(to, os_error);
    /* The source directory's entry removal must be durable too, or a crash could show both names. */
    if (status == CAIRN_OK && !same_parent(from, to))
        status = sync_parent(from, os_error);
    return status;
}

CAIRN_EXPORT int32_t cairn_hard_link(const char *existing, const char *new_link, int32_t *os_error)
{
    if (existing == NULL || new_link == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int32_t injected = 0;
    if (cairn_fault_on_link(new_link, &injected))
        return cairn_fail(injected, os_error);
    if (link(existing, new_link) != 0)
        return cairn_fail(errno, os_error);
    return sync_parent(new_link, os_error);
}

CAIRN_EXPORT int32_t cairn_same_file(const char *a, const char *b, int32_t *same, int32_t *os_error)
{
    if (a == NULL || b == NULL || same == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return cairn_fail(errno, os_error);
    *same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_link_count(const char *path, int64_t *count, int32_t *os_error)
{
    if (path == NULL || count == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    struct stat st;
    if (stat(path, &st) != 0)
        return cairn_fail(errno, os_error);
    *count = (int64_t)st.st_nlink;
    return cairn_ok(os_error);
}

/* One aligned block written through O_DIRECT. A plain pwrite, not cairn_posix_pwritev_all: this is
 * a capability check, and a write fault armed for data files must neither be consumed by it nor
 * make it report that the file system cannot do direct I/O. */
static int write_probe_block(int fd)
{
    void *block = NULL;
    if (posix_memalign(&block, CAIRN_DIRECT_IO_ALIGNMENT, CAIRN_DIRECT_IO_ALIGNMENT) != 0)
        return 0;
    memset(block, 0, CAIRN_DIRECT_IO_ALIGNMENT);
    ssize_t written;
    do {
        written = pwrite(fd, block, CAIRN_DIRECT_IO_ALIGNMENT, 0);
    } while (written < 0 && errno == EINTR);
    free(block);
    return written == CAIRN_DIRECT_IO_ALIGNMENT;
}

/* Whether O_DIRECT both opens and writes in `directory`: some file systems accept the flag and
 * fail the first write, so opening alone proves nothing. Any failure just means "no". */
static int32_t probe_direct_io(const char *directory)
{
    const char *leaf = "/.cairn-direct-probe-XXXXXX";
    size_t size = strlen(directory) + strlen(leaf) + 1;
    char *name = malloc(size);
    if (name == NULL)
        return 0;
    snprintf(name, size, "%s%s", directory, leaf);
    int fd = mkostemp(name, O_CLOEXEC);
    if (fd < 0) {
        free(name);
        return 0;
    }
    int works = cairn_posix_enable_direct(fd) == 0 && write_probe_block(fd);
    close(fd);
    unlink(name);
    free(name);
    return works;
}

CAIRN_EXPORT int32_t cairn_fs_info_get(const char *directory, cairn_fs_info *info, int32_t *os_error)
{
    if (directory == NULL || info == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    struct statvfs vfs;
    struct statfs fs;
    if (statvfs(directory, &vfs) != 0 || statfs(directory, &fs) != 0)
        return cairn_fail(errno, os_error);

    memset(info, 0, sizeof *info);
    /* f_bavail, not f_bfree: space reserved for root is not space the engine can count on. */
    info->free_bytes = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
    info->total_bytes = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;
    /* Through unsigned long: f_type is a signed word, and magics such as ramfs's have the top bit set. */
    unsigned long type = (unsigned long)fs.f_type;
    info->fs_type = (int64_t)type;
    info->block_size = (int32_t)fs.f_bsize;
    /* Newer kernels accept O_DIRECT on tmpfs, so the probe alone cannot reveal that nothing here
     * survives a reboot. */
    info->is_volatile = type == TMPFS_MAGIC || type == RAMFS_MAGIC;
    info->supports_direct_io = probe_direct_io(directory);
    return cairn_ok(os_error);
}
