/* Read-only shared mappings of files (POSIX). */
#include "posix_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

CAIRN_EXPORT int32_t cairn_file_map(cairn_file *file, int64_t length, void **address, int32_t *os_error)
{
    if (file == NULL || address == NULL || length <= 0 || (uint64_t)length > SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* MAP_SHARED so the mapping sees writes made through the handle (and by the writer) after it
     * was created; PROT_READ so a stray managed pointer cannot scribble on the file. */
    void *mapped = mmap(NULL, (size_t)length, PROT_READ, MAP_SHARED, file->fd, 0);
    if (mapped == MAP_FAILED)
        return cairn_fail(errno, os_error);
    *address = mapped;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_unmap(void *address, int64_t length, int32_t *os_error)
{
    if (address == NULL || length <= 0 || (uint64_t)length > SIZE_MAX)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (munmap(address, (size_t)length) != 0)
        return cairn_fail(errno, os_error);
    return cairn_ok(os_error);
}

static bool valid_range(const void *address, int64_t length)
{
    return address != NULL && length >= 0 && (uint64_t)length <= SIZE_MAX;
}

/* Callers pass the address of a record inside a mapping; madvise insists on a page boundary. */
static void *page_start(void *address, int64_t length, size_t *span)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)address & ~(page - 1);
    *span = (size_t)length + ((uintptr_t)address - start);
    return (void *)start;
}

CAIRN_EXPORT int32_t cairn_map_prefetch(void *address, int64_t length, int32_t *os_error)
{
    if (!valid_range(address, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (length == 0)
        return cairn_ok(os_error);
    size_t span;
    void *start = page_start(address, length, &span);
    if (madvise(start, span, MADV_WILLNEED) != 0)
        return cairn_fail(errno, os_error);
    return cairn_ok(os_error);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older headers lack it */
#endif

CAIRN_EXPORT int32_t cairn_map_populate(void *address, int64_t length, int32_t *os_error)
{
    if (!valid_range(address, length))
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    if (length == 0)
        return cairn_ok(os_error);
    size_t span;
    void *start = page_start(address, length, &span);
    int result;
    do {
        result = madvise(start, span, MADV_POPULATE_READ);
    } while (result != 0 && errno == EINTR);
    if (result == 0)
        return cairn_ok(os_error);
    /* An older kernel does not know the advice: fall back to asynchronous read-ahead. */
    if (errno == EINVAL && madvise(start, span, MADV_WILLNEED) == 0)
        return cairn_ok(os_error);
    return cairn_fail(errno, os_error);
}
