/* cache.c — recovered PSGs kept by build-id, so that a binary's structure
 * is recovered once: <dir>/<build-id>.psg holds the unit's bytes exactly as
 * bs_recover made them.  A file that does not parse is recovered again and
 * replaced; writes go through a temporary file and rename(2), so readers
 * never see half a file. */
#include "sc_fs.h"
#include "scalana/psg_format.h"
#include "binstruct.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bs_unit_is_recovered(const struct psg_unit *u)
{
    return u && u->producer && strncmp(u->producer, BS_PRODUCER, sizeof BS_PRODUCER - 1) == 0;
}

const char *bs_cache_dir(const struct bs_cache_opts *co, char *buf, size_t buflen)
{
    const char *v;
    if (co && co->dir && *co->dir) snprintf(buf, buflen, "%s", co->dir);
    else if ((v = getenv("SCALANA_PSG_CACHE")) && *v && strcmp(v, "off") != 0) snprintf(buf, buflen, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && *v == '/') snprintf(buf, buflen, "%s/scalana/psg", v);
    else if ((v = getenv("HOME")) && *v) snprintf(buf, buflen, "%s/.cache/scalana/psg", v);
    else if (buflen) buf[0] = 0;
    return buf;
}

/* Reads a whole file (at most 1 GiB); NULL when it cannot. */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        if (len > 0 && len < (1L << 30) && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)len)) &&
            fread(b, 1, (size_t)len, f) != (size_t)len) {
            free(b);
            b = NULL;
        }
        *n = len > 0 ? (size_t)len : 0;
    }
    fclose(f);
    return b;
}

/* Says in info->cache_problem why the cache directory dir (from --psg-cache,
 * $SCALANA_PSG_CACHE or the default) could not be written: errnum's text. */
static void cache_problem(struct bs_load_info *info, const struct bs_cache_opts *co, const char *dir,
                          const char *what, int errnum)
{
    const char *from = co && co->dir && *co->dir ? "--psg-cache " : getenv("SCALANA_PSG_CACHE") &&
                       *getenv("SCALANA_PSG_CACHE") ? "SCALANA_PSG_CACHE=" : "the PSG cache ";
    snprintf(info->cache_problem, sizeof info->cache_problem, "%s%s: %s (%s)", from, dir, what,
             strerror(errnum ? errnum : EIO));
}

static void count(const struct psg_graph *g, struct bs_load_info *info)
{
    info->loops = info->functions = 0;
    for (uint32_t u = 0; u < g->unit_count; u++)
        for (uint32_t i = 0; i < g->units[u].vertex_count; i++) {
            info->loops += g->units[u].vertices[i].kind == PSG_LOOP;
            info->functions += g->units[u].vertices[i].kind == PSG_FUNCTION;
        }
}

int bs_load_bytes(const char *path, const char *build_id, const struct bs_cache_opts *co, unsigned char **bytes,
                  size_t *nbytes, struct bs_load_info *info, char *err, size_t errlen)
{
    struct bs_load_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    *bytes = NULL, *nbytes = 0;
    const char *env = getenv("SCALANA_PSG_CACHE");
    int use = !(co && co->disabled) && !(env && !strcmp(env, "off")) && build_id && *build_id &&
              strspn(build_id, "0123456789abcdef") == strlen(build_id);
    char dir[1024], file[1200];
    if (use) {
        bs_cache_dir(co, dir, sizeof dir);
        use = dir[0] != 0 && (size_t)snprintf(file, sizeof file, "%s/%s.psg", dir, build_id) < sizeof file;
    }
    char perr[512];
    struct psg_graph g;
    if (use) {
        size_t n = 0;
        unsigned char *b = slurp(file, &n);
        if (b) {
            int ok = psg_parse(b, n, &g, perr, sizeof perr) == 0;
            ok = ok && g.unit_count == 1 && g.units[0].producer && !strcmp(g.units[0].producer, BS_PRODUCER_FULL);
            if (ok) count(&g, info);
            psg_graph_free(&g);
            if (ok) {
                info->from_cache = 1;
                snprintf(info->cache_path, sizeof info->cache_path, "%s", file);
                *bytes = b, *nbytes = n;
                return 0;
            }
            free(b); /* corrupt, foreign or older rules: recover again, replace it */
        }
    }
    unsigned char *rb = NULL;
    size_t rn = 0;
    if (bs_recover(path, &rb, &rn, NULL, err, errlen) != 0) return -1;
    if (psg_parse(rb, rn, &g, perr, sizeof perr) != 0) {
        snprintf(err, errlen, "%s: the recovered PSG does not parse (%s): a bug, please report it", path, perr);
        free(rb);
        return -1;
    }
    count(&g, info);
    psg_graph_free(&g);
    if (use && sc_mkdir_p(dir) != 0) {
        cache_problem(info, co, dir, "cannot create the directory", errno);
    } else if (use) {
        char tmp[1300];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        int ok = f && fwrite(rb, 1, rn, f) == rn;
        int e = errno;
        if (f && fclose(f) != 0) ok = 0, e = errno;
        if (ok && rename(tmp, file) == 0) {
            info->cache_written = 1;
            snprintf(info->cache_path, sizeof info->cache_path, "%s", file);
        } else {
            if (ok) e = errno;
            unlink(tmp);
            cache_problem(info, co, dir, "cannot write a file there", e);
        }
    }
    *bytes = rb, *nbytes = rn;
    return 0;
}

int bs_load(const char *path, const char *build_id, const struct bs_cache_opts *co, struct psg_graph *out,
            struct bs_load_info *info, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    unsigned char *b;
    size_t n;
    if (bs_load_bytes(path, build_id, co, &b, &n, info, err, errlen) != 0) return -1;
    char perr[512];
    int rc = psg_parse(b, n, out, perr, sizeof perr);
    free(b);
    if (rc != 0) {
        snprintf(err, errlen, "%s: its PSG does not parse (%s)", path, perr);
        return -1;
    }
    return 0;
}
