/* rt_init.c — the hand-written wrappers (MPI_Init, MPI_Init_thread,
 * MPI_Finalize, MPI_Abort, MPI_Pcontrol), activation at the first MPI call,
 * the collective MPI-IO write at finalize, and the writes at exit and abort.
 * Also the load-time checks: one active instance, the right MPI library. */
#include "rt_mpi.h"
#include "rt_fpwalk.h"
#include "scalana/run_info.h"

#include <dlfcn.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SCALANA_MPI_NAME
#error "SCALANA_MPI_NAME (openmpi or mpich) must be defined by the build"
#endif

#define RT_OP_INIT 1u
#define RT_OP_INIT_THREAD 2u
#define RT_OP_FINALIZE 3u
#define RT_OP_ABORT 4u
#define RT_OP_PCONTROL 5u

/* ---- load time --------------------------------------------------------------- */
static void rt_child_after_fork(void)
{
    /* POSIX timers are not inherited; the child stays inert until exec. */
    rt_g.sampling = 0;
    if (rt_g.state == RT_ON)
        rt_g.state = RT_CHILD;
}

static void rt_before_fork(void)
{
    if (rt_g.state == RT_ON)
        rt_collectors_flush();
}

/* Loaded into a program of the other MPI library: handles have another
 * width (Open MPI pointers, MPICH integers), so even passing calls through is
 * unsafe.  When the runtime came in through LD_PRELOAD, restart the program
 * (same pid, before any of its code ran) without it; otherwise stay inert. */
static void rt_refuse_reexec(char **argv, char **envp)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre || !argv || !envp || getenv("SCALANA_REFUSED"))
        return;
    char me[64];
    snprintf(me, sizeof me, "libscalana-%s.so", SCALANA_MPI_NAME);
    size_t n = 0;
    while (envp[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    char *newpre = malloc(strlen(pre) + 16);
    if (!env || !newpre)
        return;
    /* LD_PRELOAD minus our entries (separated by ':' or ' '). */
    char *copy = strdup(pre), *save = NULL;
    newpre[0] = '\0';
    strcat(newpre, "LD_PRELOAD=");
    int kept = 0;
    for (char *tok = copy ? strtok_r(copy, ": ", &save) : NULL; tok; tok = strtok_r(NULL, ": ", &save)) {
        const char *b = strrchr(tok, '/');
        if (strcmp(b ? b + 1 : tok, me) == 0)
            continue;
        if (kept++)
            strcat(newpre, ":");
        strcat(newpre, tok);
    }
    free(copy);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(envp[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = envp[i];
    if (kept)
        env[k++] = newpre;
    env[k++] = "SCALANA_REFUSED=1";
    env[k] = NULL;
    execve("/proc/self/exe", argv, env);
    free(env); /* exec failed: stay inert */
    free(newpre);
}

__attribute__((constructor)) static void rt_load(int argc, char **argv, char **envp)
{
    (void)argc;
    rt_ticks_init();
    rt_modules_find_self();
    /* A program linked with the runtime and also preloaded with another copy:
     * only the copy whose symbols the program binds to is active. */
    void *first = dlsym(RTLD_DEFAULT, "scalana_rt_collector_api_version");
    extern uint32_t scalana_rt_collector_api_version(void);
    if (first && first != (void *)&scalana_rt_collector_api_version) {
        rt_g.state = RT_REFUSED;
        return;
    }
    const char *other = strcmp(SCALANA_MPI_NAME, "openmpi") == 0 ? "MPIR_Err_create_code" : "ompi_mpi_comm_world";
    if (dlsym(RTLD_DEFAULT, other)) {
        rt_g.state = RT_REFUSED;
        rt_log("libscalana-%s.so is loaded into a program that uses %s: measuring nothing "
               "(use libscalana-%s.so; scalana-run picks the right one)",
               SCALANA_MPI_NAME, strcmp(SCALANA_MPI_NAME, "openmpi") == 0 ? "MPICH" : "Open MPI",
               strcmp(SCALANA_MPI_NAME, "openmpi") == 0 ? "mpich" : "openmpi");
        rt_refuse_reexec(argv, envp);
        return;
    }
    pthread_atfork(rt_before_fork, NULL, rt_child_after_fork);
    rt_thread_exit_hook = rt_call_thread_exit;
}

/* ---- activation ----------------------------------------------------------------- */
/* Usable cores of this host: the CPUs in the UNION of the affinity masks of
 * the host's ranks (node: their shared-memory communicator, or
 * MPI_COMM_NULL for this rank alone), capped at the host's online CPUs.  One
 * rank's own mask is not enough: Open MPI binds each rank to one core at
 * np <= 2, so two ranks on two cores would look oversubscribed.
 * Collective over node. */
static uint32_t rt_host_usable_cores(MPI_Comm node)
{
    int nw = 0;
    unsigned long *mask = rt_affinity_mask(&nw);
    if (node != MPI_COMM_NULL) {
        /* Masks may differ in width between ranks: agree on the widest. */
        int maxw = mask ? nw : 0;
        if (PMPI_Allreduce(MPI_IN_PLACE, &maxw, 1, MPI_INT, MPI_MAX, node) == MPI_SUCCESS && maxw > 0) {
            unsigned long *u = calloc((size_t)maxw, sizeof *u);
            if (u && mask)
                memcpy(u, mask, (size_t)nw * sizeof *u);
            /* The union only when every member has its buffer (the
             * reduction is collective); otherwise each keeps its own. */
            int ok = u != NULL;
            int all_ok = 0;
            PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node);
            if (all_ok) {
                PMPI_Allreduce(MPI_IN_PLACE, u, maxw, MPI_UNSIGNED_LONG, MPI_BOR, node);
                free(mask);
                mask = u;
                nw = maxw;
            } else {
                free(u);
            }
        }
    }
    uint32_t n = mask ? rt_usable_cores_of_mask(mask, nw) : 1;
    free(mask);
    return n;
}


static int rt_write_run_json_present(const char *written_by);
static void rt_at_exit(void);
static volatile int rt_activate_spin;

/* After a step every rank performs with rt_fail_quiet set (failures recorded
 * since rt_errors[first_new]): only the lowest world rank with a new failure
 * prints its lines, so a failure prints once per run, not once per rank.
 * Collective over rt_tool_comm; without it each rank prints its own.
 * Returns whether any rank failed. */
static int rt_fail_once(unsigned first_new)
{
    int size = (int)rt_g.world_size, rank = (int)rt_g.world_rank;
    int failed = rt_error_count > first_new;
    int first = failed ? rank : size;
    if (rt_tool_comm != MPI_COMM_NULL)
        PMPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, rt_tool_comm);
    if (failed && first == rank)
        for (unsigned i = first_new; i < rt_error_count; i++)
            rt_log("%s disabled: %s", rt_errors[i].part, rt_errors[i].message);
    return first < size;
}

static uint64_t rt_init_t0, rt_init_rt0;

void rt_activate(int thread_level)
{
    rt_spin_lock(&rt_activate_spin);
    if (rt_g.state != RT_INERT) {
        rt_spin_unlock(&rt_activate_spin);
        return;
    }
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++;
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    rt_g.world_rank = (uint32_t)rank;
    rt_g.world_size = (uint32_t)size;
    rt_options_read();
    rt_iv_init();
    rt_shadow_check();
    rt_g.mpi_library = SCALANA_MPI_NAME;
    rt_g.thread_level = thread_level;
    rt_g.mt = thread_level == MPI_THREAD_MULTIPLE;
    /* The run starts at the beginning of MPI_Init (when we saw it). */
    rt_g.start_ns = rt_init_t0 ? rt_init_t0 : rt_now_ns();
    rt_g.start_realtime_ns = rt_init_rt0 ? rt_init_rt0 : rt_realtime_ns();
    if (gethostname(rt_g.hostname, sizeof rt_g.hostname - 1) != 0)
        snprintf(rt_g.hostname, sizeof rt_g.hostname, "unknown");
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &rt_tool_comm) != MPI_SUCCESS)
        rt_tool_comm = MPI_COMM_NULL;
    rt_g.ranks_on_host = 1;
    MPI_Comm node = MPI_COMM_NULL;
    if (rt_tool_comm != MPI_COMM_NULL &&
        PMPI_Comm_split_type(rt_tool_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        node = MPI_COMM_NULL;
    if (node != MPI_COMM_NULL) {
        int n = 1;
        PMPI_Comm_size(node, &n);
        rt_g.ranks_on_host = (uint32_t)n;
    }
    rt_g.usable_cores = rt_host_usable_cores(node);
    if (node != MPI_COMM_NULL)
        PMPI_Comm_free(&node);
    rt_comm_init_world();
    rt_rundir_name(rt_g.world_size);
    int prepared = rank == 0 && rt_rundir_prepare() == 0;
    __atomic_store_n(&rt_g.state, RT_ON, __ATOMIC_SEQ_CST);
    if (t)
        t->depth--;
    rt_spin_unlock(&rt_activate_spin);
    unsigned failures = rt_error_count;
    rt_fail_quiet = 1; /* a timer that fails on one rank fails on all: one line */
    rt_sampler_start();
    rt_fail_quiet = 0;
    rt_fail_once(failures);
    /* A preliminary run.json (this host only, no files listed, written_by
     * "running"): a run killed before it can write keeps a readable
     * directory; finalize, exit and abort rewrite it (temporary + rename). */
    if (prepared) {
        rt_keep_exe_begin(); /* before run.json: a hard link is named in it at once */
        /* Not even run.json can be written (a full disk): the writer is off
         * from the start, so the run says so once and never leaves a partial file. */
        if (rt_write_run_json_present("running") != 0) prepared = 0;
    }
    /* Every rank learns whether the directory is usable (rank 0 printed the
     * one line otherwise); no rank leaves MPI_Init before run.json exists. */
    int off = rank == 0 ? !prepared : 0;
    if (rt_tool_comm != MPI_COMM_NULL) {
        PMPI_Bcast(&off, 1, MPI_INT, 0, rt_tool_comm);
        /* rank 0 may have chosen another name (the one asked for is in use) */
        if (!off)
            PMPI_Bcast(rt_g.run_dir, (int)sizeof rt_g.run_dir, MPI_CHAR, 0, rt_tool_comm);
    }
    if (off) {
        rt_g.writer_off = 1;
        rt_fail_record("writer", "the run directory is not usable (see world rank 0)");
    }
    /* The activating thread's first computation interval starts now, not at its
     * registration before MPI_Init (C MPI_Init then marks it as following MPI_Init). */
    if (t)
        rt_iv_thread_start(t, 1);
    atexit(rt_at_exit);
}

/* Wrappers reach here when the runtime is not on: activate lazily when MPI
 * was initialised behind our back (e.g. by a Fortran binding). */
int rt_wrap_slow(void)
{
    if (rt_g.state != RT_INERT)
        return 0;
    int flag = 0, fin = 0;
    if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag)
        return 0;
    if (PMPI_Finalized(&fin) == MPI_SUCCESS && fin)
        return 0;
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    rt_activate(level);
    struct rt_thread *t = rt_self;
    return rt_g.state == RT_ON && (!t || t->depth == 0);
}

/* Records a hand-written call in its calling context.  Its place among the
 * computation intervals: MPI_Init opens the thread's first one (after it),
 * MPI_Finalize and MPI_Abort close the last one (before them), MPI_Pcontrol
 * closes one and opens the next. */
static void rt_record_simple_flags(uint32_t op, uint64_t dt, uint64_t comm_id, uint32_t pflags);
static void rt_record_simple(uint32_t op, uint64_t dt, uint64_t comm_id)
{
    rt_record_simple_flags(op, dt, comm_id, 0);
}

void rt_init_begin(void)
{
    rt_init_t0 = rt_now_ns();
    rt_init_rt0 = rt_realtime_ns();
}

void rt_init_record(uint32_t op, uint64_t dt, uint32_t pflags)
{
    if (rt_g.state == RT_ON)
        rt_record_simple_flags(op, dt, 0, pflags);
}

static void rt_record_simple_flags(uint32_t op, uint64_t dt, uint64_t comm_id, uint32_t pflags)
{
    uint64_t iv_now = rt_ticks();
    struct rt_thread *t = rt_thread_get();
    if (!t)
        return;
    t->in_rt = 1;
    uint64_t iv_sig = t->cpu_signals;
    uint64_t iv_cpu = t->iv.cpu0 != UINT64_MAX ? rt_thread_cpu_ns() : 0;
    void *frames[RT_MAX_DEPTH];
    int truncated = 0;
    int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
    uint32_t node;
    uint32_t ctx = rt_ctx_get(t, frames, n, truncated, op, comm_id, pflags, &node);
    rt_ctx_add(ctx, dt, 0, 0);
    int init = op == RT_OP_INIT || op == RT_OP_INIT_THREAD;
    if (!init && (t->depth == 0 || op == RT_OP_ABORT)) { /* MPI_Abort raised the depth */
        if (ctx != UINT32_MAX)
            rt_iv_end(t, ctx, iv_now, iv_sig, iv_cpu);
        else
            rt_iv_drop(t);
    }
    if (init || (op == RT_OP_PCONTROL && t->depth == 0))
        rt_iv_begin(t, ctx);
    t->in_rt = 0;
}

RT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    /* From inside our Fortran MPI_INIT (MPICH's binding calls the C entry):
     * that wrapper times and records it. */
    if (rt_g.state != RT_INERT || (rt_self && rt_self->depth > 0))
        return PMPI_Init(argc, argv);
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++; /* threads the library starts now are not the application's */
    uint64_t t0 = rt_ticks();
    rt_init_t0 = rt_now_ns();
    rt_init_rt0 = rt_realtime_ns();
    int rc = PMPI_Init(argc, argv);
    uint64_t dt = rt_ticks() - t0;
    if (t)
        t->depth--;
    if (rc == MPI_SUCCESS) {
        rt_activate(MPI_THREAD_SINGLE);
        if (rt_g.state == RT_ON)
            rt_record_simple(RT_OP_INIT, dt, 0);
    }
    return rc;
}

RT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (rt_g.state != RT_INERT || (rt_self && rt_self->depth > 0))
        return PMPI_Init_thread(argc, argv, required, provided);
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++;
    uint64_t t0 = rt_ticks();
    rt_init_t0 = rt_now_ns();
    rt_init_rt0 = rt_realtime_ns();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    uint64_t dt = rt_ticks() - t0;
    if (t)
        t->depth--;
    if (rc == MPI_SUCCESS) {
        rt_activate(provided ? *provided : required);
        if (rt_g.state == RT_ON)
            rt_record_simple(RT_OP_INIT_THREAD, dt, 0);
    }
    return rc;
}

/* ---- writing ------------------------------------------------------------------------- */
struct rt_host_entry { char name[64]; uint32_t cores; uint32_t pad; };

static int rt_cmp_host(const void *a, const void *b)
{
    return strcmp(((const struct rt_host_entry *)a)->name, ((const struct rt_host_entry *)b)->name);
}

/* run.json on rank 0 with the host table from all ranks (hosts may be NULL).
 * Returns 0 when written. */
static int rt_write_run_json_hosts(const struct rt_host_entry *hosts, uint32_t n, const char *written_by,
                                    char **files, uint32_t nfiles)
{
    struct scalana_run_info info;
    rt_run_info_fill(&info, written_by);
    static char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (PMPI_Get_library_version(version, &len) == MPI_SUCCESS) {
        char *nl = strchr(version, '\n');
        if (nl)
            *nl = '\0';
    }
    info.mpi_version = version;
    struct scalana_run_host *hv = NULL;
    uint32_t nh = 0;
    struct rt_host_entry *sorted = NULL;
    uint32_t *order = NULL;
    if (hosts && n) {
        sorted = malloc(n * sizeof *sorted);
        hv = calloc(n, sizeof *hv);
        order = malloc(n * sizeof *order);
        if (sorted && hv && order) {
            memcpy(sorted, hosts, n * sizeof *sorted);
            qsort(sorted, n, sizeof *sorted, rt_cmp_host);
            for (uint32_t i = 0; i < n; i++) {
                if (nh == 0 || strcmp(hv[nh - 1].name, sorted[i].name) != 0) {
                    hv[nh].name = sorted[i].name;
                    hv[nh].ranks = calloc(n, sizeof *hv[nh].ranks);
                    nh++;
                }
                /* Every rank of a host carries the host's union; take the
                 * largest should one host name span several shared-memory
                 * domains. */
                if (sorted[i].cores > hv[nh - 1].usable_cores)
                    hv[nh - 1].usable_cores = sorted[i].cores;
            }
            for (uint32_t r = 0; r < n; r++)
                for (uint32_t h = 0; h < nh; h++)
                    if (strcmp(hv[h].name, hosts[r].name) == 0) {
                        if (hv[h].ranks)
                            hv[h].ranks[hv[h].rank_count++] = r;
                        break;
                    }
        }
    } else {
        hv = calloc(1, sizeof *hv);
        if (hv) {
            hv[0].name = rt_g.hostname;
            hv[0].usable_cores = rt_g.usable_cores;
            hv[0].ranks = calloc(1, sizeof *hv[0].ranks);
            if (hv[0].ranks)
                hv[0].rank_count = 1;
            nh = 1;
        }
    }
    info.hosts = hv;
    info.host_count = nh;
    for (uint32_t h = 0; h < nh; h++)
        info.usable_cores += hv[h].usable_cores;
    info.profile_files = files;
    info.profile_file_count = nfiles;
    int rc = rt_write_run_json(&info);
    for (uint32_t h = 0; h < nh; h++)
        free(hv[h].ranks);
    free(hv);
    free(sorted);
    free(order);
    free(info.argv ? info.argv[0] : NULL);
    free(info.argv);
    return rc;
}

/* Names of the profile files now in the run directory (rank 0 at exit/abort). */
static uint32_t rt_list_profiles(char ***out)
{
    DIR *d = opendir(rt_g.run_dir);
    *out = NULL;
    if (!d)
        return 0;
    uint32_t n = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "profile-", 8) != 0 || l < 5 || strcmp(e->d_name + l - 5, SCALANA_PROFILE_SUFFIX) != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, cap * sizeof *nv);
            if (!nv)
                break;
            v = nv;
        }
        v[n++] = strdup(e->d_name);
    }
    closedir(d);
    *out = v;
    return n;
}

/* Returns 0 when run.json was written. */
static int rt_write_run_json_present(const char *written_by)
{
    char **files;
    uint32_t n = rt_list_profiles(&files);
    int rc = rt_write_run_json_hosts(NULL, 0, written_by, files, n);
    for (uint32_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

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
static void rt_at_exit(void)
{
    if (rt_g.state == RT_ON)
        rt_term_hold_begin();
}

/* This rank's own profile file, then (rank 0) run.json listing the files
 * present; run.json exists since activation ("running").  Never waits for
 * other ranks: a process that exits leaves as soon as it would without the
 * runtime (after its own write), so the launcher sees the same exit status
 * and stops the same ranks at the same time.
 * Returns 0 when the profile was written. */
static int rt_write_alone(uint32_t flags, const char *written_by)
{
    rt_term_hold_begin();
    rt_collectors_flush();
    rt_sampler_stop();
    int rc = rt_write_single(flags);
    if (rt_g.world_rank == 0)
        rt_write_run_json_present(written_by);
    rt_term_hold_end();
    return rc;
}

/* Writes n bytes at off (retrying short writes).  Returns 0 or -1 (errno). */
static int rt_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* The collective write: every rank's section in one file, at offsets from an
 * exclusive scan of the section sizes; rank 0 writes the header and index
 * from the gathered sizes and CRCs (a constant-size gather per rank).  Plain
 * POSIX writes of disjoint ranges, not MPI-IO: no shared file pointer (Open
 * MPI's formats the path into a fixed buffer and aborts on long paths), no
 * messages of the MPI library's on the application's stderr.  Atomic: into a
 * temporary name in our own run directory, renamed by rank 0 once every rank
 * wrote; on any failure the temporary is removed (complete or absent).
 * Returns 0, or -1 on every rank (nothing printed: the caller falls back). */
static int rt_write_collective(void)
{
    MPI_Comm comm = rt_tool_comm;
    int rank = (int)rt_g.world_rank, size = (int)rt_g.world_size;
    unsigned char *sec = NULL;
    size_t n = 0;
    int ok = rt_profile_encode(PRF_RANK_FINALIZED, &sec, &n) == 0;
    uint64_t mine[2] = {ok ? (uint64_t)n : 0, ok ? prf_crc32(sec, n) : 0};
    uint64_t *all = rank == 0 ? malloc((size_t)size * 2 * sizeof *all) : NULL;
    struct rt_host_entry me, *hosts = rank == 0 ? calloc((size_t)size, sizeof *hosts) : NULL;
    memset(&me, 0, sizeof me);
    snprintf(me.name, sizeof me.name, "%s", rt_g.hostname);
    me.cores = rt_g.usable_cores;
    PMPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, comm);
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, hosts, (int)sizeof me, MPI_BYTE, 0, comm);
    uint64_t off = 0;
    PMPI_Exscan(&mine[0], &off, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0)
        off = 0;
    uint64_t prefix = prf_file_prefix_bytes((uint32_t)size);
    char name[64], path[4200], tmp[4200];
    snprintf(name, sizeof name, "profile-%06u-%06u%s", 0u, (unsigned)(size - 1), SCALANA_PROFILE_SUFFIX);
    snprintf(path, sizeof path, "%s/%s", rt_g.run_dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", rt_g.run_dir, name);
    /* Rank 0 creates the temporary; the others open it after. */
    int fd = rank == 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    int err = rank == 0 && fd < 0, any_err = err;
    PMPI_Allreduce(&err, &any_err, 1, MPI_INT, MPI_MAX, comm);
    if (!any_err && rank != 0) {
        fd = open(tmp, O_WRONLY | O_CLOEXEC);
        err = fd < 0;
    }
    err |= !ok;
    if (!err && rank == 0) {
        uint64_t *bytes = malloc((size_t)size * sizeof *bytes);
        uint32_t *crc = malloc((size_t)size * sizeof *crc);
        void *buf = malloc(prefix);
        if (bytes && crc && buf && all) {
            for (int i = 0; i < size; i++) {
                bytes[i] = all[2 * i];
                crc[i] = (uint32_t)all[2 * i + 1];
            }
            prf_file_prefix_build(buf, 0, (uint32_t)size, (uint32_t)size, rt_exe_hash(), bytes, crc, NULL);
            err |= rt_pwrite_all(fd, buf, prefix, 0) != 0;
        } else
            err = 1;
        free(bytes); free(crc); free(buf);
    }
    if (!err && !any_err)
        err |= rt_pwrite_all(fd, sec, n, prefix + off) != 0;
    if (fd >= 0 && close(fd) != 0) /* a network file system reports a full disk here */
        err = 1;
    PMPI_Allreduce(&err, &any_err, 1, MPI_INT, MPI_MAX, comm);
    if (rank == 0) {
        if (!any_err && rename(tmp, path) != 0)
            any_err = 1;
        if (any_err)
            unlink(tmp);
    }
    PMPI_Bcast(&any_err, 1, MPI_INT, 0, comm);
    if (!any_err && rank == 0) {
        char *files[1] = {name};
        rt_write_run_json_hosts(hosts, (uint32_t)size, "finalize", files, 1);
    }
    free(all); free(hosts); free(sec);
    return any_err ? -1 : 0;
}

int rt_finalize_prepare(void)
{
    if (rt_g.state != RT_ON)
        return 0;
    struct rt_thread *t = rt_thread_get(); /* any thread may finalize */
    if (t && t->depth)
        return 0;
    rt_record_simple(RT_OP_FINALIZE, 0, 0);
    rt_phase_close_all("MPI_Finalize");
    if (t)
        t->depth++;
    rt_collectors_flush();
    rt_sampler_stop();
    rt_callpath_debug();
    if (rt_g.writer_off) {
        /* the run directory was refused at activation (one line then) */
    } else if (rt_tool_comm == MPI_COMM_NULL || rt_write_collective() != 0) {
        /* Each rank writes its own file; one line for the run: the first
         * rank that failed, or rank 0 when all succeeded. */
        unsigned failures = rt_error_count;
        rt_fail_quiet = 1;
        rt_write_alone(PRF_RANK_FINALIZED, "finalize");
        rt_fail_quiet = 0;
        if (!rt_fail_once(failures) && rt_g.world_rank == 0)
            rt_log("collective profile write failed: each rank wrote its own file");
    }
    rt_g.state = RT_WRITTEN;
    if (rt_tool_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&rt_tool_comm);
    return 1;
}

void rt_finalize_done(void)
{
    if (rt_self && rt_self->depth > 0)
        rt_self->depth--;
}

RT_EXPORT int MPI_Finalize(void)
{
    if (!rt_finalize_prepare())
        return PMPI_Finalize();
    int rc = PMPI_Finalize();
    rt_finalize_done();
    return rc;
}

void rt_abort_prepare(void)
{
    if (rt_g.state != RT_ON)
        return;
    rt_g.state = RT_WRITTEN;
    struct rt_thread *t = rt_self;
    if (t)
        t->depth++;
    rt_phase_close_all("MPI_Abort");
    rt_record_simple(RT_OP_ABORT, 0, 0);
    rt_write_alone(PRF_RANK_ABORTED, "abort");
}

RT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    rt_abort_prepare();
    return PMPI_Abort(comm, errorcode);
}

void rt_pcontrol(int level)
{
    static char open_name[32];
    if (open_name[0])
        rt_phase_event(open_name, 0);
    snprintf(open_name, sizeof open_name, "MPI_Pcontrol(%d)", level);
    rt_phase_event(open_name, 1);
    rt_record_simple(RT_OP_PCONTROL, 0, 0);
}

RT_EXPORT int MPI_Pcontrol(const int level, ...)
{
    if (rt_wrap_enabled())
        rt_pcontrol(level);
    return PMPI_Pcontrol(level);
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
