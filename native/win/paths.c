/* Deleting, renaming, linking and identifying files, and syncing directories (Windows). */
#include "win_internal.h"

#include <stdlib.h>
#include <string.h>

static const DWORD SHARE_ALL = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

CAIRN_EXPORT int32_t cairn_delete_file(const char *path, int32_t *os_error)
{
    if (path == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    wchar_t *wide = NULL;
    DWORD error = cairn_win_wide_path(path, &wide);
    if (error == 0 && !DeleteFileW(wide))
        error = cairn_win_last_error();
    free(wide);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}

/* Opens a directory for flushing. FlushFileBuffers wants write access, which a directory's ACL
 * may refuse; such a handle is still opened (for attributes only) so a missing directory or a
 * file in its place is reported rather than hidden. */
static DWORD open_directory(const wchar_t *path, HANDLE *directory)
{
    /* FILE_FLAG_BACKUP_SEMANTICS is what lets CreateFileW open a directory at all. */
    HANDLE handle = CreateFileW(path, GENERIC_READ | GENERIC_WRITE, SHARE_ALL, NULL, OPEN_EXISTING,
                                FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (handle == INVALID_HANDLE_VALUE && cairn_win_last_error() == ERROR_ACCESS_DENIED)
        handle = CreateFileW(path, FILE_READ_ATTRIBUTES, SHARE_ALL, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS,
                             NULL);
    if (handle == INVALID_HANDLE_VALUE)
        return cairn_win_last_error();
    BY_HANDLE_FILE_INFORMATION info;
    if (!GetFileInformationByHandle(handle, &info)) {
        DWORD error = cairn_win_last_error();
        CloseHandle(handle);
        return error;
    }
    if (!(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(handle);
        return ERROR_DIRECTORY; /* ENOTDIR */
    }
    *directory = handle;
    return 0;
}

/* NTFS logs every change to a directory in its metadata journal, and flushing any file on the
 * volume commits that journal, so unlike POSIX a directory flush is not what makes a create or
 * rename durable (MoveFileExW's MOVEFILE_WRITE_THROUGH and the file's own flush do). The flush is
 * still issued where allowed, for file systems that do honour it; ERROR_ACCESS_DENIED (no write
 * access, or a file system that refuses directory handles), ERROR_INVALID_FUNCTION and
 * ERROR_NOT_SUPPORTED mean there is nothing to flush this way and are not errors. */
static int flush_refusal(DWORD error)
{
    return error == ERROR_ACCESS_DENIED || error == ERROR_INVALID_FUNCTION || error == ERROR_NOT_SUPPORTED;
}

static DWORD sync_directory(const char *path)
{
    wchar_t *wide = NULL;
    DWORD error = cairn_win_wide_path(path, &wide);
    if (error != 0)
        return error;
    HANDLE directory = INVALID_HANDLE_VALUE;
    error = open_directory(wide, &directory);
    free(wide);
    if (error != 0)
        return error;
    if (!FlushFileBuffers(directory)) {
        DWORD flush_error = cairn_win_last_error();
        if (!flush_refusal(flush_error))
            error = flush_error;
    }
    CloseHandle(directory);
    return error;
}

CAIRN_EXPORT int32_t cairn_sync_directory(const char *path, int32_t *os_error)
{
    if (path == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    DWORD error = sync_directory(path);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}

static DWORD sync_parent(const char *path)
{
    char *parent = cairn_win_parent_directory(path);
    if (parent == NULL)
        return ERROR_NOT_ENOUGH_MEMORY;
    DWORD error = sync_directory(parent);
    free(parent);
    return error;
}

/* Syncs the directory of `to`, and that of `from` when it is another one. */
static DWORD sync_parents(const char *from, const char *to)
{
    char *from_parent = cairn_win_parent_directory(from);
    char *to_parent = cairn_win_parent_directory(to);
    DWORD error = ERROR_NOT_ENOUGH_MEMORY;
    if (from_parent != NULL && to_parent != NULL) {
        error = sync_directory(to_parent);
        if (error == 0 && strcmp(from_parent, to_parent) != 0)
            error = sync_directory(from_parent);
    }
    free(from_parent);
    free(to_parent);
    return error;
}

/* Converts both paths; returns 0 or a Windows error, with both results to free() either way. */
static DWORD wide_pair(const char *a, const char *b, wchar_t **wide_a, wchar_t **wide_b)
{
    *wide_a = NULL;
    *wide_b = NULL;
    DWORD error = cairn_win_wide_path(a, wide_a);
    return error != 0 ? error : cairn_win_wide_path(b, wide_b);
}

CAIRN_EXPORT int32_t cairn_rename_durable(const char *from, const char *to, int32_t *os_error)
{
    if (from == NULL || to == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    wchar_t *wide_from, *wide_to;
    DWORD error = wide_pair(from, to, &wide_from, &wide_to);
    /* WRITE_THROUGH: do not return before the rename is on disk. */
    if (error == 0 && !MoveFileExW(wide_from, wide_to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        error = cairn_win_last_error();
    free(wide_from);
    free(wide_to);
    if (error == 0)
        error = sync_parents(from, to);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_hard_link(const char *existing, const char *new_link, int32_t *os_error)
{
    if (existing == NULL || new_link == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    int32_t injected = 0;
    if (cairn_fault_on_link(new_link, &injected))
        return cairn_fail(injected, os_error);
    wchar_t *wide_existing, *wide_link;
    DWORD error = wide_pair(existing, new_link, &wide_existing, &wide_link);
    if (error == 0 && !CreateHardLinkW(wide_link, wide_existing, NULL))
        error = cairn_win_last_error();
    free(wide_existing);
    free(wide_link);
    if (error == 0)
        error = sync_parent(new_link);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}

/* Opens for attributes only: that never conflicts with other handles' sharing modes, and
 * FILE_FLAG_BACKUP_SEMANTICS lets directories be identified too. */
static DWORD open_for_attributes(const char *path, HANDLE *handle)
{
    wchar_t *wide = NULL;
    DWORD error = cairn_win_wide_path(path, &wide);
    if (error != 0)
        return error;
    *handle = CreateFileW(wide, FILE_READ_ATTRIBUTES, SHARE_ALL, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS,
                          NULL);
    error = *handle == INVALID_HANDLE_VALUE ? cairn_win_last_error() : 0;
    free(wide);
    return error;
}

typedef struct file_identity {
    int wide_id; /* 1: 128-bit id and 64-bit serial from FileIdInfo; 0: the older 64/32-bit pair */
    ULONGLONG volume;
    BYTE id[16];
} file_identity;

/* ReFS file ids need 128 bits, which only FileIdInfo (Windows 8 and later) reports; the
 * BY_HANDLE_FILE_INFORMATION index is enough elsewhere. */
static DWORD identify(const char *path, file_identity *identity)
{
    HANDLE handle;
    DWORD error = open_for_attributes(path, &handle);
    if (error != 0)
        return error;
    memset(identity, 0, sizeof *identity);
    FILE_ID_INFO id_info;
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileInformationByHandleEx(handle, FileIdInfo, &id_info, sizeof id_info)) {
        identity->wide_id = 1;
        identity->volume = id_info.VolumeSerialNumber;
        memcpy(identity->id, &id_info.FileId, sizeof identity->id);
    } else if (GetFileInformationByHandle(handle, &info)) {
        identity->volume = info.dwVolumeSerialNumber;
        ULONGLONG index = ((ULONGLONG)info.nFileIndexHigh << 32) | info.nFileIndexLow;
        memcpy(identity->id, &index, sizeof index);
    } else {
        error = cairn_win_last_error();
    }
    CloseHandle(handle);
    return error;
}

CAIRN_EXPORT int32_t cairn_same_file(const char *a, const char *b, int32_t *same, int32_t *os_error)
{
    if (a == NULL || b == NULL || same == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    file_identity first, second;
    DWORD error = identify(a, &first);
    if (error == 0)
        error = identify(b, &second);
    if (error != 0)
        return cairn_win_fail(error, os_error);
    *same = first.wide_id == second.wide_id && first.volume == second.volume &&
            memcmp(first.id, second.id, sizeof first.id) == 0;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_link_count(const char *path, int64_t *count, int32_t *os_error)
{
    if (path == NULL || count == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    HANDLE handle;
    DWORD error = open_for_attributes(path, &handle);
    if (error != 0)
        return cairn_win_fail(error, os_error);
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileInformationByHandle(handle, &info))
        *count = info.nNumberOfLinks;
    else
        error = cairn_win_last_error();
    CloseHandle(handle);
    return error != 0 ? cairn_win_fail(error, os_error) : cairn_ok(os_error);
}
