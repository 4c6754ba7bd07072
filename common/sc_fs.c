/* sc_fs.c — output-directory steps shared by scalana-analyze and scalana-view. */
#include "sc_fs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sc_mkdir_p(const char *path)
{
    char b[4096];
    if ((size_t)snprintf(b, sizeof b, "%s", path) >= sizeof b) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = b + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(b, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(b, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int sc_cause_graph_name(const char *name, long *rank, char ext[4])
{
    int end = 0;
    ext[0] = 0;
    /* the digit check first: sscanf's %ld would also take a sign or blanks */
    if (strncmp(name, "rootcause-", 10) || name[10] < '0' || name[10] > '9' ||
        sscanf(name, "rootcause-%ld.%3[a-z]%n", rank, ext, &end) != 2 || name[end] ||
        (strcmp(ext, "dot") && strcmp(ext, "svg")))
        return 0;
    return 1;
}

void sc_remove_cause_graphs(const char *dir, int (*keep)(long rank, const char *ext, void *ctx), void *ctx)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        long n = 0;
        char ext[4];
        if (!sc_cause_graph_name(e->d_name, &n, ext) || (keep && keep(n, ext, ctx))) continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path) unlink(path);
    }
    closedir(d);
}
