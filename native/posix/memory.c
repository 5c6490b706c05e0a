/* Anonymous memory for the engine's scratch arenas (POSIX). */
#include "posix_internal.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE_SIZE ((int64_t)2 << 20)

static int valid_alignment(int64_t alignment, uintptr_t page)
{
    return alignment >= 0 && (alignment & (alignment - 1)) == 0 && (alignment == 0 || (uint64_t)alignment >= page);
}

CAIRN_EXPORT int32_t cairn_memory_allocate(int64_t length, int64_t alignment, void **address, int32_t *os_error)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (address == NULL || length <= 0 || (uint64_t)length > SIZE_MAX / 2 || !valid_alignment(alignment, page)
        || (uint64_t)alignment > SIZE_MAX / 2)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    size_t size = ((size_t)length + page - 1) & ~(page - 1);
    size_t align = alignment == 0 ? page : (size_t)alignment;
    /* mmap only promises page alignment: map the slack too and give back what lies outside the
     * aligned range. */
    size_t mapped_size = size + (align > page ? align : 0);
    char *mapped = mmap(NULL, mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        return cairn_fail(errno, os_error);
    char *start = (char *)(((uintptr_t)mapped + align - 1) & ~(uintptr_t)(align - 1));
    size_t head = (size_t)(start - mapped);
    size_t tail = mapped_size - head - size;
    if (head != 0)
        munmap(mapped, head);
    if (tail != 0)
        munmap(start + size, tail);
#ifdef MADV_HUGEPAGE
    /* Advice only: a kernel without transparent huge pages (or with them off) keeps small pages. */
    if ((int64_t)size % HUGE_PAGE_SIZE == 0 && (int64_t)align % HUGE_PAGE_SIZE == 0)
        (void)madvise(start, size, MADV_HUGEPAGE);
#endif
    *address = start;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_memory_free(void *address, int64_t length, int32_t *os_error)
{
    if (address == NULL || length <= 0 || (uint64_t)length > SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    size_t size = ((size_t)length + page - 1) & ~(page - 1);
    if (munmap(address, size) != 0)
        return cairn_fail(errno, os_error);
    return cairn_ok(os_error);
}
