/* Internal helpers shared by the POSIX and Windows implementations. Not part of the ABI. */
#ifndef CAIRN_PAL_COMMON_H
#define CAIRN_PAL_COMMON_H

#include "cairnpal.h"
#include <stdint.h>

/* PE/COFF has no symbol visibility: a DLL exports only what is marked dllexport, so internal
 * symbols are already hidden there and mingw-gcc warns about the attribute. */
#if defined(_WIN32)
#  define CAIRN_HIDDEN
#else
#  define CAIRN_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Maps an OS error to a CAIRN_E_* status; implemented per platform. */
CAIRN_HIDDEN int32_t cairn_status_from_os_error(int32_t os_error);

/* Sets *os_error and returns the classified status, so failure paths read `return cairn_fail(e, os_error);`. */
static inline int32_t cairn_fail(int32_t error, int32_t *os_error)
{
    if (os_error)
        *os_error = error;
    return cairn_status_from_os_error(error);
}

static inline int32_t cairn_ok(int32_t *os_error)
{
    if (os_error)
        *os_error = 0;
    return CAIRN_OK;
}

/* A status that did not come from the OS (bad argument, unsupported, end of file): os_error = 0. */
static inline int32_t cairn_status(int32_t status, int32_t *os_error)
{
    if (os_error)
        *os_error = 0;
    return status;
}

/* Fault hooks (common/faults.c). Each returns 0 when no fault applies to this call. */

/* Called before every write syscall on `path` that would write `*length` bytes. Returns:
 *  0: proceed (with *length possibly lowered by a short-write fault),
 *  1: fail this call with *injected_error,
 *  2: pretend the call wrote zero bytes. */
CAIRN_HIDDEN int cairn_fault_on_write(const char *path, int64_t *length, int32_t *injected_error);
/* Called before every data sync of `path`. Returns 1 to fail it with *injected_error. */
CAIRN_HIDDEN int cairn_fault_on_sync(const char *path, int32_t *injected_error);
/* Called before every hard link, with the path of the new link. Returns 1 to fail it with
 * *injected_error without creating the link. */
CAIRN_HIDDEN int cairn_fault_on_link(const char *new_link, int32_t *injected_error);
/* Called before every cairn_file_read of `path`. Returns 1 to fail it with *injected_error, reading nothing. */
CAIRN_HIDDEN int cairn_fault_on_read(const char *path, int32_t *injected_error);
/* Called before io_uring setup. Returns 1 to fail it with *injected_error. */
CAIRN_HIDDEN int cairn_fault_on_uring_setup(int32_t *injected_error);
/* Called before allocating on `path`. Returns 1 to fail the call with *injected_error after growing
 * the file by at most *growth bytes past its current end (never past the range), as a file system
 * that runs out of space part way through an allocation leaves it; 0 to proceed. */
CAIRN_HIDDEN int cairn_fault_on_allocate(const char *path, int64_t *growth, int32_t *injected_error);

#endif
