/* runsets.c — what the directories on the command line hold (run
 * directories, or studies: directories of run directories) and which build
 * (the build-id in run.json) made each run, so that the runs of two builds
 * are analysed apart and compared (compare.c). */
#include "read/runsets.h"
#include "read/symbolize.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scalana/profile_format.h"
#include "scalana/run_files.h"
#include "scalana/run_info.h"

int an_is_run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int yes = 0;
    for (struct dirent *e; !yes && (e = readdir(d));) {
        const char *n = e->d_name;
        yes = strcmp(n, SCALANA_RUN_INFO_FILE) == 0 || scalana_profile_file_match(n);
    }
    closedir(d);
    return yes;
}

static int by_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void push(char ***v, int *n, char *s)
{
    char **g = realloc(*v, (size_t)(*n + 1) * sizeof **v);
    if (!g) abort();
    *v = g;
    g[(*n)++] = s;
}

/* The run directories below dir (depth levels at most), sorted by path. */
static void below(const char *dir, int depth, char ***out, int *n)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char **sub = NULL;
    int ns = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue; /* ".", "..", hidden */
        size_t m = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(m);
        if (!p) abort();
        snprintf(p, m, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) push(&sub, &ns, p);
        else free(p);
    }
    closedir(d);
    qsort(sub, (size_t)ns, sizeof *sub, by_name);
    for (int i = 0; i < ns; i++) {
        if (an_is_run_dir(sub[i])) push(out, n, sub[i]);
        else {
            if (depth > 1) below(sub[i], depth - 1, out, n);
            free(sub[i]);
        }
    }
    free(sub);
}

/* path with repeated slashes folded and trailing ones dropped ("run-4p//" ->
 * "run-4p", "/" stays), malloc'ed: the names joined to it later
 * ("run-4p/profile-0.sclp") then read as the user would write them. */
static char *tidy_path(const char *path)
{
    char *p = strdup(path);
    if (!p) abort();
    size_t k = 0;
    for (size_t i = 0; p[i]; i++)
        if (!(p[i] == '/' && k > 0 && p[k - 1] == '/')) p[k++] = p[i];
    while (k > 1 && p[k - 1] == '/') k--;
    p[k] = 0;
    return p;
}

int an_expand_run_dirs(const char *path, char ***out, int *n)
{
    int before = *n;
    struct stat st;
    char *tidy = tidy_path(path);
    if (stat(tidy, &st) == 0 && S_ISDIR(st.st_mode) && !an_is_run_dir(tidy)) below(tidy, 3, out, n);
    if (*n == before) {
        /* a run directory, or anything else: read_run says what is wrong with it */
        push(out, n, tidy);
    } else {
        free(tidy);
    }
    return *n - before;
}

static int by_start(const void *x, const void *y)
{
    const struct an_build *a = x, *b = y;
    if (a->first_start_ns != b->first_start_ns) return a->first_start_ns < b->first_start_ns ? -1 : 1;
    return strcmp(a->build_id, b->build_id);
}

/* Whether the binary of build b can be read: at its path with its build-id,
 * or as the copy one of its runs kept (run.json "executable_copy"). */
static int build_available(const struct an_build *b)
{
    char id[128] = "";
    if (*b->executable && an_elf_build_id(b->executable, id, sizeof id) == 0 && strcmp(id, b->build_id) == 0)
        return 1;
    for (int i = 0; i < b->ndirs; i++) {
        struct scalana_run_info info;
        char err[512], path[4400];
        if (scalana_run_info_read(b->dirs[i], &info, err, sizeof err) != 0) continue;
        int ok = info.executable_copy && *info.executable_copy &&
                 (size_t)snprintf(path, sizeof path, "%s/%s", b->dirs[i], info.executable_copy) < sizeof path &&
                 an_elf_build_id(path, id, sizeof id) == 0 && strcmp(id, b->build_id) == 0;
        scalana_run_info_free(&info);
        if (ok) return 1;
    }
    return 0;
}

int an_group_builds(char **dirs, int n, struct an_build **out)
{
    struct an_build *b = NULL;
    int nb = 0;
    int *orphan = calloc((size_t)n + 1, sizeof *orphan);
    if (!orphan) abort();
    for (int i = 0; i < n; i++) {
        struct scalana_run_info info;
        char err[512];
        if (scalana_run_info_read(dirs[i], &info, err, sizeof err) != 0 || !info.build_id || !*info.build_id) {
            if (info.version) scalana_run_info_free(&info);
            orphan[i] = 1;
            continue;
        }
        int k = 0;
        while (k < nb && strcmp(b[k].build_id, info.build_id) != 0) k++;
        if (k == nb) {
            struct an_build *g = realloc(b, (size_t)(nb + 1) * sizeof *b);
            if (!g) abort();
            b = g;
            memset(&b[nb], 0, sizeof *b);
            b[nb].build_id = strdup(info.build_id);
            b[nb].executable = strdup(info.executable ? info.executable : "");
            b[nb].first_start_ns = UINT64_MAX;
            nb++;
        }
        push(&b[k].dirs, &b[k].ndirs, dirs[i]);
        if (info.start_realtime_ns && info.start_realtime_ns < b[k].first_start_ns)
            b[k].first_start_ns = info.start_realtime_ns;
        scalana_run_info_free(&info);
    }
    if (nb > 1) qsort(b, (size_t)nb, sizeof *b, by_start);
    /* a build whose binary is nowhere (not at its path, no copy in its runs)
     * cannot be analysed: its runs go with the first build that can, whose
     * reader refuses them one by one, naming the build-id */
    int first_ok = -1;
    for (int k = 0; k < nb; k++) {
        b[k].available = build_available(&b[k]);
        if (b[k].available && first_ok < 0) first_ok = k;
    }
    if (first_ok >= 0) {
        struct an_build *kept = calloc((size_t)nb, sizeof *kept);
        if (!kept) abort();
        int m = 0;
        for (int k = 0; k < nb; k++)
            if (b[k].available) kept[m++] = b[k];
        for (int k = 0; k < nb; k++) {
            if (b[k].available) continue;
            for (int i = 0; i < b[k].ndirs; i++) push(&kept[0].dirs, &kept[0].ndirs, b[k].dirs[i]);
            free(b[k].build_id), free(b[k].executable), free(b[k].dirs);
        }
        free(b);
        b = kept;
        nb = m;
    }
    if (!nb) {
        b = calloc(1, sizeof *b);
        if (!b) abort();
        b[0].build_id = strdup("");
        b[0].executable = strdup("");
        nb = 1;
    }
    /* runs without a build-id: with the first build, whose reader judges them */
    for (int i = 0; i < n; i++)
        if (orphan[i]) push(&b[0].dirs, &b[0].ndirs, dirs[i]);
    free(orphan);
    *out = b;
    return nb;
}

void an_builds_free(struct an_build *b, int n)
{
    for (int i = 0; b && i < n; i++) free(b[i].build_id), free(b[i].executable), free(b[i].dirs);
    free(b);
}
