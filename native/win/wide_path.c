/* UTF-8 paths to the wide paths the W APIs take. */
#include "win_internal.h"

#include <stdlib.h>
#include <string.h>

/* At this length CreateDirectoryW already fails without the \\?\ prefix (it keeps room for an
 * 8.3 name), so the prefix goes on from here rather than from MAX_PATH. */
#define LONG_PATH_THRESHOLD (MAX_PATH - 12)

static DWORD utf8_to_wide(const char *utf8, wchar_t **wide)
{
    /* Invalid UTF-8 must fail rather than become U+FFFD and name some other file. */
    int count = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
    if (count == 0)
        return cairn_win_last_error();
    wchar_t *buffer = malloc((size_t)count * sizeof(wchar_t));
    if (buffer == NULL)
        return ERROR_NOT_ENOUGH_MEMORY;
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, buffer, count) == 0) {
        DWORD error = cairn_win_last_error();
        free(buffer);
        return error;
    }
    *wide = buffer;
    return 0;
}

static int starts_with(const wchar_t *text, const wchar_t *prefix)
{
    return wcsncmp(text, prefix, wcslen(prefix)) == 0;
}

/* Paths the W APIs take verbatim: already prefixed, or a device. */
static int is_verbatim(const wchar_t *path)
{
    return starts_with(path, L"\\\\?\\") || starts_with(path, L"\\\\.\\");
}

static DWORD full_path(const wchar_t *path, wchar_t **full)
{
    DWORD capacity = GetFullPathNameW(path, 0, NULL, NULL);
    for (;;) {
        if (capacity == 0)
            return cairn_win_last_error();
        wchar_t *buffer = malloc((size_t)capacity * sizeof(wchar_t));
        if (buffer == NULL)
            return ERROR_NOT_ENOUGH_MEMORY;
        DWORD length = GetFullPathNameW(path, capacity, buffer, NULL);
        if (length != 0 && length < capacity) {
            *full = buffer;
            return 0;
        }
        DWORD error = cairn_win_last_error();
        free(buffer);
        if (length == 0)
            return error;
        capacity = length; /* the current directory grew between the two calls */
    }
}

static DWORD with_long_prefix(const wchar_t *full, wchar_t **prefixed)
{
    const wchar_t *prefix = L"\\\\?\\";
    const wchar_t *rest = full;
    if (full[0] == L'\\' && full[1] == L'\\') {
        prefix = L"\\\\?\\UNC\\"; /* \\server\share\x becomes \\?\UNC\server\share\x */
        rest = full + 2;
    }
    size_t prefix_length = wcslen(prefix);
    size_t rest_length = wcslen(rest);
    wchar_t *buffer = malloc((prefix_length + rest_length + 1) * sizeof(wchar_t));
    if (buffer == NULL)
        return ERROR_NOT_ENOUGH_MEMORY;
    memcpy(buffer, prefix, prefix_length * sizeof(wchar_t));
    memcpy(buffer + prefix_length, rest, (rest_length + 1) * sizeof(wchar_t));
    *prefixed = buffer;
    return 0;
}

DWORD cairn_win_wide_path(const char *utf8, wchar_t **wide)
{
    wchar_t *path = NULL;
    DWORD error = utf8_to_wide(utf8, &path);
    if (error != 0)
        return error;
    if (wcslen(path) < LONG_PATH_THRESHOLD || is_verbatim(path)) {
        *wide = path;
        return 0;
    }

    /* The prefix lifts the length limit but also turns off Win32 normalisation, so the path is
     * made absolute with '\' separators and no . or .. components first. */
    wchar_t *full = NULL;
    error = full_path(path, &full);
    free(path);
    if (error != 0)
        return error;
    if (is_verbatim(full)) {
        *wide = full;
        return 0;
    }
    error = with_long_prefix(full, wide);
    free(full);
    return error;
}

static int is_separator(char c)
{
    return c == '/' || c == '\\';
}

/* Whether path[0, length) is a root that only means the root with its trailing separator:
 * "" (of "\x"), "C:" (of "C:\x"), "\\server\share" or "\\?\UNC\server\share" or "\\?\Volume{...}". */
static int needs_trailing_separator(const char *path, size_t length)
{
    if (length == 0 || path[length - 1] == ':')
        return 1;
    if (length < 2 || !is_separator(path[0]) || !is_separator(path[1]))
        return 0;
    size_t separators = 0;
    for (size_t i = 0; i < length; i++)
        separators += is_separator(path[i]);
    int prefixed = length >= 4 && (path[2] == '?' || path[2] == '.') && is_separator(path[3]);
    int prefixed_unc = prefixed && length >= 8 && (path[4] == 'U' || path[4] == 'u') &&
                       (path[5] == 'N' || path[5] == 'n') && (path[6] == 'C' || path[6] == 'c') &&
                       is_separator(path[7]);
    return separators == (prefixed_unc ? 5u : 3u);
}

static char *copy_prefix(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

char *cairn_win_parent_directory(const char *path)
{
    size_t length = strlen(path);
    while (length > 1 && is_separator(path[length - 1]))
        length--; /* "dir\" names dir */
    size_t cut = length;
    while (cut > 0 && !is_separator(path[cut - 1]))
        cut--;
    if (cut == 0) {
        /* A bare name lives in the current directory; "C:name" in drive C's current directory,
         * which "C:." names (plain "C:" would open the volume itself). */
        if (length >= 2 && path[1] == ':') {
            char drive[4] = {path[0], ':', '.', '\0'};
            return copy_prefix(drive, 3);
        }
        return copy_prefix(".", 1);
    }
    size_t end = cut - 1; /* the separator before the last component */
    if (needs_trailing_separator(path, end))
        end = cut;
    return copy_prefix(path, end);
}
