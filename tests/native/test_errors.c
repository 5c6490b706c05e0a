/* Error reporting: OS messages (and their truncation), classification of OS errors into statuses,
 * and an injected sync failure surfacing as CAIRN_E_IO with the OS error. */
#ifndef _GNU_SOURCE /* also passed by the build, which defines it to 1 */
#define _GNU_SOURCE
#endif
#include "support.h"

#include <string.h>

/* The system's own text for an error: strerror, or FormatMessage without its line break. */
static const char *system_text(int32_t error)
{
#ifdef _WIN32
    static char text[512];
    DWORD length = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, (DWORD)error,
                                  MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT), text, sizeof text, NULL);
    CHECK(length > 0);
    while (length > 0 && (text[length - 1] == '\r' || text[length - 1] == '\n' || text[length - 1] == ' '))
        text[--length] = '\0';
    return text;
#else
    return strerror(error);
#endif
}

static void test_messages(void)
{
    char buffer[256];
    int32_t written = -1;
    CHECK_OK(cairn_error_string(TEST_ERROR_DISK_FULL, buffer, sizeof buffer, &written, &test_last_os_error));
    CHECK(written > 0 && (size_t)written == strlen(buffer));
    CHECK(strcmp(buffer, system_text(TEST_ERROR_DISK_FULL)) == 0);

    char small[5];
    memset(small, 'x', sizeof small);
    CHECK_OK(cairn_error_string(TEST_ERROR_DISK_FULL, small, sizeof small, &written, &test_last_os_error));
    CHECK(written == 4 && small[4] == '\0');
    CHECK(strncmp(small, system_text(TEST_ERROR_DISK_FULL), 4) == 0);

    char one[1] = {'x'};
    CHECK_OK(cairn_error_string(TEST_ERROR_DISK_FULL, one, 1, &written, &test_last_os_error));
    CHECK(written == 0 && one[0] == '\0');

    /* An unknown error still yields some text rather than an error. */
    CHECK_OK(cairn_error_string(987654, buffer, sizeof buffer, &written, &test_last_os_error));
    CHECK(written > 0);

    CHECK(cairn_error_string(TEST_ERROR_DISK_FULL, NULL, 10, &written, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_error_string(TEST_ERROR_DISK_FULL, buffer, 0, &written, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(cairn_error_string(TEST_ERROR_DISK_FULL, buffer, 10, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
}

static int32_t classify(int32_t os_error)
{
    int32_t status = -1;
    CHECK_OK(cairn_classify_error(os_error, &status, &test_last_os_error));
    return status;
}

static void test_classification(void)
{
    CHECK(classify(0) == CAIRN_OK);
#ifdef _WIN32
    CHECK(classify(ERROR_DISK_FULL) == CAIRN_E_DISK_FULL);
    CHECK(classify(ERROR_HANDLE_DISK_FULL) == CAIRN_E_DISK_FULL);
    CHECK(classify(TEST_ERROR_QUOTA) == CAIRN_E_DISK_FULL);
    CHECK(classify(ERROR_FILE_NOT_FOUND) == CAIRN_E_NOT_FOUND);
    CHECK(classify(ERROR_PATH_NOT_FOUND) == CAIRN_E_NOT_FOUND);
    CHECK(classify(ERROR_DIRECTORY) == CAIRN_E_NOT_FOUND);
    CHECK(classify(ERROR_NOT_ENOUGH_MEMORY) == CAIRN_E_OUT_OF_MEMORY);
    CHECK(classify(ERROR_IO_DEVICE) == CAIRN_E_IO);
    CHECK(classify(ERROR_CRC) == CAIRN_E_IO);
    CHECK(classify(ERROR_ACCESS_DENIED) == CAIRN_E_ACCESS_DENIED);
    CHECK(classify(ERROR_WRITE_PROTECT) == CAIRN_E_ACCESS_DENIED);
    CHECK(classify(ERROR_LOCK_VIOLATION) == CAIRN_E_LOCKED);
    CHECK(classify(ERROR_SHARING_VIOLATION) == CAIRN_E_LOCKED);
    CHECK(classify(ERROR_FILE_EXISTS) == CAIRN_E_ALREADY_EXISTS);
    CHECK(classify(ERROR_ALREADY_EXISTS) == CAIRN_E_ALREADY_EXISTS);
    CHECK(classify(ERROR_NOT_SUPPORTED) == CAIRN_E_UNSUPPORTED);
    CHECK(classify(ERROR_HANDLE_EOF) == CAIRN_E_END_OF_FILE);
    CHECK(classify(ERROR_NOT_SAME_DEVICE) == CAIRN_E_CROSS_DEVICE);
    CHECK(classify(ERROR_TOO_MANY_LINKS) == CAIRN_E_TOO_MANY_LINKS);
    CHECK(classify(ERROR_CANT_RESOLVE_FILENAME) == CAIRN_E_OS); /* ELOOP's counterpart */
#else
    CHECK(classify(ENOSPC) == CAIRN_E_DISK_FULL);
    CHECK(classify(EDQUOT) == CAIRN_E_DISK_FULL);
    CHECK(classify(ENOENT) == CAIRN_E_NOT_FOUND);
    CHECK(classify(ENOMEM) == CAIRN_E_OUT_OF_MEMORY);
    CHECK(classify(EIO) == CAIRN_E_IO);
    CHECK(classify(EACCES) == CAIRN_E_ACCESS_DENIED);
    CHECK(classify(EROFS) == CAIRN_E_ACCESS_DENIED);
    CHECK(classify(EWOULDBLOCK) == CAIRN_E_LOCKED);
    CHECK(classify(EEXIST) == CAIRN_E_ALREADY_EXISTS);
    CHECK(classify(EOPNOTSUPP) == CAIRN_E_UNSUPPORTED);
    CHECK(classify(EXDEV) == CAIRN_E_CROSS_DEVICE);
    CHECK(classify(EMLINK) == CAIRN_E_TOO_MANY_LINKS);
    CHECK(classify(ELOOP) == CAIRN_E_OS);
#endif
    CHECK(cairn_classify_error(TEST_ERROR_IO, NULL, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);

    int32_t version = 0;
    CHECK_OK(cairn_get_abi_version(&version, &test_last_os_error));
    CHECK(version == CAIRN_PAL_ABI_VERSION);
}

static void test_sync_fault(void)
{
    char *dir = test_make_dir("errors");
    char *path = test_join(dir, "synced");
    char *other = test_join(dir, "unfiltered");
    cairn_file *f = NULL;
    cairn_file *g = NULL;
    int32_t eff = 0;
    CHECK_OK(cairn_file_open(path, CAIRN_OPEN_CREATE, &f, &eff, &test_last_os_error));
    CHECK_OK(cairn_file_open(other, CAIRN_OPEN_CREATE, &g, &eff, &test_last_os_error));

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_SYNC_ERROR, 0, 0, TEST_ERROR_IO, "synced", &test_last_os_error));
    CHECK_OK(cairn_file_sync(g, &test_last_os_error)); /* outside the filter */
    CHECK(cairn_file_sync(f, &test_last_os_error) == CAIRN_E_IO);
    CHECK(test_last_os_error == TEST_ERROR_IO);
    CHECK_OK(cairn_file_sync(f, &test_last_os_error)); /* fired once, then disarmed */

    /* The same fault ends cairn_file_zero, whose last step is the sync. */
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_SYNC_ERROR, 0, 0, TEST_ERROR_IO, "synced", &test_last_os_error));
    CHECK(cairn_file_zero(f, 0, 4096, &test_last_os_error) == CAIRN_E_IO);
    CHECK(test_last_os_error == TEST_ERROR_IO);
    test_disarm_fault();

    CHECK_OK(cairn_file_close(g, &test_last_os_error));
    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    free(other);
    free(path);
    test_remove_dir(dir);
    free(dir);
}

/* An allocation that runs out of space part way leaves the file grown by what it got (here a size
 * that is no whole number of 8 KiB pages), reports the error, and only then disarms. */
static void test_allocate_fault(void)
{
    char *dir = test_make_dir("errors");
    char *path = test_join(dir, "allocated");
    cairn_file *f = NULL;
    int32_t eff = 0, allocated = 0;
    int64_t size = 0;
    CHECK_OK(cairn_file_open(path, CAIRN_OPEN_CREATE, &f, &eff, &test_last_os_error));
    CHECK_OK(cairn_file_allocate(f, 0, 8192, &allocated, &test_last_os_error));

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_ALLOCATE_ERROR, 1, 4096, TEST_ERROR_DISK_FULL, "allocated", &test_last_os_error));
    CHECK_OK(cairn_file_allocate(f, 0, 16384, &allocated, &test_last_os_error)); /* `after` lets one through */
    CHECK(cairn_file_allocate(f, 0, 65536, &allocated, &test_last_os_error) == CAIRN_E_DISK_FULL);
    CHECK(test_last_os_error == TEST_ERROR_DISK_FULL);
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 16384 + 4096); /* grown by `limit` past the old end */
    CHECK_OK(cairn_file_allocate(f, 0, 65536, &allocated, &test_last_os_error)); /* fired once, then disarmed */
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 65536);

    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_ALLOCATE_ERROR, 0, 1 << 20, TEST_ERROR_IO, "allocated", &test_last_os_error));
    CHECK(cairn_file_allocate(f, 65536, 65536, &allocated, &test_last_os_error) == CAIRN_E_IO);
    CHECK_OK(cairn_file_size(f, &size, &test_last_os_error));
    CHECK(size == 131072); /* a limit past the range grows it to the range's end, and still fails */
    test_disarm_fault();

    CHECK_OK(cairn_file_close(f, &test_last_os_error));
    free(path);
    test_remove_dir(dir);
    free(dir);
}

int main(void)
{
    test_messages();
    test_classification();
    test_sync_fault();
    test_allocate_fault();
    return 0;
}
