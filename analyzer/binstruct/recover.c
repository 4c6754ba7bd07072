/* recover.c — the analyzer's use of structure recovery: for an executable
 * without an embedded PSG, load (from the cache) or recover one and say
 * what happened in one warning line. */
#include "binstruct.h"
#include "binstruct/recover.h"
#include "binstruct/recover.h"
#include "core/graph.h"
#include "core/types.h"
#include "core/warn.h"
#include "read/symbolize.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int an_recover_structure(struct an_analysis *a, const char *exe, const char *build_id, struct psg_graph *out)
{
    memset(out, 0, sizeof *out);
    if (a->opt->no_recover) {
        an_warn(a, "%s has no PSG (built without scalana-cc) and --no-recover was given: the call-path graph is "
                   "recovered from the samples, without loops", exe);
        return 0;
    }
    struct bs_cache_opts co = {0, NULL};
    if (a->opt->psg_cache && !strcmp(a->opt->psg_cache, "off")) co.disabled = 1;
    else co.dir = a->opt->psg_cache;
    struct bs_load_info info;
    char err[1024];
    if (bs_load(exe, build_id, &co, out, &info, err, sizeof err) != 0) {
        an_warn(a, "%s has no PSG (built without scalana-cc) and its structure could not be recovered (%s): the "
                   "call-path graph is recovered from the samples, without loops", exe, err);
        return 0;
    }
    if (!info.functions) {
        /* symbols only: nothing with a source line to attribute to; a binary
         * without any DWARF gets prepare()'s one warning with the fix instead */
        if (an_elf_has_debug_info(exe) != 0)
            an_warn(a, "%s has no PSG (built without scalana-cc) and no DWARF line information (built without -g?): "
                   "its loops cannot be located; rebuild with -g; the call-path graph is recovered from the "
                   "samples", exe);
        psg_graph_free(out);
        return 0;
    }
    if (info.cache_problem[0])
        an_warn(a, "%s: the recovered structure is not cached, so every analysis recovers it again (set "
                   "--psg-cache DIR to a writable directory, or off)", info.cache_problem);
    a->psg_recovered = 1;
    a->psg_from_cache = info.from_cache;
    a->psg_producer = an_intern(&a->g.strings, out->unit_count ? out->units[0].producer : "");
    a->psg_loops = info.loops;
    an_warn(a, "%s has no PSG (built without scalana-cc): structure recovered from machine code, %u function%s, "
               "%u loop%s%s%s%s", exe, info.functions, info.functions == 1 ? "" : "s", info.loops,
            info.loops == 1 ? "" : "s", info.from_cache ? " (cached: " : info.cache_written ? " (cached as " : "",
            info.cache_path, info.cache_path[0] ? ")" : "");
    return 1;
}

/* Whether path is a library of the system or of ScalAna, not the application's. */
static int system_library(const char *path)
{
    static const char *const dirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/"};
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
        if (!strncmp(path, dirs[k], strlen(dirs[k]))) return 1;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return !strncmp(b, "libscalana", 10) || !strncmp(b, "linux-vdso", 10) || !strncmp(b, "ld-linux", 8) ||
           b[0] == '[' || !*b;
}

/* Appends the PSG bytes of an ELF file to *buf: its embedded section, else
 * the structure recovered from its machine code (through the cache). */
static int append_unit(struct an_analysis *a, const char *path, const char *build_id, int embedded_only,
                       unsigned char **buf, size_t *n, size_t *cap, uint32_t *loops, int *recovered)
{
    struct bs_elf e;
    char err[1024];
    const unsigned char *sec;
    size_t secn;
    unsigned char *own = NULL;
    *loops = 0, *recovered = 0;
    if (bs_elf_open(path, &e, err, sizeof err) != 0) {
        an_warn(a, "--recover-libs: %s", err);
        return -1;
    }
    int have = bs_elf_section(&e, SCALANA_PSG_SECTION, &sec, &secn) == 0;
    if (!have && !embedded_only) {
        struct bs_cache_opts co = {0, NULL};
        if (a->opt->psg_cache && !strcmp(a->opt->psg_cache, "off")) co.disabled = 1;
        else co.dir = a->opt->psg_cache;
        struct bs_load_info info;
        if (bs_load_bytes(path, build_id, &co, &own, &secn, &info, err, sizeof err) != 0) {
            an_warn(a, "--recover-libs: %s; its frames stay one vertex per entry point", err);
            bs_elf_close(&e);
            return -1;
        }
        if (info.cache_problem[0])
            an_warn(a, "%s: the recovered structure is not cached, so every analysis recovers it again (set "
                       "--psg-cache DIR to a writable directory, or off)", info.cache_problem);
        sec = own, have = 1, *loops = info.loops, *recovered = 1;
    }
    int rc = 0;
    if (have) {
        /* units start on 8-byte boundaries; readers skip the zero padding */
        size_t pad = (8 - *n % 8) % 8;
        if (*n + pad + secn > *cap) {
            size_t nc = (*n + pad + secn) * 2;
            unsigned char *p = realloc(*buf, nc);
            if (!p) rc = -1;
            else *buf = p, *cap = nc;
        }
        if (!rc) {
            memset(*buf + *n, 0, pad);
            memcpy(*buf + *n + pad, sec, secn);
            *n += pad + secn;
        }
    }
    free(own);
    bs_elf_close(&e);
    return rc;
}

int an_recover_libraries(struct an_analysis *a, const char *exe, const char *build_id, const char *run_dir,
                         struct psg_graph *g)
{
    char err[1024];
    char **files = NULL;
    int nf = prf_run_list_files(run_dir, &files, err, sizeof err);
    struct prf_rank_data d;
    memset(&d, 0, sizeof d);
    int got = 0;
    for (int k = 0; k < nf && !got; k++) {
        struct prf_file pf;
        if (prf_file_open(files[k], &pf, err, sizeof err) != 0) continue;
        for (uint32_t i = 0; i < pf.header.rank_count && !got; i++) got = prf_file_read_rank(&pf, i, &d, err, sizeof err) == 1;
        prf_file_close(&pf);
    }
    for (int k = 0; k < nf; k++) free(files[k]);
    free(files);
    if (!got) {
        an_warn(a, "--recover-libs: %s: no readable profile to list the shared libraries from", run_dir);
        return 0;
    }
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;
    uint32_t loops;
    int recovered, added = 0;
    /* the executable's own unit(s) first: attribution takes the first copy of a function */
    if (append_unit(a, exe, build_id, !a->psg_recovered, &buf, &n, &cap, &loops, &recovered) != 0) {
        prf_rank_free(&d);
        free(buf);
        return 0;
    }
    char said[2048] = "";
    size_t slen = 0;
    for (uint32_t m = 0; m < d.module_count; m++) {
        const char *path = prf_string(&d, d.modules[m].path), *bid = prf_string(&d, d.modules[m].build_id);
        if (!path || !*path || system_library(path) || !strcmp(path, exe) || (bid && build_id && !strcmp(bid, build_id)))
            continue;
        if (access(path, R_OK) != 0) {
            an_warn(a, "--recover-libs: %s: not found; its frames stay one vertex per entry point", path);
            continue;
        }
        char actual[128] = "";
        if (an_elf_build_id(path, actual, sizeof actual) == 0 && bid && *bid && *actual && strcmp(actual, bid) != 0) {
            an_warn(a, "--recover-libs: %s: build-id %s differs from the profile's %s (rebuilt since?); not used", path,
                    actual, bid);
            continue;
        }
        if (append_unit(a, path, bid, 0, &buf, &n, &cap, &loops, &recovered) != 0) continue;
        added++;
        const char *b = strrchr(path, '/');
        if (slen < sizeof said)
        {
            if (recovered)
                slen += (size_t)snprintf(said + slen, sizeof said - slen, "%s%s (recovered from machine code, %u loop%s)",
                                         added > 1 ? ", " : "", b ? b + 1 : path, loops, loops == 1 ? "" : "s");
            else
                slen += (size_t)snprintf(said + slen, sizeof said - slen, "%s%s (its embedded PSG)",
                                         added > 1 ? ", " : "", b ? b + 1 : path);
        }
    }
    prf_rank_free(&d);
    if (!added) {
        an_warn(a, "--recover-libs: the run loaded no shared library of the application (system libraries are "
                   "not recovered)");
        free(buf);
        return 0;
    }
    struct psg_graph ng;
    if (psg_parse(buf, n, &ng, err, sizeof err) != 0) {
        an_warn(a, "--recover-libs: the joined PSG does not parse (%s); the libraries are left out", err);
        free(buf);
        return 0;
    }
    free(buf);
    psg_graph_free(g);
    *g = ng;
    a->psg_libraries = (uint32_t)added;
    an_warn(a, "structure of %d shared librar%s of the application: %s", added, added == 1 ? "y" : "ies", said);
    return added;
}
