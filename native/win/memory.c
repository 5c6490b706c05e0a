/* Anonymous memory for the engine's scratch arenas (Windows). */
#include "win_internal.h"

static int valid_alignment(int64_t alignment)
{
    return alignment >= 0 && (alignment & (alignment - 1)) == 0;
}

CAIRN_EXPORT int32_t cairn_memory_allocate(int64_t length, int64_t alignment, void **address, int32_t *os_error)
{
    if (address == NULL || length <= 0 || (uint64_t)length > (uint64_t)SIZE_MAX / 2 || !valid_alignment(alignment)
        || (uint64_t)alignment > (uint64_t)SIZE_MAX / 2)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    uintptr_t granularity = info.dwAllocationGranularity;
    if (alignment != 0 && (uint64_t)alignment < info.dwPageSize)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if ((uintptr_t)alignment <= granularity) {
        void *memory = VirtualAlloc(NULL, (SIZE_T)length, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (memory == NULL)
            return cairn_win_fail(cairn_win_last_error(), os_error);
        *address = memory;
        return cairn_ok(os_error);
    }
    /* VirtualAlloc aligns to the allocation granularity (64 KiB) only, and a reservation is
     * released whole: find an aligned address inside a larger reservation, release it and reserve
     * exactly there. Another thread may take the range in between, so try again a few times. */
    for (int attempt = 0; attempt < 16; attempt++) {
        void *probe = VirtualAlloc(NULL, (SIZE_T)(length + alignment), MEM_RESERVE, PAGE_NOACCESS);
        if (probe == NULL)
            return cairn_win_fail(cairn_win_last_error(), os_error);
        uintptr_t aligned = ((uintptr_t)probe + (uintptr_t)alignment - 1) & ~((uintptr_t)alignment - 1);
        VirtualFree(probe, 0, MEM_RELEASE);
        void *memory = VirtualAlloc((void *)aligned, (SIZE_T)length, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (memory != NULL) {
            *address = memory;
            return cairn_ok(os_error);
        }
    }
    return cairn_win_fail(ERROR_NOT_ENOUGH_MEMORY, os_error);
}

/* A VirtualAlloc region is released whole, so `length` is only checked. */
CAIRN_EXPORT int32_t cairn_memory_free(void *address, int64_t length, int32_t *os_error)
{
    if (address == NULL || length <= 0 || (uint64_t)length > (uint64_t)SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (!VirtualFree(address, 0, MEM_RELEASE))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    return cairn_ok(os_error);
}
