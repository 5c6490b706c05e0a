/* Read-only shared mappings of files (Windows). */
#include "win_internal.h"

CAIRN_EXPORT int32_t cairn_file_map(cairn_file *file, int64_t length, void **address, int32_t *os_error)
{
    if (file == NULL || address == NULL || length <= 0 || (uint64_t)length > (uint64_t)SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* POSIX maps past the end of a file and faults only on access; Windows refuses a read-only
     * section larger than its file with a misleading out-of-memory error, so say what is wrong. */
    LARGE_INTEGER size;
    if (!GetFileSizeEx(file->handle, &size))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    if (length > size.QuadPart)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);

    HANDLE section = CreateFileMappingW(file->handle, NULL, PAGE_READONLY, (DWORD)((uint64_t)length >> 32),
                                        (DWORD)((uint64_t)length & 0xFFFFFFFFu), NULL);
    if (section == NULL)
        return cairn_win_fail(cairn_win_last_error(), os_error);
    void *view = MapViewOfFile(section, FILE_MAP_READ, 0, 0, (SIZE_T)length);
    DWORD error = view == NULL ? cairn_win_last_error() : 0;
    /* The view holds its own reference to the section (and the section to the file), so neither
     * the section handle nor the file handle needs to outlive this call. */
    CloseHandle(section);
    if (view == NULL)
        return cairn_win_fail(error, os_error);
    *address = view;
    return cairn_ok(os_error);
}

/* A view is unmapped whole, so `length` is only checked, as munmap checks it. */
CAIRN_EXPORT int32_t cairn_unmap(void *address, int64_t length, int32_t *os_error)
{
    if (address == NULL || length <= 0 || (uint64_t)length > (uint64_t)SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (!UnmapViewOfFile(address))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    return cairn_ok(os_error);
}

typedef BOOL(WINAPI *prefetch_fn)(HANDLE, ULONG_PTR, PWIN32_MEMORY_RANGE_ENTRY, ULONG);

static INIT_ONCE g_prefetch_once = INIT_ONCE_STATIC_INIT;
static prefetch_fn g_prefetch; /* NULL before Windows 8, where prefetching is a no-op */

/* Resolved at run time: a static import of PrefetchVirtualMemory would stop the DLL loading on
 * Windows 7. */
static BOOL CALLBACK resolve_prefetch(PINIT_ONCE once, PVOID parameter, PVOID *context)
{
    (void)once;
    (void)parameter;
    (void)context;
    HMODULE kernel32 = GetModuleHandleW(L"kernel32.dll");
    FARPROC proc = kernel32 != NULL ? GetProcAddress(kernel32, "PrefetchVirtualMemory") : NULL;
    g_prefetch = proc != NULL ? (prefetch_fn)(void (*)(void))proc : NULL;
    return TRUE;
}

CAIRN_EXPORT int32_t cairn_map_prefetch(void *address, int64_t length, int32_t *os_error)
{
    if (address == NULL || length < 0 || (uint64_t)length > (uint64_t)SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    InitOnceExecuteOnce(&g_prefetch_once, resolve_prefetch, NULL, NULL);
    if (g_prefetch == NULL || length == 0)
        return cairn_ok(os_error);
    /* Callers pass the address of a record inside a view; the range is widened to whole pages. */
    uintptr_t page = cairn_win_page_size();
    uintptr_t start = (uintptr_t)address & ~(page - 1);
    WIN32_MEMORY_RANGE_ENTRY range;
    range.VirtualAddress = (void *)start;
    range.NumberOfBytes = (SIZE_T)length + ((uintptr_t)address - start);
    if (!g_prefetch(GetCurrentProcess(), 1, &range, 0))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    return cairn_ok(os_error);
}

/* PrefetchVirtualMemory is already a bulk read of the range into the working set. */
CAIRN_EXPORT int32_t cairn_map_populate(void *address, int64_t length, int32_t *os_error)
{
    return cairn_map_prefetch(address, length, os_error);
}
