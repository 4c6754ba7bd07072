/* rt_altstack.c — alternate signal stacks for the sampler's handler.
 * The handler and libunwind need several KiB of stack; a thread started with
 * a small stack (16 KiB, mostly in use) has not got them.  Each thread the
 * application starts gets its own alternate stack (the handler is installed
 * with SA_ONSTACK); the unwinding starts from the interrupted context in the
 * signal's ucontext, so running on another stack changes no path. */
#include "rt_threads.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RT_ALTSTACK_BYTES (64u * 1024u)

static size_t rt_altstack_size(size_t *page)
{
    long pg = sysconf(_SC_PAGESIZE);
    *page = pg > 0 ? (size_t)pg : 4096;
    size_t want = RT_ALTSTACK_BYTES;
    if (want < (size_t)SIGSTKSZ) /* a sysconf value on newer glibc */
        want = (size_t)SIGSTKSZ;
    return want + *page; /* plus a guard page below */
}

/* Stacks of threads that ended, for the next ones: no mmap/munmap per thread
 * (an MPI library's memory hooks, e.g. UCX's, make those slow), memory
 * bounded by the most threads alive at once.  The first word links them. */
static void *rt_altstack_free;
static pthread_mutex_t rt_altstack_mutex = PTHREAD_MUTEX_INITIALIZER;

void *rt_altstack_begin(void)
{
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return NULL; /* the thread has one already (the application's) */
    size_t page, size = rt_altstack_size(&page);
    pthread_mutex_lock(&rt_altstack_mutex);
    char *m = rt_altstack_free;
    if (m)
        rt_altstack_free = *(void **)(m + page);
    pthread_mutex_unlock(&rt_altstack_mutex);
    if (!m) {
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        mprotect(m, page, PROT_NONE); /* an overflow faults instead of overwriting memory */
    }
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = m + page;
    ss.ss_size = size - page;
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(m, size);
        return NULL;
    }
    return m;
}

static void rt_altstack_release(char *m, size_t page)
{
    pthread_mutex_lock(&rt_altstack_mutex);
    *(void **)(m + page) = rt_altstack_free;
    rt_altstack_free = m;
    pthread_mutex_unlock(&rt_altstack_mutex);
}

void rt_altstack_end(void *mem)
{
    if (!mem)
        return;
    size_t page, size = rt_altstack_size(&page);
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)mem + page && !(cur.ss_flags & SS_DISABLE)) {
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        if (sigaltstack(&off, NULL) != 0)
            return; /* running on it (EPERM): leave it mapped */
    }
    (void)size;
    rt_altstack_release(mem, page);
}
