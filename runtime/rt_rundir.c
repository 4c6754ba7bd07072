/* rt_rundir.c — the run directory: its name (SCALANA_OUTPUT or
 * scalana-<exe>-<p>p), moving an existing one aside, the one-rank profile
 * written at exit or abort, and run.json. */
#include "rt_core.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

unsigned long *rt_affinity_mask(int *nwords)
{
    /* The kernel's mask may be wider than cpu_set_t (more than 1024 CPUs):
     * grow until sched_getaffinity accepts the size. */
    for (size_t ncpu = 1024; ncpu <= (1u << 20); ncpu *= 2) {
        size_t bytes = CPU_ALLOC_SIZE(ncpu);
        unsigned long *m = calloc(1, bytes);
        if (!m)
            break;
        if (sched_getaffinity(0, bytes, (cpu_set_t *)(void *)m) == 0) {
            *nwords = (int)(bytes / sizeof *m);
            return m;
        }
        free(m);
        if (errno != EINVAL)
            break;
    }
    /* Unknown: every online CPU. */
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    size_t ncpu = on > 0 ? (size_t)on : 1;
    size_t words = (ncpu + 8 * sizeof(unsigned long) - 1) / (8 * sizeof(unsigned long));
    unsigned long *m = calloc(words, sizeof *m);
    if (!m) {
        *nwords = 0;
        return NULL;
    }
    for (size_t i = 0; i < ncpu; i++)
        m[i / (8 * sizeof *m)] |= 1ul << (i % (8 * sizeof *m));
    *nwords = (int)words;
    return m;
}

uint32_t rt_usable_cores_of_mask(const unsigned long *mask, int nwords)
{
    uint32_t n = 0;
    for (int i = 0; i < nwords; i++)
        n += (uint32_t)__builtin_popcountl(mask[i]);
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    if (on > 0 && n > (uint32_t)on)
        n = (uint32_t)on;
    return n ? n : 1;
}

int rt_rundir_name(uint32_t world_size)
{
    if (rt_opt.output) {
        snprintf(rt_g.run_dir, sizeof rt_g.run_dir, "%s", rt_opt.output);
        return 0;
    }
    char exe[4096];
    rt_exe_path(exe, sizeof exe);
    const char *b = strrchr(exe, '/');
    b = b ? b + 1 : exe;
    char cwd[3000];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    snprintf(rt_g.run_dir, sizeof rt_g.run_dir, "%.2999s/scalana-%.255s-%up", cwd, *b ? b : "app", world_size);
    return 0;
}

static int rt_mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* What an existing directory holds: 0 nothing, 1 a ScalAna run (run.json or
 * profile-*.sclp), 2 only other files, -1 unreadable. */
static int rt_dir_kind(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int kind = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        /* run.json, profile-*.sclp, also their temporaries of a killed write */
        if (strncmp(n, SCALANA_RUN_INFO_FILE, strlen(SCALANA_RUN_INFO_FILE)) == 0 ||
            (strncmp(n, "profile-", 8) == 0 && strstr(n, SCALANA_PROFILE_SUFFIX))) {
            kind = 1;
            break;
        }
        kind = 2;
    }
    closedir(d);
    return kind;
}

int rt_rundir_prepare(void)
{
    struct stat sb;
    if (stat(rt_g.run_dir, &sb) == 0) {
        /* Only a run directory is moved aside; the user's files are never touched. */
        int kind = S_ISDIR(sb.st_mode) ? rt_dir_kind(rt_g.run_dir) : 3;
        if (kind != 1) {
            if (kind == 0)
                goto create; /* an empty directory is used as is */
            rt_fail("writer", "%s %s: not touched, no profile written (set SCALANA_OUTPUT to a new path)",
                    rt_g.run_dir,
                    kind == 3    ? "exists and is not a directory"
                    : kind == 2  ? "exists and is not a ScalAna run directory (no run.json or profile-*.sclp)"
                                 : "exists and cannot be read");
            return -1;
        }
        char stamp[32], aside[4200];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(aside, sizeof aside, "%s.%s", rt_g.run_dir, stamp);
        for (int i = 1; stat(aside, &sb) == 0 && i < 100; i++)
            snprintf(aside, sizeof aside, "%s.%s-%d", rt_g.run_dir, stamp, i);
        if (rename(rt_g.run_dir, aside) != 0) {
            rt_fail("writer", "cannot move %s aside: %s", rt_g.run_dir, strerror(errno));
            return -1;
        }
        rt_log("%s existed: moved to %s", rt_g.run_dir, aside);
    }
create:
    if (rt_mkdir_p(rt_g.run_dir) != 0) {
        rt_fail("writer", "cannot create %s: %s", rt_g.run_dir, strerror(errno));
        return -1;
    }
    return 0;
}

int rt_rundir_ensure(void)
{
    if (rt_g.writer_off)
        return -1;
    if (rt_mkdir_p(rt_g.run_dir) != 0) {
        rt_fail("writer", "cannot create %s: %s", rt_g.run_dir, strerror(errno));
        return -1;
    }
    return 0;
}

uint64_t rt_exe_hash(void)
{
    char id[41];
    rt_build_id_of_self_exe(id, sizeof id);
    return id[0] ? psg_fnv1a64(id, strlen(id), PSG_FNV_SEED) : 0;
}

int rt_write_single(uint32_t flags)
{
    unsigned char *sec = NULL;
    size_t n = 0;
    if (rt_g.writer_off)
        return -1;
    if (rt_profile_encode(flags, &sec, &n) != 0) {
        rt_fail("writer", "cannot encode the profile (out of memory)");
        return -1;
    }
    if (rt_rundir_ensure() != 0) {
        free(sec);
        return -1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/profile-%06u-%06u%s", rt_g.run_dir, rt_g.world_rank, rt_g.world_rank,
             SCALANA_PROFILE_SUFFIX);
    const unsigned char *secs[1] = {sec};
    size_t sizes[1] = {n};
    int rc = prf_file_write(path, rt_g.world_rank, 1, rt_g.world_size, rt_exe_hash(), secs, sizes);
    if (rc != 0)
        rt_fail("writer", "cannot write %s: %s", path, strerror(errno));
    free(sec);
    return rc;
}

static char *rt_cmdline_argv(int *argc_out)
{
    /* /proc/self/cmdline: NUL-separated arguments. */
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) { free(buf); buf = NULL; break; }
            buf = b;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (!buf)
        return NULL;
    int argc = 0;
    for (size_t i = 0; i < n; i++)
        argc += buf[i] == '\0';
    *argc_out = argc;
    char *res = realloc(buf, n + 1);
    if (res)
        res[n] = '\0';
    return res ? res : buf;
}

void rt_run_info_fill(struct scalana_run_info *info, const char *written_by)
{
    static char exe[4096], build_id[41], version[256];
    memset(info, 0, sizeof *info);
    info->version = SCALANA_RUN_INFO_VERSION;
    int argc = 0;
    char *args = rt_cmdline_argv(&argc);
    if (args && argc > 0) {
        info->argv = calloc((size_t)argc + 1, sizeof *info->argv);
        if (info->argv) {
            char *p = args;
            for (int i = 0; i < argc; i++) {
                info->argv[i] = p;
                p += strlen(p) + 1;
            }
            info->argc = argc;
        }
    }
    info->launcher = getenv("SCALANA_LAUNCH_CMD");
    info->processes = rt_g.world_size;
    info->sampler = (char *)rt_sampler_name();
    info->sample_period_ns = strcmp(info->sampler, "none") == 0 ? 0 : rt_g.period_ns;
    info->start_realtime_ns = rt_g.start_realtime_ns;
    info->end_realtime_ns = rt_realtime_ns();
    info->mpi_library = (char *)rt_g.mpi_library;
    rt_exe_path(exe, sizeof exe);
    rt_build_id_of_self_exe(build_id, sizeof build_id);
    info->executable = exe;
    info->executable_deleted = rt_exe_deleted();
    info->warnings = (char **)rt_warnings(&info->warning_count);
    info->build_id = build_id;
    snprintf(version, sizeof version, "%s", SCALANA_VERSION_STRING);
    info->scalana_version = version;
    info->written_by = (char *)written_by;
}

int rt_write_run_json(struct scalana_run_info *info)
{
    char path[4200], tmp[4300];
    if (rt_g.writer_off)
        return -1;
    snprintf(path, sizeof path, "%s/%s", rt_g.run_dir, SCALANA_RUN_INFO_FILE);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rt_fail("writer", "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = scalana_run_info_write(f, info);
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0) {
        unlink(tmp);
        rt_fail("writer", "cannot write %s", path);
    }
    return rc;
}
