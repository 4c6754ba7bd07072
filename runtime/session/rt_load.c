/* rt_load.c — load-time checks of the runtime library: one active instance
 * (a program linked with the runtime and also preloaded with another copy),
 * the right MPI library (else stay inert, or restart the program without the
 * runtime), fork handlers, and the registration of the thread lifecycle
 * hooks (rt_thread.c runs them at each thread's start and exit). */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "tables/rt_tables.h"
#include "mpi/rt_mpi.h"
#include "write/rt_write.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SCALANA_MPI_NAME
#error "SCALANA_MPI_NAME (openmpi or mpich) must be defined by the build"
#endif

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
    rt_cmdline_save(argc, argv); /* before main can rewrite argv (run.json's command) */
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
    /* In the order they run: the sampler's timer stops before the thread's
     * last computation interval closes; buffers are freed last. */
    rt_thread_hooks_add(&rt_sampler_thread_hooks);
    rt_thread_hooks_add(&rt_iv_thread_hooks);
    rt_thread_hooks_add(&rt_scratch_thread_hooks);
    rt_thread_hooks_add(&rt_fortran_thread_hooks);
}
