/* OS error classification and messages (POSIX). The exports built on the classification are
 * platform-neutral and live in common/library.c. */
#include "posix_internal.h"

#include <errno.h>
#include <string.h>

int32_t cairn_status_from_os_error(int32_t os_error)
{
    switch (os_error) {
    case 0:
        return CAIRN_OK;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return CAIRN_E_DISK_FULL;
    case ENOENT:
    case ENOTDIR:
        return CAIRN_E_NOT_FOUND;
    case ENOMEM:
        return CAIRN_E_OUT_OF_MEMORY;
    case EIO:
        return CAIRN_E_IO;
    case EACCES:
    case EPERM:
    case EROFS:
        return CAIRN_E_ACCESS_DENIED;
    case EINVAL:
    case EBADF:
    case EFAULT:
        return CAIRN_E_INVALID_ARGUMENT;
    case EWOULDBLOCK:
        return CAIRN_E_LOCKED;
    case EEXIST:
        return CAIRN_E_ALREADY_EXISTS;
    case EOPNOTSUPP:
    case ENOSYS:
        return CAIRN_E_UNSUPPORTED;
    case EXDEV:
        return CAIRN_E_CROSS_DEVICE;
    case EMLINK:
        return CAIRN_E_TOO_MANY_LINKS;
    default:
        return CAIRN_E_OS;
    }
}

CAIRN_EXPORT int32_t cairn_error_string(int32_t os_error_in, char *buffer, int32_t buffer_size,
                                        int32_t *written, int32_t *os_error)
{
    if (buffer == NULL || buffer_size <= 0 || written == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    /* GNU strerror_r may return a static string instead of filling the buffer. */
    const char *message = strerror_r(os_error_in, buffer, (size_t)buffer_size);
    size_t length = strlen(message);
    if (length > (size_t)buffer_size - 1)
        length = (size_t)buffer_size - 1;
    if (message != buffer)
        memcpy(buffer, message, length);
    buffer[length] = '\0';
    *written = (int32_t)length;
    return cairn_ok(os_error);
}
