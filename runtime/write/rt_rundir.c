/* rt_rundir.c — the run directory: its name (SCALANA_OUTPUT or
 * scalana-<exe>-<p>p, absolute at start-up), its ownership (one live process
 * per directory), an earlier run never touched under the default name (a
 * new <name>.N) and replaced where SCALANA_OUTPUT names it, the one-rank
 * profile written at exit or abort, and run.json. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "sampling/rt_rate.h"
#include "sampling/rt_sampling.h"
#include "rt_write.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "scalana/run_files.h"
#include "scalana/run_info.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

static int rt_name_too_long;

int rt_rundir_name(uint32_t world_size)
{
    /* Absolute from the start: the application may chdir() later. */
    char *cwd = getcwd(NULL, 0); /* malloc'ed: no length limit */
    const char *dir = cwd ? cwd : ".";
    size_t cap = sizeof rt_g.run_dir;
    int n;
    if (rt_opt.output && rt_opt.output[0] == '/') {
        n = snprintf(rt_g.run_dir, cap, "%s", rt_opt.output);
    } else if (rt_opt.output) {
        n = snprintf(rt_g.run_dir, cap, "%s/%s", dir, rt_opt.output);
    } else {
        char exe[4096];
        rt_exe_path(exe, sizeof exe);
        const char *b = strrchr(exe, '/');
        b = b ? b + 1 : exe;
        int k = snprintf(rt_g.run_dir, cap, "%s/", dir);
        n = k < 0 || (size_t)k >= cap ? -1 : k + scalana_run_dir_default_name(rt_g.run_dir + k, cap - (size_t)k, b, world_size);
    }
    free(cwd);
    /* room for "/profile-...sclp" and the temporaries' suffixes */
    rt_name_too_long = n < 0 || (size_t)n + 64 >= cap;
    return rt_name_too_long ? -1 : 0;
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

/* ---- ownership ----------------------------------------------------------------
 * A run directory belongs to the process that created its owner file
 * (O_EXCL) and holds a shared flock on it for its whole life: the lock goes
 * with the process, so "in use" needs no pid or host checks.  Looking at an
 * existing directory, claiming it and replacing an earlier run in it happen
 * under an exclusive flock of the directory itself, so two processes
 * starting at once (two jobs, or a singleton beside a job) never both own one
 * directory and never remove a live job's files. */
#define RT_OWNER_FILE ".scalana-owner"
static int rt_owner_fd = -1;

/* 0 claimed, 1 another process claimed it first, -1 error (errno). */
static int rt_claim(const char *dir)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, RT_OWNER_FILE);
    int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return errno == EEXIST ? 1 : -1;
    flock(fd, LOCK_SH);
    char line[160];
    int n = snprintf(line, sizeof line, "ScalAna run directory\npid %d\nhost %s\n", (int)getpid(), rt_g.hostname);
    if (n > 0 && write(fd, line, (size_t)n) < 0)
        n = 0; /* the lock, not the text, is what counts */
    if (rt_owner_fd >= 0)
        close(rt_owner_fd);
    rt_owner_fd = fd;
    return 0;
}

/* Whether a live process owns dir (holds its owner file's lock). */
static int rt_owner_alive(const char *dir)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, RT_OWNER_FILE);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int alive = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* drops the lock we may have taken */
    return alive;
}

/* Whether path starts with the n bytes of magic. */
static int rt_file_starts(const char *path, const char *magic, size_t n)
{
    char buf[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t k = read(fd, buf, n < sizeof buf ? n : sizeof buf);
    close(fd);
    return k == (ssize_t)n && memcmp(buf, magic, n) == 0;
}

/* Our run.json: its "format" member (written first) names the format. */
static int rt_is_our_run_json(const char *path)
{
    static const char head[] = "{\n  \"format\": \"scalana-run\"";
    return rt_file_starts(path, head, sizeof head - 1);
}

/* What an existing directory holds: 0 nothing, 1 ScalAna output (an owner
 * file, our run.json, or a file with the profile magic), 2 only other files
 * (a user's file merely named run.json included), -1 unreadable. */
static int rt_dir_kind(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int kind = 0;
    struct dirent *e;
    char p[4700];
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", path, n);
        if (strcmp(n, RT_OWNER_FILE) == 0 ||
            (strcmp(n, SCALANA_RUN_INFO_FILE) == 0 && rt_is_our_run_json(p)) ||
            (scalana_profile_file_match(n) &&
             rt_file_starts(p, SCALANA_PROFILE_MAGIC, SCALANA_PROFILE_MAGIC_LEN))) {
            kind = 1;
            break;
        }
        kind = 2;
    }
    closedir(d);
    return kind;
}

/* nftw callback: removes each file and (depth first) directory of exe/. */
static int rt_unlink_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Removes an earlier run's files from dir (its owner gone, dir locked):
 * the owner file, our run.json, profile files with the profile magic, our
 * temporaries and the kept executable (exe/); any other file stays.  The
 * name was given (SCALANA_OUTPUT): the user asked for this directory, and
 * what we wrote there before is ours to replace.  0, or -1 with one line. */
static int rt_replace_earlier(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        rt_fail("writer", "cannot read %s: %s", dir, strerror(errno));
        return -1;
    }
    char p[4700];
    int bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *n = e->d_name;
        snprintf(p, sizeof p, "%s/%s", dir, n);
        int ours = strcmp(n, RT_OWNER_FILE) == 0 ||
                   (strcmp(n, SCALANA_RUN_INFO_FILE) == 0 && rt_is_our_run_json(p)) ||
                   (scalana_profile_file_match(n) &&
                    rt_file_starts(p, SCALANA_PROFILE_MAGIC, SCALANA_PROFILE_MAGIC_LEN)) ||
                   scalana_profile_tmp_match(n) ||
                   scalana_run_info_tmp_match(n);
        if (ours && unlink(p) != 0 && errno != ENOENT)
            bad = errno;
        else if (strcmp(n, "exe") == 0 && nftw(p, rt_unlink_cb, 16, FTW_DEPTH | FTW_PHYS) != 0)
            bad = errno ? errno : EIO;
    }
    closedir(d);
    if (bad) {
        rt_fail("writer", "cannot replace the earlier run in %s: %s", dir, strerror(bad));
        return -1;
    }
    rt_info("%s held an earlier run: replaced", dir);
    return 0;
}

static int rt_taken_by_earlier; /* the name asked for held a finished run (default name) */

/* One try at name: 0 owned now, 1 taken by a live job (try another name),
 * 2 retry the same name (it changed under us), -1 refused (one line when
 * first: the name the user asked for). */
static int rt_try_dir(const char *name, int first)
{
    /* Created or not, it is claimed under its lock (below). */
    if (mkdir(name, 0777) != 0 && errno != EEXIST) {
        rt_fail("writer", "cannot create %s: %s", name, strerror(errno));
        return -1;
    }
    struct stat sb, fb;
    if (stat(name, &sb) != 0)
        return 2; /* moved away meanwhile */
    if (!S_ISDIR(sb.st_mode)) {
        if (first)
            rt_fail("writer", "%s exists and is not a directory: not touched, no profile written "
                    "(set SCALANA_OUTPUT to a new path)", name);
        return first ? -1 : 1;
    }
    int dfd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || flock(dfd, LOCK_EX) != 0) {
        if (dfd >= 0)
            close(dfd);
        rt_fail("writer", "%s exists and cannot be read: not touched, no profile written", name);
        return -1;
    }
    int rc;
    if (fstat(dfd, &fb) != 0 || stat(name, &sb) != 0 || fb.st_ino != sb.st_ino || fb.st_dev != sb.st_dev) {
        rc = 2; /* replaced while we waited for the lock */
    } else {
        int kind = rt_dir_kind(name);
        if (kind == 0) {
            int c = rt_claim(name); /* an empty directory is used as is */
            rc = c == 0 ? 0 : c == 1 ? 1 : -1;
        } else if (kind == 1) {
            if (rt_owner_alive(name)) {
                rc = 1;
            } else if (!rt_opt.output) {
                rc = 1; /* the default name: an earlier run is never touched, a new directory */
                rt_taken_by_earlier |= first;
            } else if (rt_replace_earlier(name) != 0) {
                rc = -1;
            } else {
                int c = rt_claim(name);
                rc = c == 0 ? 0 : c == 1 ? 1 : -1;
            }
        } else {
            if (first)
                rt_fail("writer", "%s %s: not touched, no profile written (set SCALANA_OUTPUT to a new path)", name,
                        kind == 2 ? "exists and is not a ScalAna run directory (no run.json or profile-*.sclp of ours)"
                                  : "exists and cannot be read");
            rc = first ? -1 : 1;
        }
    }
    flock(dfd, LOCK_UN);
    close(dfd);
    return rc;
}

int rt_rundir_prepare(void)
{
    char want[4080], name[4096];
    if (rt_name_too_long) {
        rt_fail("writer", "the run directory's path is longer than %zu characters: no profile written",
                sizeof rt_g.run_dir - 65);
        return -1;
    }
    snprintf(want, sizeof want, "%.4079s", rt_g.run_dir);
    /* The parents (never moved or claimed). */
    char *slash = strrchr(want, '/');
    if (slash && slash != want) {
        *slash = '\0';
        int bad = rt_mkdir_p(want) != 0;
        *slash = '/';
        if (bad) {
            rt_fail("writer", "cannot create %s: %s", want, strerror(errno));
            return -1;
        }
    }
    for (int k = 1, tries = 0; k < 1000 && tries < 4000; tries++) {
        if (k == 1)
            snprintf(name, sizeof name, "%s", want);
        else
            snprintf(name, sizeof name, "%s.%d", want, k);
        int rc = rt_try_dir(name, k == 1);
        if (rc < 0)
            return -1;
        if (rc == 1)
            k++;
        if (rc != 0)
            continue;
        if (k > 1) {
            snprintf(rt_g.run_dir, sizeof rt_g.run_dir, "%s", name);
            rt_log("%s %s: writing to %s", want,
                   rt_taken_by_earlier ? "holds an earlier run" : "is in use by a running job", name);
        }
        return 0;
    }
    rt_fail("writer", "no free run directory next to %s", want);
    return -1;
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
    char name[SCALANA_PROFILE_NAME_MAX], path[4200];
    scalana_profile_file_name(name, sizeof name, rt_g.world_rank, rt_g.world_rank, 0);
    snprintf(path, sizeof path, "%s/%s", rt_g.run_dir, name);
    const unsigned char *secs[1] = {sec};
    size_t sizes[1] = {n};
    int rc = prf_file_write(path, rt_g.world_rank, 1, rt_g.world_size, rt_exe_hash(), secs, sizes);
    if (rc != 0)
        rt_fail("writer", "cannot write %s: %s", path, strerror(errno));
    free(sec);
    return rc;
}

/* The command line as the program was started, copied at load time (before
 * main): a program may later overwrite its argv strings with a title
 * (setproctitle), which /proc/self/cmdline then shows. */
static char *rt_start_args;   /* NUL-separated */
static size_t rt_start_bytes;
static int rt_start_argc;

void rt_cmdline_save(int argc, char **argv)
{
    if (argc <= 0 || !argv || rt_start_args)
        return;
    size_t n = 0;
    for (int i = 0; i < argc; i++)
        n += argv[i] ? strlen(argv[i]) + 1 : 1;
    char *b = malloc(n + 1);
    if (!b)
        return;
    size_t k = 0;
    for (int i = 0; i < argc; i++) {
        size_t l = argv[i] ? strlen(argv[i]) : 0;
        memcpy(b + k, argv[i] ? argv[i] : "", l);
        k += l;
        b[k++] = '\0';
    }
    b[k] = '\0';
    rt_start_args = b;
    rt_start_bytes = n;
    rt_start_argc = argc;
}

static char *rt_cmdline_argv(int *argc_out)
{
    if (rt_start_args) {
        char *b = malloc(rt_start_bytes + 1);
        if (!b)
            return NULL;
        memcpy(b, rt_start_args, rt_start_bytes + 1);
        *argc_out = rt_start_argc;
        return b;
    }
    /* Not seen at load time: /proc/self/cmdline, NUL-separated arguments. */
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
    /* A title written over the arguments leaves the rest of their area
     * zeroed: no trailing empty strings. */
    while (n > 1 && buf[n - 1] == '\0' && buf[n - 2] == '\0')
        n--;
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
    rt_rate_run_info(info, strcmp(written_by, "running") != 0);
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
    /* the end of the run: what could not be hard-linked at MPI_Init is copied now */
    if (strcmp(written_by, "running") != 0)
        rt_keep_exe_finish();
    rt_keep_exe_describe(info);
}

int rt_write_run_json(struct scalana_run_info *info)
{
    char path[4200], tmp[4300];
    if (rt_g.writer_off)
        return -1;
    snprintf(path, sizeof path, "%s/%s", rt_g.run_dir, SCALANA_RUN_INFO_FILE);
    /* pid and rank: every exiting rank rewrites it, on hosts sharing the directory */
    scalana_run_info_tmp_path(tmp, sizeof tmp, rt_g.run_dir, (int)getpid(), rt_g.world_rank);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rt_fail("writer", "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    errno = 0;
    int rc = scalana_run_info_write(f, info);
    int saved = errno;
    if (fclose(f) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        rt_fail("writer", "cannot write %s: %s", path, saved ? strerror(saved) : "write failed");
    }
    return rc;
}
