/* The positional I/O, write and sync primitives every Windows path goes through, so that the
 * overlapped-handle handling, the short-write loop, WriteFileGather and the fault hooks live in
 * exactly one place. */
#include "win_internal.h"

#include <string.h>

/* Pages per WriteFileGather call: 2 MiB with 4 KiB pages, and a segment array small enough for
 * the stack. */
#define GATHER_MAX_PAGES 512

DWORD cairn_win_io_begin(cairn_win_io *io, const struct cairn_file *file, int64_t offset)
{
    memset(io, 0, sizeof *io);
    io->handle = file->handle;
    io->overlapped.Offset = (DWORD)((uint64_t)offset & 0xFFFFFFFFu);
    io->overlapped.OffsetHigh = (DWORD)((uint64_t)offset >> 32);
    if (!cairn_win_is_overlapped(file))
        return 0;
    /* An event per call: several threads may have I/O in flight on one handle, and waiting on the
     * handle itself would wake for whichever of them finished first. */
    io->overlapped.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    return io->overlapped.hEvent != NULL ? 0 : cairn_win_last_error();
}

DWORD cairn_win_io_wait(cairn_win_io *io, BOOL issued, DWORD *transferred)
{
    if (!issued) {
        DWORD error = cairn_win_last_error();
        if (error != ERROR_IO_PENDING)
            return error;
    } else if (io->overlapped.hEvent == NULL) {
        return 0; /* synchronous handle: the call already stored the count */
    }
    DWORD count = 0;
    if (!GetOverlappedResult(io->handle, &io->overlapped, &count, TRUE))
        return cairn_win_last_error();
    if (transferred != NULL)
        *transferred = count;
    return 0;
}

void cairn_win_io_end(cairn_win_io *io)
{
    if (io->overlapped.hEvent != NULL)
        CloseHandle(io->overlapped.hEvent);
    io->overlapped.hEvent = NULL;
}

DWORD cairn_win_page_size(void)
{
    static volatile LONG cached;
    LONG page = InterlockedCompareExchange(&cached, 0, 0);
    if (page == 0) {
        SYSTEM_INFO info;
        GetSystemInfo(&info);
        page = (LONG)info.dwPageSize;
        InterlockedExchange(&cached, page);
    }
    return (DWORD)page;
}

/* Position in a buffer list: bytes of buffers[index] already written are `done`. */
typedef struct write_cursor {
    const cairn_buffer *buffers;
    int count;
    int index;
    int64_t done;
} write_cursor;

static void cursor_settle(write_cursor *c)
{
    while (c->index < c->count && c->done >= c->buffers[c->index].length) {
        c->index++;
        c->done = 0;
    }
}

static const char *cursor_data(const write_cursor *c)
{
    return (const char *)c->buffers[c->index].data + c->done;
}

static int64_t cursor_left(const write_cursor *c)
{
    return c->buffers[c->index].length - c->done;
}

static void cursor_advance(write_cursor *c, int64_t bytes)
{
    while (bytes > 0 && c->index < c->count) {
        int64_t left = cursor_left(c);
        int64_t step = bytes < left ? bytes : left;
        c->done += step;
        bytes -= step;
        cursor_settle(c);
    }
}

/* Lists one segment per page of the buffers from the cursor on, stopping at the first buffer
 * that is not whole pages at a page boundary (WriteFileGather takes nothing else); returns how
 * many buffers the segments span. */
static int plan_gather(write_cursor c, DWORD page, FILE_SEGMENT_ELEMENT *segments, DWORD *pages)
{
    int spanned = 0;
    DWORD n = 0;
    while (c.index < c.count && n < GATHER_MAX_PAGES) {
        const char *data = cursor_data(&c);
        int64_t left = cursor_left(&c);
        if ((uintptr_t)data % page != 0 || left % page != 0)
            break;
        spanned++;
        for (int64_t at = 0; at < left && n < GATHER_MAX_PAGES; at += page)
            segments[n++].Alignment = (ULONGLONG)(uintptr_t)(data + at);
        c.index++;
        c.done = 0;
        cursor_settle(&c);
    }
    *pages = n;
    return spanned;
}

static DWORD write_contiguous(struct cairn_file *file, const void *data, DWORD length, int64_t offset,
                              DWORD *written)
{
    cairn_win_io io;
    DWORD error = cairn_win_io_begin(&io, file, offset);
    if (error != 0)
        return error;
    BOOL issued = WriteFile(file->handle, data, length, cairn_win_io_sync_count(&io, written), &io.overlapped);
    error = cairn_win_io_wait(&io, issued, written);
    cairn_win_io_end(&io);
    return error;
}

static DWORD write_segments(struct cairn_file *file, FILE_SEGMENT_ELEMENT *segments, DWORD page, DWORD length,
                            int64_t offset, DWORD *written)
{
    /* A short-write fault may cut the list; it ends at the first NULL segment. */
    segments[(length + page - 1) / page].Alignment = 0;
    cairn_win_io io;
    DWORD error = cairn_win_io_begin(&io, file, offset);
    if (error != 0)
        return error;
    BOOL issued = WriteFileGather(file->handle, segments, length, NULL, &io.overlapped);
    error = cairn_win_io_wait(&io, issued, written);
    cairn_win_io_end(&io);
    return error;
}

int32_t cairn_win_write_all(struct cairn_file *file, const cairn_buffer *buffers, int count, int64_t offset,
                            int32_t *os_error)
{
    FILE_SEGMENT_ELEMENT segments[GATHER_MAX_PAGES + 1];
    const DWORD page = cairn_win_page_size();
    write_cursor cursor = {buffers, count, 0, 0};
    cursor_settle(&cursor);

    while (cursor.index < cursor.count) {
        /* Gathering pays only when the pages come from more than one buffer; one contiguous
         * buffer is a plain WriteFile. WriteFileGather needs the overlapped unbuffered handle
         * that CAIRN_OPEN_DIRECT gives. */
        DWORD pages = 0;
        int gather = cairn_win_is_overlapped(file) && plan_gather(cursor, page, segments, &pages) > 1;
        int64_t planned = gather ? (int64_t)pages * page : cursor_left(&cursor);
        if (planned > CAIRN_WIN_MAX_IO)
            planned = CAIRN_WIN_MAX_IO;

        int64_t allowed = planned;
        int32_t injected = 0;
        int fault = cairn_fault_on_write(file->path, &allowed, &injected);
        if (fault == 1)
            return cairn_fail(injected, os_error);

        DWORD written = 0;
        if (fault == 0) {
            DWORD error = gather ? write_segments(file, segments, page, (DWORD)allowed, offset, &written)
                                 : write_contiguous(file, cursor_data(&cursor), (DWORD)allowed, offset, &written);
            if (error != 0)
                return cairn_win_fail(error, os_error);
        }
        if (written == 0)
            return cairn_win_fail(ERROR_DISK_FULL, os_error); /* no progress on a file: the disk is full */

        offset += written;
        cursor_advance(&cursor, written);
    }
    return cairn_ok(os_error);
}

int32_t cairn_win_flush(struct cairn_file *file, int32_t *os_error)
{
    int32_t injected = 0;
    if (cairn_fault_on_sync(file->path, &injected))
        return cairn_fail(injected, os_error);
    if (!FlushFileBuffers(file->handle))
        return cairn_win_fail(cairn_win_last_error(), os_error);
    return cairn_ok(os_error);
}
