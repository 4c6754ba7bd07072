/* run_files.c — builds and parses the names of a run directory's files
 * (include/scalana/run_files.h).  Linked into the runtime: no allocation
 * except in the listing, no JSON, no libelf. */
#include "scalana/run_files.h"
#include "scalana/profile_format.h"
#include "scalana/run_info.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFILE_PREFIX "profile-"

/* snprintf's k for buf of n bytes: k, or -1 with buf "" when it did not fit. */
static int fitted(char *buf, size_t n, int k)
{
    if (k < 0 || (size_t)k >= n) {
        if (n)
            buf[0] = '\0';
        return -1;
    }
    return k;
}

int scalana_profile_file_name(char *buf, size_t n, uint32_t first, uint32_t last, int tmp)
{
    return fitted(buf, n,
                  snprintf(buf, n, "%s" PROFILE_PREFIX "%06u-%06u" SCALANA_PROFILE_SUFFIX "%s", tmp ? "." : "",
                           (unsigned)first, (unsigned)last, tmp ? ".tmp" : ""));
}

int scalana_profile_file_match(const char *name)
{
    size_t l = strlen(name), pl = sizeof PROFILE_PREFIX - 1, sl = sizeof SCALANA_PROFILE_SUFFIX - 1;
    return l > pl + sl && strncmp(name, PROFILE_PREFIX, pl) == 0 &&
           strcmp(name + l - sl, SCALANA_PROFILE_SUFFIX) == 0;
}

int scalana_profile_tmp_match(const char *name)
{
    size_t l = strlen(name), pl = sizeof "." PROFILE_PREFIX - 1, sl = sizeof SCALANA_PROFILE_SUFFIX ".tmp" - 1;
    return l > pl + sl && strncmp(name, "." PROFILE_PREFIX, pl) == 0 &&
           strcmp(name + l - sl, SCALANA_PROFILE_SUFFIX ".tmp") == 0;
}

#define RUN_INFO_TMP SCALANA_RUN_INFO_FILE ".tmp."

int scalana_run_info_tmp_path(char *buf, size_t n, const char *dir, int pid, uint32_t rank)
{
    return fitted(buf, n, snprintf(buf, n, "%s/." RUN_INFO_TMP "%d.%u", dir, pid, (unsigned)rank));
}

int scalana_run_info_tmp_match(const char *name)
{
    if (name[0] == '.')
        name++;
    return strncmp(name, RUN_INFO_TMP, sizeof RUN_INFO_TMP - 1) == 0 && name[sizeof RUN_INFO_TMP - 1] != '\0';
}

int scalana_profile_file_parse(const char *path, uint32_t *first, uint32_t *last)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    unsigned lo, hi;
    int end = 0;
    if (sscanf(b, PROFILE_PREFIX "%u-%u" SCALANA_PROFILE_SUFFIX "%n", &lo, &hi, &end) != 2 || end == 0 ||
        b[end] != '\0')
        return 0;
    *first = lo;
    *last = hi;
    return 1;
}

int scalana_profile_path_has_suffix(const char *path)
{
    size_t l = strlen(path), sl = sizeof SCALANA_PROFILE_SUFFIX - 1;
    return l > sl && strcmp(path + l - sl, SCALANA_PROFILE_SUFFIX) == 0;
}

int scalana_run_dir_default_name(char *buf, size_t n, const char *exe, uint32_t nprocs)
{
    return snprintf(buf, n, "scalana-%s-%up", exe && *exe ? exe : "app", (unsigned)nprocs);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b); /* %06u names sort by first rank */
}

int scalana_run_list_profiles(const char *dir, int with_dir, char ***out, char *err, size_t errlen)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot read run directory: %s", dir, strerror(errno));
        return -1;
    }
    size_t n = 0, cap = 0;
    char **v = NULL;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!scalana_profile_file_match(de->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, cap * sizeof *v);
            if (!nv)
                goto oom;
            v = nv;
        }
        size_t need = (with_dir ? strlen(dir) + 1 : 0) + strlen(de->d_name) + 1;
        if (!(v[n] = malloc(need)))
            goto oom;
        if (with_dir)
            snprintf(v[n++], need, "%s/%s", dir, de->d_name);
        else
            snprintf(v[n++], need, "%s", de->d_name);
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_names);
    *out = v;
    return (int)n;
oom:
    closedir(d);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    snprintf(err, errlen, "%s: out of memory listing profiles", dir);
    return -1;
}

/* The profile API's name for the listing with paths (profile_format.h). */
int prf_run_list_files(const char *dir, char ***paths, char *err, size_t errlen)
{
    return scalana_run_list_profiles(dir, 1, paths, err, errlen);
}
