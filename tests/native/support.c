/* The test harness of support.h: the platform-neutral helpers first, then the POSIX and the Windows
 * implementations of what touches the OS directly (directories, whole-file reads, descriptor counts,
 * child processes, threads). */
#ifdef _WIN32
#include "win_internal.h" /* struct cairn_file, to hand its handle to a child process */
#else
#ifndef _GNU_SOURCE /* the build also passes -D_GNU_SOURCE (=1) through cairnpal_objects */
#define _GNU_SOURCE
#endif
#endif
#include "support.h"

#include <string.h>
#ifndef _WIN32
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

int32_t test_last_os_error;

#ifdef _WIN32
#define SEPARATOR '\\'
#else
#define SEPARATOR '/'
#endif

static int is_separator(char c)
{
    return c == '/' || c == SEPARATOR;
}

static void make_directory_quietly(const char *path);

char *test_make_dir_in(const char *root, const char *name)
{
    static int counter;
    char root_copy[4096];
    snprintf(root_copy, sizeof root_copy, "%s", root);
    /* mkdir -p without a shell; "C:" and "" (the root) are not made */
    for (char *p = root_copy + 1; *p; p++) {
        if (is_separator(*p) && p[-1] != ':') {
            char saved = *p;
            *p = '\0';
            make_directory_quietly(root_copy);
            *p = saved;
        }
    }
    make_directory_quietly(root_copy);

    char *path = malloc(4096);
    CHECK(path != NULL);
#ifdef _WIN32
    int pid = (int)GetCurrentProcessId();
#else
    int pid = (int)getpid();
#endif
    /* A failed test leaves its directory behind for a look, and wine hands out the same small process
     * ids on every run: a name that is taken is skipped, not an error. */
    for (;;) {
        CHECK(snprintf(path, 4096, "%s%c%s-%d-%d", root_copy, SEPARATOR, name, pid, counter++) < 4096);
        if (!test_exists(path))
            break;
    }
    test_mkdir(path);
    return path;
}

char *test_make_dir(const char *name)
{
    const char *root = getenv("CAIRN_TEST_DIR");
    if (root == NULL || root[0] == '\0')
        root = ".scratch/native-tests";
    return test_make_dir_in(root, name);
}

char *test_join(const char *dir, const char *leaf)
{
    size_t n = strlen(dir) + strlen(leaf) + 2;
    char *path = malloc(n);
    CHECK(path != NULL);
    snprintf(path, n, "%s%c%s", dir, SEPARATOR, leaf);
    return path;
}

uint64_t test_next_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void *test_aligned_pattern(size_t size, uint64_t seed)
{
    size_t allocation = size ? size : CAIRN_DIRECT_IO_ALIGNMENT;
#ifdef _WIN32
    void *buffer = _aligned_malloc(allocation, CAIRN_DIRECT_IO_ALIGNMENT);
    CHECK(buffer != NULL);
#else
    void *buffer = NULL;
    CHECK(posix_memalign(&buffer, CAIRN_DIRECT_IO_ALIGNMENT, allocation) == 0);
#endif
    uint64_t state = seed;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t v = test_next_random(&state);
        memcpy((char *)buffer + i, &v, 8);
    }
    for (size_t i = size & ~(size_t)7; i < size; i++)
        ((char *)buffer)[i] = (char)test_next_random(&state);
    return buffer;
}

void test_free_aligned(void *buffer)
{
#ifdef _WIN32
    _aligned_free(buffer);
#else
    free(buffer);
#endif
}

void test_check_file(const char *path, const void *expected, int64_t size)
{
    int64_t actual_size = -1;
    char *actual = test_read_file(path, &actual_size);
    if (actual_size != size)
        fprintf(stderr, "%s: size %lld, expected %lld\n", path, (long long)actual_size, (long long)size);
    CHECK(actual_size == size);
    if (memcmp(actual, expected, (size_t)size) != 0) {
        for (int64_t i = 0; i < size; i++) {
            if (actual[i] != ((const char *)expected)[i]) {
                fprintf(stderr, "%s: first difference at byte %lld\n", path, (long long)i);
                break;
            }
        }
        CHECK(!"file content differs from the expected bytes");
    }
    free(actual);
}

/* What test_open and test_open_journal check of an open that returned CAIRN_OK. */
static cairn_file *opened(cairn_file *file, int32_t in_effect, int32_t *effective)
{
    CHECK(file != NULL);
    if (effective != NULL)
        *effective = in_effect;
    return file;
}

cairn_file *test_open(const char *path, int32_t flags, int32_t *effective)
{
    cairn_file *file = NULL;
    int32_t in_effect = -1;
    CHECK_OK(cairn_file_open(path, flags, &file, &in_effect, &test_last_os_error));
    return opened(file, in_effect, effective);
}

cairn_file *test_open_journal(const char *path, int64_t size, int32_t *effective)
{
    cairn_file *file = NULL;
    int32_t in_effect = -1;
    CHECK_OK(cairn_journal_open(path, size, &file, &in_effect, &test_last_os_error));
    return opened(file, in_effect, effective);
}

void test_close(cairn_file *file)
{
    CHECK_OK(cairn_file_close(file, &test_last_os_error));
}

void test_expect_invalid_write(cairn_file *file, const void *data, int64_t length, int64_t offset)
{
    cairn_buffer buffer = {data, length};
    test_last_os_error = -1;
    CHECK(cairn_file_write(file, &buffer, 1, offset, &test_last_os_error) == CAIRN_E_INVALID_ARGUMENT);
    CHECK(test_last_os_error == 0);
}

void test_disarm_fault(void)
{
    CHECK_OK(cairn_test_set_fault(CAIRN_FAULT_NONE, 0, 0, 0, NULL, &test_last_os_error));
}

int64_t test_write_calls(void)
{
    int64_t count = 0;
    CHECK_OK(cairn_test_write_calls(&count, &test_last_os_error));
    return count;
}

#ifndef _WIN32
/* ---------------------------------------------------------------------------------------------
 * POSIX
 * ------------------------------------------------------------------------------------------- */

static void make_directory_quietly(const char *path)
{
    mkdir(path, 0755);
}

void test_mkdir(const char *path)
{
    CHECK(mkdir(path, 0755) == 0);
}

void test_rmdir(const char *path)
{
    CHECK(rmdir(path) == 0);
}

void test_rmdir_if_empty(const char *path)
{
    (void)rmdir(path);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void test_remove_dir(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void *test_read_file(const char *path, int64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    char *buffer = malloc(st.st_size ? (size_t)st.st_size : 1);
    CHECK(buffer != NULL);
    int64_t done = 0;
    while (done < st.st_size) {
        ssize_t n = pread(fd, buffer + done, (size_t)(st.st_size - done), done);
        if (n < 0 && errno == EINTR)
            continue;
        CHECK(n > 0);
        done += n;
    }
    close(fd);
    *size = st.st_size;
    return buffer;
}

int test_count_open_fds(void)
{
    DIR *directory = opendir("/proc/self/fd");
    CHECK(directory != NULL);
    int count = 0;
    while (readdir(directory) != NULL)
        count++;
    closedir(directory);
    return count;
}

int test_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int64_t test_file_size(const char *path)
{
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return (int64_t)st.st_size;
}

int64_t test_allocated_bytes(const char *path)
{
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return (int64_t)st.st_blocks * 512;
}

int test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

char *test_getcwd(void)
{
    char *cwd = getcwd(NULL, 0);
    CHECK(cwd != NULL);
    return cwd;
}

void test_chdir(const char *path)
{
    CHECK(chdir(path) == 0);
}

int test_under_wine(void)
{
    return 0;
}

struct test_holder {
    pid_t child;
    int release_fd;
};

/* The child never execs (as a child of the host may not for a while): it holds every inherited
 * descriptor until the parent writes to the pipe. */
test_holder *test_hold_in_child(cairn_file *file)
{
    (void)file; /* fork shares every open descriptor, this one included */
    test_holder *holder = calloc(1, sizeof *holder);
    CHECK(holder != NULL);
    int to_child[2];
    CHECK(pipe(to_child) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        char done;
        close(to_child[1]);
        (void)read(to_child[0], &done, 1);
        _exit(0);
    }
    close(to_child[0]);
    holder->child = child;
    holder->release_fd = to_child[1];
    return holder;
}

void test_release_holder(test_holder *holder)
{
    CHECK(write(holder->release_fd, "x", 1) == 1);
    close(holder->release_fd);
    int status = 0;
    CHECK(waitpid(holder->child, &status, 0) == holder->child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(holder);
}

struct test_thread {
    pthread_t thread;
};

test_thread *test_thread_start(void *(*run)(void *), void *argument)
{
    test_thread *thread = calloc(1, sizeof *thread);
    CHECK(thread != NULL);
    CHECK(pthread_create(&thread->thread, NULL, run, argument) == 0);
    return thread;
}

void test_thread_join(test_thread *thread)
{
    CHECK(pthread_join(thread->thread, NULL) == 0);
    free(thread);
}

#else
/* ---------------------------------------------------------------------------------------------
 * Windows (and wine)
 * ------------------------------------------------------------------------------------------- */
static void make_directory_quietly(const char *path)
{
    CreateDirectoryA(path, NULL);
}

/* `path` as the W APIs take it past MAX_PATH: UTF-16, with the \\?\ prefix when it is absolute
 * with a drive (as CAIRN_TEST_DIR is); malloc'd. */
static wchar_t *long_wide_path(const char *path)
{
    int count = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    CHECK(count > 0);
    wchar_t *wide = malloc(((size_t)count + 4) * sizeof(wchar_t));
    CHECK(wide != NULL);
    int prefix = path[0] != '\0' && path[1] == ':' && is_separator(path[2]) ? 4 : 0;
    memcpy(wide, L"\\\\?\\", (size_t)prefix * sizeof(wchar_t));
    CHECK(MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide + prefix, count) == count);
    for (wchar_t *c = wide + prefix; *c; c++)
        if (*c == L'/')
            *c = L'\\';
    return wide;
}

void test_mkdir(const char *path)
{
    wchar_t *wide = long_wide_path(path);
    if (!CreateDirectoryW(wide, NULL)) {
        fprintf(stderr, "CreateDirectory(%s): error %lu\n", path, (unsigned long)GetLastError());
        CHECK(!"test_mkdir");
    }
    free(wide);
}

void test_rmdir(const char *path)
{
    wchar_t *wide = long_wide_path(path);
    CHECK(RemoveDirectoryW(wide));
    free(wide);
}

void test_rmdir_if_empty(const char *path)
{
    wchar_t *wide = long_wide_path(path);
    (void)RemoveDirectoryW(wide);
    free(wide);
}

void test_remove_dir(const char *path)
{
    char *pattern = test_join(path, "*");
    WIN32_FIND_DATAA entry;
    HANDLE find = FindFirstFileA(pattern, &entry);
    free(pattern);
    if (find != INVALID_HANDLE_VALUE) {
        do {
            if (strcmp(entry.cFileName, ".") == 0 || strcmp(entry.cFileName, "..") == 0)
                continue;
            char *child = test_join(path, entry.cFileName);
            if (entry.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
                test_remove_dir(child);
            else
                DeleteFileA(child);
            free(child);
        } while (FindNextFileA(find, &entry));
        FindClose(find);
    }
    RemoveDirectoryA(path);
}

/* Opened with every sharing mode, as the library opens its own handles, so a file the test still
 * has open through the library can be read. */
static HANDLE open_for_reading(const char *path, DWORD access)
{
    return CreateFileA(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
}

void *test_read_file(const char *path, int64_t *size)
{
    HANDLE file = open_for_reading(path, GENERIC_READ);
    CHECK(file != INVALID_HANDLE_VALUE);
    LARGE_INTEGER length;
    CHECK(GetFileSizeEx(file, &length));
    char *buffer = malloc(length.QuadPart ? (size_t)length.QuadPart : 1);
    CHECK(buffer != NULL);
    int64_t done = 0;
    while (done < length.QuadPart) {
        DWORD want = length.QuadPart - done > (1 << 30) ? (1u << 30) : (DWORD)(length.QuadPart - done);
        DWORD got = 0;
        CHECK(ReadFile(file, buffer + done, want, &got, NULL));
        CHECK(got > 0);
        done += got;
    }
    CloseHandle(file);
    *size = length.QuadPart;
    return buffer;
}

/* GetProcessHandleCount where it works; wine answers 0, so there the handle table is walked. */
int test_count_open_fds(void)
{
    DWORD count = 0;
    if (GetProcessHandleCount(GetCurrentProcess(), &count) && count > 0)
        return (int)count;
    int found = 0;
    for (ULONG_PTR value = 4; value < 0x4000; value += 4) {
        DWORD flags = 0;
        found += GetHandleInformation((HANDLE)value, &flags) != 0;
    }
    return found;
}

int test_exists(const char *path)
{
    return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

static FILE_STANDARD_INFO standard_info(const char *path)
{
    HANDLE file = open_for_reading(path, FILE_READ_ATTRIBUTES);
    CHECK(file != INVALID_HANDLE_VALUE);
    FILE_STANDARD_INFO info;
    CHECK(GetFileInformationByHandleEx(file, FileStandardInfo, &info, sizeof info));
    CloseHandle(file);
    return info;
}

int64_t test_file_size(const char *path)
{
    return standard_info(path).EndOfFile.QuadPart;
}

int64_t test_allocated_bytes(const char *path)
{
    return standard_info(path).AllocationSize.QuadPart;
}

int test_count_entries(const char *dir)
{
    char *pattern = test_join(dir, "*");
    WIN32_FIND_DATAA entry;
    HANDLE find = FindFirstFileA(pattern, &entry);
    free(pattern);
    CHECK(find != INVALID_HANDLE_VALUE);
    int n = 0;
    do {
        n += strcmp(entry.cFileName, ".") != 0 && strcmp(entry.cFileName, "..") != 0;
    } while (FindNextFileA(find, &entry));
    FindClose(find);
    return n;
}

char *test_getcwd(void)
{
    DWORD length = GetCurrentDirectoryA(0, NULL);
    CHECK(length > 0);
    char *cwd = malloc(length);
    CHECK(cwd != NULL && GetCurrentDirectoryA(length, cwd) == length - 1);
    return cwd;
}

void test_chdir(const char *path)
{
    CHECK(SetCurrentDirectoryA(path));
}

int test_under_wine(void)
{
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    return ntdll != NULL && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

/* The holder is this same executable, started with CAIRN_TEST_HOLDER set: before main it waits for
 * its standard input to close and exits. The parent duplicates the file's handle into it. */
#define HOLDER_VARIABLE "CAIRN_TEST_HOLDER"

__attribute__((constructor)) static void run_as_holder(void)
{
    char value[4];
    if (GetEnvironmentVariableA(HOLDER_VARIABLE, value, sizeof value) == 0)
        return;
    char byte;
    DWORD got = 0;
    while (ReadFile(GetStdHandle(STD_INPUT_HANDLE), &byte, 1, &got, NULL) && got > 0)
        ;
    ExitProcess(0);
}

struct test_holder {
    PROCESS_INFORMATION process;
    HANDLE release;
};

test_holder *test_hold_in_child(cairn_file *file)
{
    test_holder *holder = calloc(1, sizeof *holder);
    CHECK(holder != NULL);
    SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
    HANDLE child_input = NULL;
    CHECK(CreatePipe(&child_input, &holder->release, &inherit, 0));
    CHECK(SetHandleInformation(holder->release, HANDLE_FLAG_INHERIT, 0));

    char self[MAX_PATH];
    DWORD length = GetModuleFileNameA(NULL, self, sizeof self);
    CHECK(length > 0 && length < sizeof self);
    STARTUPINFOA startup;
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = child_input;
    startup.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    CHECK(SetEnvironmentVariableA(HOLDER_VARIABLE, "1"));
    CHECK(CreateProcessA(self, NULL, NULL, NULL, TRUE, 0, NULL, NULL, &startup, &holder->process));
    CHECK(SetEnvironmentVariableA(HOLDER_VARIABLE, NULL));
    CloseHandle(child_input);

    HANDLE copy = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), file->handle, holder->process.hProcess, &copy, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    return holder;
}

void test_release_holder(test_holder *holder)
{
    CloseHandle(holder->release);
    CHECK(WaitForSingleObject(holder->process.hProcess, 60000) == WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(holder->process.hProcess, &code) && code == 0);
    CloseHandle(holder->process.hThread);
    CloseHandle(holder->process.hProcess);
    free(holder);
}

struct test_thread {
    HANDLE handle;
    void *(*run)(void *);
    void *argument;
};

static DWORD WINAPI thread_main(LPVOID parameter)
{
    test_thread *thread = parameter;
    thread->run(thread->argument);
    return 0;
}

test_thread *test_thread_start(void *(*run)(void *), void *argument)
{
    test_thread *thread = calloc(1, sizeof *thread);
    CHECK(thread != NULL);
    thread->run = run;
    thread->argument = argument;
    thread->handle = CreateThread(NULL, 0, thread_main, thread, 0, NULL);
    CHECK(thread->handle != NULL);
    return thread;
}

void test_thread_join(test_thread *thread)
{
    CHECK(WaitForSingleObject(thread->handle, INFINITE) == WAIT_OBJECT_0);
    CloseHandle(thread->handle);
    free(thread);
}
#endif
