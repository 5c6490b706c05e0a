/*
 * Does an emulator run code that was rewritten through a second, writable mapping of the same memory?
 *
 * .NET's W^X (on by default) never maps jitted code writable and executable at once: it writes code
 * through a second, writable view of the same memory (a memfd mapped twice) and runs it through the
 * executable view. A translating emulator that notices self-modifying code by watching writes to the
 * pages it translated from does not see writes made through the other view, and can go on running the
 * old translation. This program asks that question of the machine it runs on, without .NET:
 *
 *   1. alias:  a memfd mapped read+execute and, a second time, read+write. A function "return 1" is written
 *              through the writable view and called through the executable one; then the same bytes are
 *              rewritten to "return 2" (through the writable view, with the cache maintenance the Arm
 *              architecture asks for: __builtin___clear_cache on the executable view) and called again.
 *   2. single: the same with one private read+write+execute mapping, rewritten in place.
 *
 * The Arm architecture requires both second calls to return 2. Exit 0: both did; 1: the alias case ran
 * the old code (the emulator's limitation); 2: anything else (the single-mapping case failed, or a
 * mapping could not be made). Built for linux-arm64 by scripts/qemu-wx.sh; docs/decisions.md, issue 30, W arm64.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

typedef long (*constant_fn)(void);

/* movz x0, #value ; ret */
static void write_return_constant(uint32_t *code, uint16_t value)
{
    code[0] = 0xD2800000u | ((uint32_t)value << 5);
    code[1] = 0xD65F03C0u;
}

static long call_after_rewrite(uint32_t *writable, char *executable, uint16_t first, uint16_t second, long *before)
{
    write_return_constant(writable, first);
    __builtin___clear_cache(executable, executable + 8);
    *before = ((constant_fn)(void *)executable)();
    write_return_constant(writable, second);
    __builtin___clear_cache(executable, executable + 8);
    return ((constant_fn)(void *)executable)();
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);

    int fd = memfd_create("alias-smc", 0);
    if (fd < 0 || ftruncate(fd, page) != 0) {
        perror("memfd_create/ftruncate");
        return 2;
    }
    char *executable = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    uint32_t *writable = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *single = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (executable == MAP_FAILED || writable == MAP_FAILED || single == MAP_FAILED) {
        perror("mmap");
        return 2;
    }

    long alias_before, single_before;
    long alias_after = call_after_rewrite(writable, executable, 1, 2, &alias_before);
    long single_after = call_after_rewrite((uint32_t *)(void *)single, single, 1, 2, &single_before);

    printf("alias (W^X double mapping): first call %ld, after rewrite %ld (expected 2)\n", alias_before, alias_after);
    printf("single mapping (RWX):       first call %ld, after rewrite %ld (expected 2)\n", single_before, single_after);
    if (alias_before != 1 || single_before != 1 || single_after != 2)
        return 2;
    return alias_after == 2 ? 0 : 1;
}
