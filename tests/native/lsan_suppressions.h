/* Included (once per executable) by tests that arm fault hooks. cairn_test_set_fault leaks the
 * filter it replaces on purpose (a hook on another thread may still be reading it; see faults.c),
 * so LeakSanitizer would fail every test that re-arms a filtered fault. Only that one allocation
 * site is suppressed; any other leak still fails the sanitizer build. Default visibility because
 * the sanitizer runtime finds this hook by dynamic symbol lookup. */
#ifndef CAIRN_TEST_LSAN_SUPPRESSIONS_H
#define CAIRN_TEST_LSAN_SUPPRESSIONS_H

__attribute__((visibility("default"), used)) const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
    return "leak:cairn_test_set_fault\n";
}

#endif
