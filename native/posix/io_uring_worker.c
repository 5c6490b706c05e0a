/* The data-file writer's io_uring worker: ONE process-wide thread owning ONE ring.
 *
 * Queue. Submitters (any thread) link a call's work items into a chain and push the whole chain
 * onto an intrusive lock-free stack with a single CAS, then write the worker's eventfd once. The
 * worker takes the entire stack with one atomic exchange (so there is no ABA problem: nobody ever
 * pops a single node), reverses it into submission order and appends it to a private FIFO. Only
 * the worker touches the FIFO, the ring and the items it holds.
 *
 * Wake-up protocol. The worker's only blocking point is io_uring_submit_and_wait(ring, 1), and it
 * always has an IORING_OP_READ of its own eventfd in the ring: the read is re-armed (prepared)
 * first thing in each iteration after its completion was reaped, BEFORE the stack is examined.
 * A submitter pushes, then writes the eventfd. Either the worker's exchange sees the push, or the
 * push came after the exchange - and so the eventfd write came after the read was prepared. An
 * eventfd read completes as soon as the counter is non-zero, whether the write happened before the
 * read was issued or while it was waiting, so the read completes, a CQE is posted, and the wait
 * (which itself submits the read if it had only been prepared) returns. The next iteration's
 * exchange then sees the push. I/O completions wake the same wait directly. Nothing spins: when
 * there is no work the thread sleeps in the kernel until a CQE arrives.
 *
 * Flow control. At most `cap` operations (the SQ size; the eventfd read included) are in flight.
 * Every prepared SQE counts until its CQE is reaped, so the SQ always has room for the next one and
 * the CQ (twice the SQ) can never overflow. When the FIFO holds more than fits, the worker submits
 * what it has and waits for completions, then continues; cap >= 2 leaves room for the eventfd read
 * plus at least one item, so work always progresses.
 *
 * Partial writes. A completion for fewer bytes than were submitted advances the item's iovec
 * window and offset and puts it back at the front of the FIFO for the rest. The short-write fault
 * hook exercises this by capping what an SQE asks for. A zero-byte completion of a non-empty write
 * is ENOSPC, as in the pwritev path.
 *
 * Completion. An item's result goes into its call's record (first error wins); the item whose
 * decrement takes the call's pending count to zero writes the caller's eventfd: one wake-up per
 * call. The notify fd is read before the decrement, and nothing of the call is touched after it.
 *
 * Fatal ring errors. If io_uring_enter itself fails for good (or the eventfd read does), the
 * worker fails every item the kernel has not consumed and everything queued or pushed later with
 * that errno, keeps reaping the completions of what the kernel did take (giving up on them after
 * DEGRADED_GRACE_SECONDS) and never submits again. cairn_io_shutdown restarts it with a new ring.
 */
#include "io_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAKE_TAG ((uint64_t)1) /* user_data of the eventfd read; items are aligned pointers */
#define MAX_RETRIES 16          /* EINTR/EAGAIN completions of one item in a row before failing it */
#define BUSY_SLEEP_NS 1000000L  /* backoff when io_uring_enter reports EAGAIN/EBUSY */
#define BUSY_RETRY_LIMIT 5000   /* ... for about five seconds, then it is fatal */
#define DEGRADED_GRACE_SECONDS 10
#define WORKER_STACK_BYTES (256 * 1024)
#define WORKER_NAME "cairn-io-ring" /* at most 15 characters */

struct ring_worker {
    struct io_uring ring;
    pthread_t thread;
    int wake_fd;
    int running;                           /* ring and thread exist */
    unsigned cap;                          /* operations allowed in flight, eventfd read included */
    unsigned inflight;                     /* prepared and not yet reaped, eventfd read included */
    bool wake_armed;                       /* the eventfd read is prepared or in the kernel */
    bool abandoned;                        /* degraded: in-ring items were failed without their CQEs */
    uint64_t wake_value;                   /* destination of the eventfd read */
    uint16_t ioprio;                       /* sqe->ioprio for writes (0 = the thread's own) */
    int fatal;                             /* errno of a fatal ring error; 0 while healthy */
    struct cairn_io_work *fifo_head, *fifo_tail;
    struct cairn_io_work *in_ring;         /* items with an SQE out, doubly linked */
    unsigned items_in_ring;
    atomic_bool stop;
    _Atomic(struct cairn_io_work *) head;  /* the submission stack */
};

static struct ring_worker g_worker;
static atomic_int g_inject_fatal;

/* ---------------------------------------------------------------------------------------------
 * Small helpers.
 * ------------------------------------------------------------------------------------------- */

static void signal_eventfd(int fd)
{
    while (eventfd_write(fd, 1) != 0 && errno == EINTR) {
    }
}

/* Records an item's result in its call and, when it is the call's last item, wakes the caller.
 * Neither the item nor the call may be used after this returns. */
static void finish(struct cairn_io_work *item, int error)
{
    struct cairn_io_call *call = item->call;
    if (error != 0) {
        int expected = 0;
        atomic_compare_exchange_strong(&call->error, &expected, error);
    }
    int notify_fd = call->notify_fd;
    if (atomic_fetch_sub_explicit(&call->pending, 1, memory_order_acq_rel) == 1)
        signal_eventfd(notify_fd);
}

static void fifo_push_front(struct ring_worker *w, struct cairn_io_work *item)
{
    item->next = w->fifo_head;
    w->fifo_head = item;
    if (w->fifo_tail == NULL)
        w->fifo_tail = item;
}

static struct cairn_io_work *fifo_pop(struct ring_worker *w)
{
    struct cairn_io_work *item = w->fifo_head;
    w->fifo_head = item->next;
    if (w->fifo_head == NULL)
        w->fifo_tail = NULL;
    item->next = NULL;
    return item;
}

static void ring_list_add(struct ring_worker *w, struct cairn_io_work *item)
{
    item->ring_prev = NULL;
    item->ring_next = w->in_ring;
    if (w->in_ring != NULL)
        w->in_ring->ring_prev = item;
    w->in_ring = item;
    w->items_in_ring++;
}

static void ring_list_remove(struct ring_worker *w, struct cairn_io_work *item)
{
    if (item->ring_prev != NULL)
        item->ring_prev->ring_next = item->ring_next;
    else
        w->in_ring = item->ring_next;
    if (item->ring_next != NULL)
        item->ring_next->ring_prev = item->ring_prev;
    item->ring_prev = item->ring_next = NULL;
    w->items_in_ring--;
}

/* Moves everything pushed so far to the end of the FIFO, oldest first. */
static void take_submissions(struct ring_worker *w)
{
    struct cairn_io_work *list = atomic_exchange_explicit(&w->head, NULL, memory_order_acquire);
    if (list == NULL)
        return;
    struct cairn_io_work *newest = list, *reversed = NULL;
    while (list != NULL) {
        struct cairn_io_work *next = list->next;
        list->next = reversed;
        reversed = list;
        list = next;
    }
    if (w->fifo_tail != NULL)
        w->fifo_tail->next = reversed;
    else
        w->fifo_head = reversed;
    w->fifo_tail = newest;
}

/* Undoes the short-write cap of the SQE that just completed (or never will). */
static void uncap(struct cairn_io_work *item)
{
    if (item->capped_index >= 0) {
        item->iov[item->capped_index].iov_len = item->capped_length;
        item->capped_index = -1;
    }
}

/* Moves the item's window past `written` bytes. */
static void advance(struct cairn_io_work *item, int64_t written)
{
    if (written > item->remaining)
        written = item->remaining;
    item->offset += written;
    item->remaining -= written;
    while (written > 0 && item->iov_count > 0) {
        int64_t length = (int64_t)item->iov[0].iov_len;
        if (length <= written) {
            written -= length;
            item->iov++;
            item->iov_count--;
        } else {
            item->iov[0].iov_base = (char *)item->iov[0].iov_base + written;
            item->iov[0].iov_len -= (size_t)written;
            written = 0;
        }
    }
}

static int64_t monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec;
}

/* ---------------------------------------------------------------------------------------------
 * Preparing SQEs and handling CQEs.
 * ------------------------------------------------------------------------------------------- */

static struct io_uring_sqe *get_sqe(struct ring_worker *w)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
    if (sqe == NULL) {
        /* Unreachable while inflight < cap (every unconsumed SQE is counted in flight); kept so a
         * miscount costs a syscall instead of a stall. */
        (void)io_uring_submit(&w->ring);
        sqe = io_uring_get_sqe(&w->ring);
    }
    return sqe;
}

static void arm_wake(struct ring_worker *w)
{
    struct io_uring_sqe *sqe = get_sqe(w);
    if (sqe == NULL)
        return;
    io_uring_prep_read(sqe, w->wake_fd, &w->wake_value, sizeof w->wake_value, 0);
    io_uring_sqe_set_data64(sqe, WAKE_TAG);
    w->wake_armed = true;
    w->inflight++;
}

/* Turns an item into an SQE, or completes it on the spot when a fault hook says so. */
static void prepare(struct ring_worker *w, struct cairn_io_work *item)
{
    struct io_uring_sqe *sqe;
    item->capped_index = -1;
    if (item->kind == CAIRN_WORK_SYNC) {
        int32_t injected = 0;
        if (cairn_fault_on_sync(item->path, &injected)) {
            finish(item, injected);
            return;
        }
        sqe = get_sqe(w);
        if (sqe == NULL) {
            finish(item, EBUSY);
            return;
        }
        io_uring_prep_fsync(sqe, item->fd, IORING_FSYNC_DATASYNC);
    } else {
        int64_t allowed = item->remaining;
        int32_t injected = 0;
        int fault = cairn_fault_on_write(item->path, &allowed, &injected);
        if (fault == 1) {
            finish(item, injected);
            return;
        }
        if (fault == 2 || allowed <= 0) {
            finish(item, ENOSPC); /* a zero-byte write of a non-empty buffer: the disk is full */
            return;
        }
        sqe = get_sqe(w);
        if (sqe == NULL) {
            finish(item, EBUSY);
            return;
        }
        unsigned count = (unsigned)item->iov_count;
        if (allowed < item->remaining) {
            /* Short-write fault: ask for exactly `allowed` bytes from the front of the window. */
            int64_t left = allowed;
            int32_t last = 0;
            while ((int64_t)item->iov[last].iov_len < left) {
                left -= (int64_t)item->iov[last].iov_len;
                last++;
            }
            if ((int64_t)item->iov[last].iov_len > left) {
                item->capped_index = last;
                item->capped_length = item->iov[last].iov_len;
                item->iov[last].iov_len = (size_t)left;
            }
            count = (unsigned)last + 1;
        }
        io_uring_prep_writev(sqe, item->fd, item->iov, count, (uint64_t)item->offset);
    }
    /* Writes carry the priority in the SQE. The kernel rejects sqe->ioprio on IORING_OP_FSYNC
     * (-EINVAL, checked on 6.18), so syncs get it from the worker thread's own ioprio_set, which
     * io-wq threads share (they are cloned with CLONE_IO). */
    if (item->kind == CAIRN_WORK_WRITE)
        sqe->ioprio = w->ioprio;
    io_uring_sqe_set_data(sqe, item);
    ring_list_add(w, item);
    w->inflight++;
}

/* An item's SQE completed with `res`. Healthy: finish it, or re-queue what is left. Degraded:
 * nothing is re-queued; whatever is not done fails with the fatal error. */
static void complete_item(struct ring_worker *w, struct cairn_io_work *item, int res)
{
    uncap(item);
    bool retryable = (res == -EINTR || res == -EAGAIN) && w->fatal == 0 && ++item->retries <= MAX_RETRIES;
    if (item->kind == CAIRN_WORK_SYNC) {
        if (retryable)
            fifo_push_front(w, item);
        else
            finish(item, res < 0 ? -res : 0);
        return;
    }
    if (res < 0) {
        if (retryable)
            fifo_push_front(w, item);
        else
            finish(item, -res);
        return;
    }
    if (res == 0) {
        finish(item, ENOSPC);
        return;
    }
    advance(item, res);
    if (item->remaining == 0) {
        finish(item, 0);
    } else if (w->fatal != 0) {
        finish(item, w->fatal);
    } else {
        item->retries = 0;
        fifo_push_front(w, item); /* partial write: the rest goes next */
    }
}

/* Handles every CQE available now, without a syscall. */
static void reap(struct ring_worker *w)
{
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&w->ring, head, cqe) {
        seen++;
        uint64_t data = io_uring_cqe_get_data64(cqe);
        int res = cqe->res;
        if (data == WAKE_TAG) {
            w->wake_armed = false;
            w->inflight--;
            /* A failing eventfd read would otherwise be re-armed and fail again forever. */
            if (res < 0 && res != -EINTR && w->fatal == 0)
                w->fatal = -res;
            continue;
        }
        if (data == 0 || w->abandoned)
            continue; /* abandoned items were already failed; their memory may be gone */
        struct cairn_io_work *item = (struct cairn_io_work *)(uintptr_t)data;
        w->inflight--;
        ring_list_remove(w, item);
        complete_item(w, item, res);
    }
    io_uring_cq_advance(&w->ring, seen);
}

static void fail_queued(struct ring_worker *w, int error)
{
    take_submissions(w);
    while (w->fifo_head != NULL)
        finish(fifo_pop(w), error);
}

/* ---------------------------------------------------------------------------------------------
 * After a fatal ring error: never submit again, fail what cannot complete, reap what can.
 * ------------------------------------------------------------------------------------------- */
static void run_degraded(struct ring_worker *w)
{
    int error = w->fatal;

    /* SQEs the kernel has not consumed never will be, since nothing below enters the ring with
     * work to submit. liburing hands out SQEs in ring order, so they are sqes[khead..sqe_tail). */
    unsigned khead = io_uring_smp_load_acquire(w->ring.sq.khead);
    for (unsigned i = khead; i != w->ring.sq.sqe_tail; i++) {
        uint64_t data = w->ring.sq.sqes[i & w->ring.sq.ring_mask].user_data;
        w->inflight--;
        if (data == WAKE_TAG) {
            w->wake_armed = false;
        } else if (data != 0) {
            struct cairn_io_work *item = (struct cairn_io_work *)(uintptr_t)data;
            ring_list_remove(w, item);
            uncap(item);
            finish(item, error);
        }
    }

    /* From here the eventfd is drained by plain non-blocking reads. If the ring's read of it is
     * still pending in the kernel, kick it so it completes; until its CQE shows up it may swallow a
     * submitter's wake-up, so the waits below are bounded while it is outstanding. */
    int fl = fcntl(w->wake_fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(w->wake_fd, F_SETFL, fl | O_NONBLOCK);
    if (w->wake_armed)
        signal_eventfd(w->wake_fd);

    int64_t deadline = monotonic_seconds() + DEGRADED_GRACE_SECONDS;
    for (;;) {
        reap(w);
        fail_queued(w, error);
        if (w->items_in_ring > 0 && monotonic_seconds() >= deadline) {
            /* The kernel still holds these; fail them rather than hang their callers. Their late
             * CQEs (if any) are ignored from now on. */
            while (w->in_ring != NULL) {
                struct cairn_io_work *item = w->in_ring;
                ring_list_remove(w, item);
                uncap(item);
                finish(item, error);
            }
            w->abandoned = true;
        }
        if (atomic_load_explicit(&w->stop, memory_order_acquire) && w->items_in_ring == 0)
            break;
        struct pollfd pfd = {.fd = w->wake_fd, .events = POLLIN};
        (void)poll(&pfd, 1, (w->items_in_ring > 0 || w->wake_armed) ? 10 : -1);
        uint64_t drained;
        (void)read(w->wake_fd, &drained, sizeof drained);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The thread.
 * ------------------------------------------------------------------------------------------- */
static void *worker_main(void *arg)
{
    struct ring_worker *w = arg;

    /* Created with every signal blocked already; this keeps it so if that ever changes. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_setname_np(pthread_self(), WORKER_NAME);
    if (w->ioprio != 0) {
        /* who = 0: this thread (and the io-wq threads it spawns, which share its io_context). This
         * is what lowers syncs; writes carry it in their SQEs as well. Failure is not fatal. */
        (void)syscall(SYS_ioprio_set, CAIRN_IOPRIO_WHO_PROCESS, 0, (int)w->ioprio);
    }

    unsigned busy = 0;
    while (w->fatal == 0) {
        if (!w->wake_armed && w->inflight < w->cap)
            arm_wake(w);
        take_submissions(w);
        while (w->fifo_head != NULL && w->inflight < w->cap)
            prepare(w, fifo_pop(w));

        if (atomic_load_explicit(&w->stop, memory_order_acquire) && w->fifo_head == NULL &&
            w->items_in_ring == 0 && atomic_load_explicit(&w->head, memory_order_acquire) == NULL)
            break;

        int injected = atomic_exchange(&g_inject_fatal, 0);
        int ret = injected != 0 ? -injected : io_uring_submit_and_wait(&w->ring, 1);
        if (ret < 0 && ret != -EINTR && ret != -ETIME) {
            if ((ret == -EAGAIN || ret == -EBUSY) && ++busy < BUSY_RETRY_LIMIT) {
                /* Kernel short of memory, or a CQ backlog: let completions drain, then retry. */
                struct timespec pause = {.tv_sec = 0, .tv_nsec = BUSY_SLEEP_NS};
                nanosleep(&pause, NULL);
            } else {
                w->fatal = -ret;
                break;
            }
        } else {
            busy = 0;
        }
        reap(w);
    }

    if (w->fatal != 0)
        run_degraded(w);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Interface to io_writer.c.
 * ------------------------------------------------------------------------------------------- */
int cairn_uring_start(unsigned entries, int low_priority)
{
    struct ring_worker *w = &g_worker;
    if (entries < 2)
        entries = 2; /* one slot for the eventfd read, at least one for work */

    int wake_fd = eventfd(0, EFD_CLOEXEC);
    if (wake_fd < 0)
        return errno;
    int ret = io_uring_queue_init(entries, &w->ring, 0);
    if (ret < 0) {
        close(wake_fd);
        return -ret;
    }

    w->wake_fd = wake_fd;
    w->cap = w->ring.sq.ring_entries;
    if (w->cap > w->ring.cq.ring_entries)
        w->cap = w->ring.cq.ring_entries;
    w->inflight = 0;
    w->wake_armed = false;
    w->abandoned = false;
    w->fatal = 0;
    w->ioprio = low_priority ? (uint16_t)CAIRN_IOPRIO_VALUE(CAIRN_IOPRIO_CLASS_BE, 7) : 0;
    w->fifo_head = w->fifo_tail = NULL;
    w->in_ring = NULL;
    w->items_in_ring = 0;
    atomic_store(&w->stop, false);
    atomic_store(&w->head, NULL);

    pthread_attr_t attr;
    int error = pthread_attr_init(&attr);
    if (error == 0) {
        (void)pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
        /* Block every signal around the create so the thread never runs with them unblocked. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        error = pthread_create(&w->thread, &attr, worker_main, w);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (error == 0) /* named here too, so it is named by the time the writer reports started */
            (void)pthread_setname_np(w->thread, WORKER_NAME);
        pthread_attr_destroy(&attr);
    }
    if (error != 0) {
        io_uring_queue_exit(&w->ring);
        close(wake_fd);
        return error;
    }
    w->running = 1;
    return 0;
}

void cairn_uring_stop(void)
{
    struct ring_worker *w = &g_worker;
    if (!w->running)
        return;
    atomic_store_explicit(&w->stop, true, memory_order_release);
    signal_eventfd(w->wake_fd);
    pthread_join(w->thread, NULL);
    /* Cancels the eventfd read still in the ring (its buffer is static, so a late write is harmless). */
    io_uring_queue_exit(&w->ring);
    close(w->wake_fd);
    w->wake_fd = -1;
    w->running = 0;
}

void cairn_uring_push(struct cairn_io_work *newest, struct cairn_io_work *oldest)
{
    struct ring_worker *w = &g_worker;
    struct cairn_io_work *head = atomic_load_explicit(&w->head, memory_order_relaxed);
    do {
        oldest->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&w->head, &head, newest, memory_order_release,
                                                    memory_order_relaxed));
    signal_eventfd(w->wake_fd);
}

void cairn_uring_forget_after_fork(void)
{
    struct ring_worker *w = &g_worker;
    if (!w->running)
        return;
    /* The child's copies only: unmapping and closing them leaves the parent's ring alone. */
    io_uring_queue_exit(&w->ring);
    close(w->wake_fd);
    w->wake_fd = -1;
    w->running = 0;
    atomic_store(&w->head, NULL);
}

void cairn_uring_test_inject_fatal_error(int32_t error)
{
    atomic_store(&g_inject_fatal, error);
}
