/* outdir.c — report directories: which ones are ours to replace.  A report
 * directory is only written over when it holds our own earlier output, so a
 * user's own index.html in a directory given to -o is never lost (--force
 * overrides, in the programs). */
#include "scalana/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A report.json that scalana-analyze wrote: its first members (report.c)
 * are schema_version and tool.name "scalana". */
static int our_report_json(const char *dir)
{
    char path[4200], buf[256];
    if ((size_t)snprintf(path, sizeof path, "%s/report.json", dir) >= sizeof path) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    return strncmp(buf, "{\n \"schema_version\"", 19) == 0 && strstr(buf, "\"name\": \"scalana\"") != NULL;
}

/* Whether n is one of the space-separated names of files (outputs.def):
 * "psg.dot", a directory "caliper/" (n without the slash), or
 * "rootcause-N.dot" standing for rootcause-<number>.dot. */
static int names_match(const char *files, const char *n)
{
    size_t len = strlen(n);
    for (const char *p = files; *p;) {
        while (*p == ' ') p++;
        size_t w = strcspn(p, " ");
        if (w == 0) break;
        unsigned k;
        int end = 0;
        char ext[16];
        if ((w == len && strncmp(p, n, w) == 0) || (w == len + 1 && p[len] == '/' && strncmp(p, n, len) == 0))
            return 1;
        if (w > 12 && w < 12 + sizeof ext && strncmp(p, "rootcause-N.", 12) == 0 &&
            sscanf(n, "rootcause-%u.%15[a-z]%n", &k, ext, &end) == 2 && n[end] == '\0' &&
            strlen(ext) == w - 12 && strncmp(ext, p + 12, w - 12) == 0)
            return 1;
        p += w;
    }
    return 0;
}

/* Names a report has: a file of the user's by one of these would be written
 * over, so a refusal names it first.  report.json and the comparison's
 * before/ are the analyzer's; the rest the exports of outputs.def. */
static int report_name(const char *n)
{
    static const char *const files[] = {
        "report.json before/",
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) files,
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (names_match(files[i], n)) return 1;
    return 0;
}

int scalana_outdir_is_ours(const char *dir, char *foreign, size_t cap)
{
    char report_file[256] = "", other[256] = "";
    DIR *d = opendir(dir);
    if (cap) foreign[0] = '\0';
    if (!d) return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
    int marked = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
        if (strcmp(n, SCALANA_REPORT_MARKER) == 0) marked = 1;
        else if (report_name(n)) { if (!report_file[0]) snprintf(report_file, sizeof report_file, "%s", n); }
        else if (!other[0]) snprintf(other, sizeof other, "%s", n);
    }
    closedir(d);
    if (marked || (!other[0] && !report_file[0])) return 1;
    /* a report from before the marker: our report.json is there (whatever
     * else a version of ours or the user put beside it, which is not written) */
    if (our_report_json(dir)) return 1;
    if (cap) snprintf(foreign, cap, "%s", report_file[0] ? report_file : other);
    return 0;
}

int scalana_outdir_mark(const char *dir)
{
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, SCALANA_REPORT_MARKER) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("ScalAna report directory: scalana-analyze and scalana-view may replace what is here.\n", f);
    return fclose(f) == 0 ? 0 : -1;
}
