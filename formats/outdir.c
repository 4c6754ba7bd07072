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

/* Names a report has: a file of the user's by one of these would be written
 * over, so a refusal names it first. */
static int report_name(const char *n)
{
    static const char *const fixed[] = {"report.json", "index.html", "extrap.jsonl", "psg.dot", "psg.svg", "before"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (strcmp(n, fixed[i]) == 0) return 1;
    unsigned k;
    char ext[4];
    int end = 0;
    return sscanf(n, "rootcause-%u.%3[a-z]%n", &k, ext, &end) == 2 && n[end] == '\0' &&
           (strcmp(ext, "dot") == 0 || strcmp(ext, "svg") == 0);
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
