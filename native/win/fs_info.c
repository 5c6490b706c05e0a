/* What a directory's volume offers (Windows). */
#include "win_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest path the W APIs accept, in characters. */
#define WIDE_PATH_MAX 32768

/* The directory with a trailing separator: GetDiskFreeSpaceExW needs one on a share's root. */
static wchar_t *with_trailing_separator(const wchar_t *path)
{
    size_t length = wcslen(path);
    int add = length == 0 || (path[length - 1] != L'\\' && path[length - 1] != L'/');
    wchar_t *result = malloc((length + 2) * sizeof(wchar_t));
    if (result != NULL) {
        memcpy(result, path, length * sizeof(wchar_t));
        if (add)
            result[length++] = L'\\';
        result[length] = L'\0';
    }
    return result;
}

/* The cluster size, the unit the volume allocates in (statvfs's f_bsize on POSIX). */
static DWORD cluster_size(const wchar_t *directory, int32_t *block_size)
{
    wchar_t *volume = malloc(WIDE_PATH_MAX * sizeof(wchar_t));
    if (volume == NULL)
        return ERROR_NOT_ENOUGH_MEMORY;
    DWORD error = 0;
    DWORD sectors_per_cluster = 0, bytes_per_sector = 0, free_clusters = 0, clusters = 0;
    if (!GetVolumePathNameW(directory, volume, WIDE_PATH_MAX) ||
        !GetDiskFreeSpaceW(volume, &sectors_per_cluster, &bytes_per_sector, &free_clusters, &clusters))
        error = cairn_win_last_error();
    else
        *block_size = (int32_t)(sectors_per_cluster * bytes_per_sector);
    free(volume);
    return error;
}

/* Whether an unbuffered write-through open and one aligned write work in `directory`. The probe
 * file deletes itself when closed, even if this process dies first. It bypasses the fault hooks:
 * it is a capability check, not a data write, and an injected fault would only turn into a wrong
 * answer here. */
static int32_t probe_direct_io(const char *directory)
{
    static volatile LONG counter;
    char name[96];
    size_t length = strlen(directory);
    int separated = length > 0 && (directory[length - 1] == '\\' || directory[length - 1] == '/');
    snprintf(name, sizeof name, "%s.cairn-direct-probe-%lu-%lu-%ld.tmp", separated ? "" : "\\",
             (unsigned long)GetCurrentProcessId(), (unsigned long)GetCurrentThreadId(),
             (long)InterlockedIncrement(&counter));

    char *path = malloc(length + strlen(name) + 1);
    if (path == NULL)
        return 0;
    memcpy(path, directory, length);
    strcpy(path + length, name);
    wchar_t *wide = NULL;
    DWORD error = cairn_win_wide_path(path, &wide);
    free(path);
    if (error != 0)
        return 0;

    HANDLE probe = CreateFileW(wide, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_NEW,
                               FILE_ATTRIBUTE_HIDDEN | FILE_FLAG_NO_BUFFERING | FILE_FLAG_WRITE_THROUGH |
                                   FILE_FLAG_DELETE_ON_CLOSE,
                               NULL);
    free(wide);
    if (probe == INVALID_HANDLE_VALUE)
        return 0;
    int32_t works = 0;
    void *block = VirtualAlloc(NULL, CAIRN_DIRECT_IO_ALIGNMENT, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (block != NULL) {
        DWORD written = 0;
        works = WriteFile(probe, block, CAIRN_DIRECT_IO_ALIGNMENT, &written, NULL) &&
                written == CAIRN_DIRECT_IO_ALIGNMENT;
        VirtualFree(block, 0, MEM_RELEASE);
    }
    CloseHandle(probe);
    return works;
}

CAIRN_EXPORT int32_t cairn_fs_info_get(const char *directory, cairn_fs_info *info, int32_t *os_error)
{
    if (directory == NULL || info == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    wchar_t *wide = NULL;
    DWORD error = cairn_win_wide_path(directory, &wide);
    if (error != 0)
        return cairn_win_fail(error, os_error);
    wchar_t *root = with_trailing_separator(wide);
    free(wide);
    if (root == NULL)
        return cairn_win_fail(ERROR_NOT_ENOUGH_MEMORY, os_error);

    ULARGE_INTEGER available, total, total_free;
    int32_t block_size = 0;
    if (!GetDiskFreeSpaceExW(root, &available, &total, &total_free))
        error = cairn_win_last_error();
    else
        error = cluster_size(root, &block_size);
    free(root);
    if (error != 0)
        return cairn_win_fail(error, os_error);

    memset(info, 0, sizeof *info);
    info->free_bytes = (int64_t)available.QuadPart; /* honours the caller's quota */
    info->total_bytes = (int64_t)total.QuadPart;
    info->fs_type = 0;
    info->block_size = block_size;
    info->supports_direct_io = probe_direct_io(directory);
    info->is_volatile = 0; /* Windows has no tmpfs; RAM disks are third-party drivers that do not say */
    return cairn_ok(os_error);
}
