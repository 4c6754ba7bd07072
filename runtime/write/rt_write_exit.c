/* rt_write_exit.c — the profile writes that do not wait for other ranks:
 * at exit without MPI_Finalize (the library's destructor), at MPI_Abort, and
 * finalize's fallback when the collective write failed; and SIGTERM held
 * while such a write runs. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "sampling/rt_sampling.h"
#include "tables/rt_tables.h"
#include "rt_write.h"

#include <signal.h>
#include <string.h>

/* SIGTERM from the start of exit() (an atexit handler registered at
 * activation) until this rank's profile is written: Open MPI's launcher sends
 * SIGTERM (SIGKILL only later) to every rank once one exited without
 * MPI_Finalize.  Held only while its disposition is the default, then
 * delivered. */
static volatile sig_atomic_t rt_term_held;
static int rt_term_holding;
static struct sigaction rt_term_old;

static void rt_hold_term(int sig)
{
    rt_term_held = sig;
}

static void rt_term_hold_begin(void)
{
    if (rt_term_holding || rt_g.writer_off)
        return;
    struct sigaction hold;
    memset(&hold, 0, sizeof hold);
    hold.sa_handler = rt_hold_term;
    hold.sa_flags = SA_RESTART;
    sigemptyset(&hold.sa_mask);
    rt_term_holding = sigaction(SIGTERM, NULL, &rt_term_old) == 0 && !(rt_term_old.sa_flags & SA_SIGINFO) &&
                      rt_term_old.sa_handler == SIG_DFL && sigaction(SIGTERM, &hold, NULL) == 0;
}

static void rt_term_hold_end(void)
{
    if (!rt_term_holding)
        return;
    rt_term_holding = 0;
    sigaction(SIGTERM, &rt_term_old, NULL);
    if (rt_term_held)
        raise(SIGTERM);
}

/* First in exit() (registered after MPI_Init, so before the MPI library's
 * and the C++ runtime's exit handlers): hold SIGTERM until the destructor
 * (rt_unload) or a late MPI_Finalize has written. */
void rt_at_exit(void)
{
    if (rt_g.state == RT_ON)
        rt_term_hold_begin();
}

/* This rank's own profile file, then run.json listing the files present
 * (rank 0: all of it; the others: its file list, rt_runjson.c); run.json exists since activation ("running").  Never waits for
 * other ranks: a process that exits leaves as soon as it would without the
 * runtime (after its own write), so the launcher sees the same exit status
 * and stops the same ranks at the same time.
 * Returns 0 when the profile was written. */
int rt_write_alone(uint32_t flags, const char *written_by)
{
    rt_term_hold_begin();
    rt_collectors_flush();
    rt_sampler_stop();
    int rc = rt_write_single(flags);
    /* Every rank brings run.json's file list up to date (rank 0 rewrites all
     * of it): rank 0 may be gone, or have listed, before this file existed. */
    if (rc == 0 || rt_g.world_rank == 0)
        rt_write_run_json_present(written_by);
    if (!rt_fail_quiet) /* finalize's fallback flushes after its own line */
        rt_keep_warn_flush();
    rt_term_hold_end();
    return rc;
}

/* At exit without MPI_Finalize (also runs after C++ static destructors, which
 * may still call MPI_Finalize: then the state is no longer RT_ON). */
__attribute__((destructor)) static void rt_unload(void)
{
    if (rt_g.state != RT_ON) {
        rt_term_hold_end(); /* finalized after rt_at_exit */
        return;
    }
    rt_phase_close_all("exit");
    rt_g.state = RT_WRITTEN;
    struct rt_thread *t = rt_self;
    if (t)
        t->depth++;
    rt_write_alone(PRF_RANK_AT_EXIT, "exit");
}
