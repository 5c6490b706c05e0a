/* The library exports that need nothing from the OS: the ABI version and the classification of an
 * OS error. Each platform supplies only cairn_status_from_os_error (its errors.c), so the export
 * and the status every other export reports can never disagree. */
#include "pal_common.h"

#include <stddef.h>

CAIRN_EXPORT int32_t cairn_get_abi_version(int32_t *version, int32_t *os_error)
{
    if (version == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    *version = CAIRN_PAL_ABI_VERSION;
    return cairn_ok(os_error);
}

CAIRN_EXPORT int32_t cairn_classify_error(int32_t os_error_in, int32_t *status, int32_t *os_error)
{
    if (status == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    *status = cairn_status_from_os_error(os_error_in);
    return cairn_ok(os_error);
}
