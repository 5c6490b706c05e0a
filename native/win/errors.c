/* OS error classification and messages (Windows). The exports built on the classification are
 * platform-neutral and live in common/library.c. */
#include "win_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not every SDK names these. */
#ifndef ERROR_DISK_QUOTA_EXCEEDED
#define ERROR_DISK_QUOTA_EXCEEDED 1295L
#endif
#ifndef ERROR_DEVICE_HARDWARE_ERROR
#define ERROR_DEVICE_HARDWARE_ERROR 483L
#endif

int32_t cairn_status_from_os_error(int32_t os_error)
{
    switch ((DWORD)os_error) {
    case ERROR_SUCCESS:
        return CAIRN_OK;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
    case ERROR_DISK_QUOTA_EXCEEDED:  /* EDQUOT */
    case ERROR_FILE_TOO_LARGE:       /* EFBIG */
        return CAIRN_E_DISK_FULL;
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_DIRECTORY:            /* ENOTDIR */
        return CAIRN_E_NOT_FOUND;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_NO_SYSTEM_RESOURCES:  /* what a too-large unbuffered transfer hits */
        return CAIRN_E_OUT_OF_MEMORY;
    case ERROR_CRC:
    case ERROR_IO_DEVICE:
    case ERROR_IO_INCOMPLETE:
    case ERROR_READ_FAULT:
    case ERROR_WRITE_FAULT:
    case ERROR_GEN_FAILURE:
    case ERROR_SECTOR_NOT_FOUND:
    case ERROR_NOT_READY:
    case ERROR_DEVICE_HARDWARE_ERROR:
        return CAIRN_E_IO;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
    case ERROR_PRIVILEGE_NOT_HELD:   /* EPERM */
        return CAIRN_E_ACCESS_DENIED;
    case ERROR_INVALID_PARAMETER:
    case ERROR_INVALID_HANDLE:       /* EBADF */
    case ERROR_INVALID_NAME:
    case ERROR_NO_UNICODE_TRANSLATION: /* a path that is not valid UTF-8 */
    case ERROR_NEGATIVE_SEEK:
    case ERROR_NOACCESS:             /* EFAULT */
    case ERROR_INVALID_USER_BUFFER:
        return CAIRN_E_INVALID_ARGUMENT;
    case ERROR_LOCK_VIOLATION:
    case ERROR_SHARING_VIOLATION:
        return CAIRN_E_LOCKED;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return CAIRN_E_ALREADY_EXISTS;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION:
    case ERROR_CALL_NOT_IMPLEMENTED:
        return CAIRN_E_UNSUPPORTED;
    case ERROR_HANDLE_EOF:
        return CAIRN_E_END_OF_FILE;
    case ERROR_NOT_SAME_DEVICE:      /* EXDEV */
        return CAIRN_E_CROSS_DEVICE;
    case ERROR_TOO_MANY_LINKS:       /* EMLINK */
        return CAIRN_E_TOO_MANY_LINKS;
    default:
        return CAIRN_E_OS;
    }
}

/* The system's message for `code` in UTF-8 without its trailing line break, malloc'd; NULL when
 * the system has none. */
static char *system_message(DWORD code)
{
    wchar_t *wide = NULL;
    DWORD length = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                      FORMAT_MESSAGE_IGNORE_INSERTS,
                                  NULL, code, 0, (LPWSTR)&wide, 0, NULL);
    if (length == 0)
        return NULL;
    while (length > 0 && (wide[length - 1] == L'\r' || wide[length - 1] == L'\n' || wide[length - 1] == L' '))
        length--;

    char *message = NULL;
    int bytes = WideCharToMultiByte(CP_UTF8, 0, wide, (int)length, NULL, 0, NULL, NULL);
    if (bytes > 0 && (message = malloc((size_t)bytes + 1)) != NULL) {
        WideCharToMultiByte(CP_UTF8, 0, wide, (int)length, message, bytes, NULL, NULL);
        message[bytes] = '\0';
    } else if (length == 0 && (message = malloc(1)) != NULL) {
        message[0] = '\0';
    }
    LocalFree(wide);
    return message;
}

/* Copies as much of `message` as fits, never cutting a UTF-8 sequence in half; returns the
 * number of bytes copied (the NUL excluded). */
static int32_t copy_truncated(char *buffer, int32_t buffer_size, const char *message)
{
    size_t length = strlen(message);
    if (length > (size_t)buffer_size - 1) {
        length = (size_t)buffer_size - 1;
        while (length > 0 && ((unsigned char)message[length] & 0xC0) == 0x80)
            length--;
    }
    memcpy(buffer, message, length);
    buffer[length] = '\0';
    return (int32_t)length;
}

CAIRN_EXPORT int32_t cairn_error_string(int32_t os_error_in, char *buffer, int32_t buffer_size,
                                        int32_t *written, int32_t *os_error)
{
    if (buffer == NULL || buffer_size <= 0 || written == NULL)
        return cairn_status(CAIRN_E_INVALID_ARGUMENT, os_error);
    char *message = system_message((DWORD)os_error_in);
    if (message != NULL) {
        *written = copy_truncated(buffer, buffer_size, message);
        free(message);
    } else {
        char fallback[64];
        snprintf(fallback, sizeof fallback, "Unknown error %ld (0x%08lX)", (long)os_error_in,
                 (unsigned long)(DWORD)os_error_in);
        *written = copy_truncated(buffer, buffer_size, fallback);
    }
    return cairn_ok(os_error);
}
