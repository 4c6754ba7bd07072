/* main.c — scalana-analyze: reads the run directories (any order; equal
 * process counts are repetitions), checks they are runs of one binary,
 * attributes every rank's profile to the PPG, then models, backtracks and
 * writes report.json, the viewer's files and the terminal summary. */
#include "binstruct/recover.h"
#include "binstruct/recover.h"
#include "core/graph.h"
#include "core/options.h"
#include "core/types.h"
#include "core/warn.h"
#include "detect/find.h"
#include "metrics/metrics.h"
#include "metrics/phases.h"
#include "ppg/ppg.h"
#include "read/attribute.h"
#include "read/psg_index.h"
#include "read/runsets.h"
#include "read/symbolize.h"
#include "report/compare.h"
#include "report/gate.h"
#include "report/predict.h"
#include "report/report.h"
#include "report/whatif.h"
#include "sc_fs.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"
#include "par/par.h"
#include "scalana/outdir.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>

#include "viewer.h" /* scalana_viewer_write (SCALANA_HAVE_VIEWER), and the terminal summary */

struct reader {
    struct an_analysis *a;
    struct an_symbolizer *sym;
    struct psg_graph psg;
    struct an_psg psgx;
    struct an_attr_ctx ctx;
    int ready;
    const char *ref_dir;
    char exe_build_id[128];
    char **dirs; int ndirs;    /* all runs of this analysis: another may hold the copy */
};

/* The file name of a path ("" for NULL). */
static const char *base_name(const char *path)
{
    const char *b = path ? strrchr(path, '/') : NULL;
    return b ? b + 1 : path ? path : "";
}

/* Loads the executable's PSG and prepares the symbolizer (once). */
static void prepare(struct reader *rd, const char *exe, const char *build_id)
{
    struct an_analysis *a = rd->a;
    char err[1024];
    memset(&rd->psg, 0, sizeof rd->psg);
    if (exe && *exe) {
        int rc = psg_read_elf(exe, &rd->psg, err, sizeof err);
        if (rc < 0) an_warn(a, "%s; analysing with the dynamic call-path graph only", err);
        else if (rc == 0) rc = an_recover_structure(a, exe, build_id, &rd->psg); /* binstruct/ */
        a->has_psg = rc == 1 && rd->psg.unit_count > 0;
        if (a->opt->recover_libs && rd->ref_dir && an_recover_libraries(a, exe, build_id, rd->ref_dir, &rd->psg) > 0)
            a->has_psg = 1; /* binstruct/recover.c */
    }
    if (an_psg_index(&rd->psgx, a->has_psg ? &rd->psg : NULL) != 0) {
        an_warn(a, "out of memory indexing the PSG; continuing without it");
        a->has_psg = 0;
        an_psg_free(&rd->psgx);
        memset(&rd->psgx, 0, sizeof rd->psgx);
    }
    rd->sym = an_sym_new(&a->g.strings, exe, build_id);
    if (exe && *exe && an_elf_has_debug_info(exe) == 0)
        an_warn(a, "%s has no debug information (built without -g): functions are named from its "
                   "symbol table, without source lines, loops or inlined calls; rebuild with -g "
                   "(scalana-cc adds it; with mpicc add -g to the compile flags: it does not change "
                   "the generated code)", exe);
    an_attr_ctx_init(&rd->ctx, &a->g, rd->sym, a->has_psg ? &rd->psgx : NULL, a->opt);
    rd->ready = 1;
}

/* The run's own copy of its executable (run.json "executable_copy", written
 * by the runtime: docs/runtime.md) into path, when it is there and has the
 * run's build-id (bid; any when the run names none).  Returns 1 when found,
 * -1 when it is there with another build-id, 0 when there is none. */
static int run_copy(const char *dir, const struct scalana_run_info *info, int have_info, const char *bid,
                    char *path, size_t n)
{
    const char *rel = have_info && info->executable_copy && *info->executable_copy ? info->executable_copy : NULL;
    if (!rel) return 0;
    char id[128] = "";
    if ((size_t)snprintf(path, n, "%s/%s", dir, rel) >= n || an_elf_build_id(path, id, sizeof id) != 0) return 0;
    if (!*bid || !*id || strcmp(id, bid) == 0) return 1;
    /* a hard link shares the file: a binary rewritten in place (cp over it) changed it too */
    return -1;
}

/* What the path is, before anything is read from it: one message, naming
 * it.  Returns 0 for a non-empty directory, else -1 with r->bad set. */
static int check_run_path(struct an_analysis *a, struct an_run *r, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (stat(dir, &st) != 0)
            an_warn(a, "%s: %s; run skipped", dir, errno == ENOENT ? "no such directory" : strerror(errno));
        else
            an_warn(a, "%s: is a file, not a run directory (give the directory that holds run.json and "
                       "profile-*.sclp); run skipped", dir);
        r->bad = 1;
        return -1;
    }
    DIR *dd = opendir(dir);
    int entries = 0;
    for (struct dirent *e; dd && (e = readdir(dd));) entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (dd) closedir(dd);
    if (dd && !entries) {
        an_warn(a, "%s: empty directory (no run.json, no profile-*.sclp); run skipped", dir);
        r->bad = 1;
        return -1;
    }
    return 0;
}

/* The executable of the analysis, chosen at the first run read: --exe, else
 * run.json's, else the run's own copy (or another run's of the same build)
 * when the binary is gone or rebuilt; then the PSG and symbolizer are
 * prepared.  Later runs must be of the same build-id.  Returns 0, or -1
 * with r->bad set when the run is refused. */
static int choose_executable(struct reader *rd, struct an_run *r, const char *dir,
                             const struct scalana_run_info *info, int have_info)
{
    struct an_analysis *a = rd->a;
    const struct an_options *o = a->opt;
    const char *exe = o->exe ? o->exe : (have_info ? info->executable : NULL);
    const char *bid = have_info && info->build_id ? info->build_id : "";
    if (!have_info && !o->exe && !rd->ready) {
        an_warn(a, "%s: no readable run.json and no --exe: the executable is unknown; run skipped", dir);
        r->bad = 1;
        return -1;
    }
    if (rd->ready) {
        if (*bid && rd->exe_build_id[0] && strcmp(bid, rd->exe_build_id) != 0) {
            an_warn(a, "%s: refused: a run of another binary (build-id %s; %s has %s)", dir, bid, rd->ref_dir,
                    rd->exe_build_id);
            r->bad = 1;
            return -1;
        }
        return 0;
    }
    char actual[128] = "", copy[4200] = "";
    const char *source = o->exe ? "--exe" : "run.json";
    int readable = exe && an_elf_build_id(exe, actual, sizeof actual) == 0;
    int differs = readable && *bid && *actual && strcmp(actual, bid) != 0;
    int found = !o->exe && (!readable || differs) ? run_copy(dir, info, have_info, bid, copy, sizeof copy) : 0;
    if (found < 0)
        an_warn(a, "%s: the run's own copy %s has another build-id than the run's %s (a hard link shares the "
                   "file: was the binary rewritten in place? SCALANA_KEEP_EXE=copy avoids that)", dir, copy, bid);
    found = found > 0;
    /* a run kept without its copy (SCALANA_KEEP_EXE=off) borrows another run's of the same build */
    for (int k = 0; !o->exe && (!readable || differs) && !found && *bid && k < rd->ndirs; k++) {
        struct scalana_run_info other;
        char e2[512];
        if (rd->dirs[k] == dir || scalana_run_info_read(rd->dirs[k], &other, e2, sizeof e2) != 0) continue;
        found = other.build_id && strcmp(other.build_id, bid) == 0 &&
                run_copy(rd->dirs[k], &other, 1, bid, copy, sizeof copy) > 0;
        scalana_run_info_free(&other);
    }
    if (found) {
        an_warn(a, "%s: %s %s: using the run's own copy %s", dir, exe,
                readable ? "has another build-id (rebuilt since the run)" : "is gone or unreadable", copy);
        exe = copy, source = "run copy", readable = 1, differs = 0;
        an_elf_build_id(exe, actual, sizeof actual);
    }
    if (!readable) {
        an_warn(a, "%s: cannot read the executable %s%s", dir, exe ? exe : "",
                o->exe ? "" : " and the run directory holds no copy of it (exe/)");
    } else if (differs && o->exe) {
        /* the user named the binary: it is not the one that ran (no advice to pass --exe again) */
        char ran[4200] = "";
        if (have_info && info->executable) snprintf(ran, sizeof ran, " (%s)", info->executable);
        an_warn(a, "%s: refused: --exe %s is not the binary that ran: it has build-id %s, the run was made with "
                   "build-id %s%s", dir, exe, actual, bid, ran);
        r->bad = 1;
        return -1;
    } else if (differs) {
        an_warn(a, "%s: refused: the run was made with build-id %s but %s has build-id %s (rebuilt since?) "
                   "and the run directory holds no copy of that build (exe/; SCALANA_KEEP_EXE=off?); pass the "
                   "original binary with --exe", dir, bid, exe, actual);
        r->bad = 1;
        return -1;
    }
    snprintf(rd->exe_build_id, sizeof rd->exe_build_id, "%s", *bid ? bid : actual);
    a->exe_source = source;
    a->exe = an_intern(&a->g.strings, exe ? exe : "");
    {
        const char *prog = o->exe ? o->exe : have_info && info->executable ? info->executable : exe;
        a->program_path = an_intern(&a->g.strings, prog ? prog : "");
    }
    a->build_id = an_intern(&a->g.strings, rd->exe_build_id);
    rd->ref_dir = dir;
    prepare(rd, exe, rd->exe_build_id);
    return 0;
}

/* The run's own copies of the application's shared libraries
 * (SCALANA_KEEP_EXE=all), for the symbolizer. */
static void add_library_copies(struct reader *rd, const char *dir)
{
    char libdir[4200];
    struct stat lst;
    if ((size_t)snprintf(libdir, sizeof libdir, "%s/exe/lib", dir) < sizeof libdir && stat(libdir, &lst) == 0 &&
        S_ISDIR(lst.st_mode) && rd->sym)
        an_sym_add_library_dir(rd->sym, libdir);
}

/* Opens the run's profile files (headers and rank index) into pf[nf]: ok[k]
 * is 1 for a file to read, 0 for one of another world size, -1 for an
 * unreadable one (its ranks, from the file name, are unreadable rather than
 * unwritten) and -2 for one refused as another binary's.  *total counts the
 * rank sections of the files to read.  Returns the world size (0: no
 * readable profile). */
static uint32_t open_profiles(struct reader *rd, const char *dir, char **files, int nf, struct prf_file *pf,
                              int *ok, const struct scalana_run_info *info, int have_info, uint64_t *total)
{
    struct an_analysis *a = rd->a;
    char err[1024];
    const char *bid = have_info && info->build_id ? info->build_id : "";
    uint32_t P = 0;
    *total = 0;
    for (int k = 0; k < nf; k++) {
        if (prf_file_open(files[k], &pf[k], err, sizeof err) != 0) {
            an_warn(a, "%s (file skipped)", err);
            ok[k] = -1;
            continue;
        }
        /* the file's executable hash (FNV-1a 64 of the build-id hex string, 0 when
         * the runtime knew none) must be the run's: a profile of another binary
         * copied in, or a corrupt header, is refused by name */
        const char *want = *bid ? bid : rd->exe_build_id;
        uint64_t hash = *want ? psg_fnv1a64(want, strlen(want), PSG_FNV_SEED) : 0;
        if (pf[k].header.exe_hash && hash && pf[k].header.exe_hash != hash) {
            an_warn(a, "%s: refused: written by another binary or corrupt (executable hash %016llx; the run's "
                       "build-id %s hashes to %016llx) (file skipped)", files[k],
                    (unsigned long long)pf[k].header.exe_hash, want, (unsigned long long)hash);
            prf_file_close(&pf[k]);
            ok[k] = -2;
            continue;
        }
        if (pf[k].header.file_bytes != pf[k].actual_bytes)
            an_warn(a, "%s: %llu bytes, its header says %llu: %s; the rank sections inside it are read", files[k],
                    (unsigned long long)pf[k].actual_bytes, (unsigned long long)pf[k].header.file_bytes,
                    pf[k].header.file_bytes > pf[k].actual_bytes ? "truncated, or a corrupt header"
                                                                 : "a corrupt header, or bytes appended");
        uint32_t ws = pf[k].header.world_size, hi = pf[k].header.first_rank + pf[k].header.rank_count;
        if (ws > (1u << 24)) {
            an_warn(a, "%s: world size %u in the header is implausible (corrupt header) (file skipped)", files[k], ws);
            prf_file_close(&pf[k]);
            ok[k] = -1;
            continue;
        }
        if (!P) {
            /* the world size the profiles were written with (MPI_Comm_size) wins over run.json's
             * "processes", unless run.json's is the one the file's ranks fill and the header's is larger */
            P = ws;
            if (have_info && info->processes && info->processes != ws) {
                if (hi == info->processes && ws > hi) {
                    P = info->processes;
                    an_warn(a, "%s: world size %u in its header, but run.json says %u processes and its ranks "
                               "end there; using %u (the header looks corrupt)", files[k], ws, P, P);
                } else {
                    an_warn(a, "%s: run.json says %u process%s but %s was written by a run of %u (its world "
                               "size); using %u", dir, info->processes, info->processes == 1 ? "" : "es", files[k],
                            ws, ws);
                }
            }
        }
        if (pf[k].header.world_size != P) {
            an_warn(a, "%s: world size %u differs from the run's %u (file skipped)", files[k],
                    pf[k].header.world_size, P);
            prf_file_close(&pf[k]);
            continue;
        }
        ok[k] = 1;
        *total += pf[k].header.rank_count;
    }
    return P;
}

/* The ranks of the files that could not be read, from their names
 * (profile-LO-HI.sclp), marked unreadable (1) or refused (2) in r. */
static void mark_unreadable_files(struct an_run *r, char **files, int nf, const int *ok)
{
    for (int k = 0; k < nf; k++) {
        uint32_t lo, hi;
        if (ok[k] < 0 && scalana_profile_file_parse(files[k], &lo, &hi))
            for (unsigned i = lo; i <= hi && i < r->P; i++) r->unreadable[i] = (uint8_t)-ok[k];
    }
}

/* Reads and attributes the rank sections of the open files (ok[k] > 0)
 * into r, closing each file after it; a bad rank section is skipped and
 * marked unreadable.  Without run.json the first rank read must name the
 * executable among its modules, else the run is refused (r->bad). */
static void read_ranks(struct reader *rd, struct an_run *r, const char *dir, char **files, int nf,
                       struct prf_file *pf, const int *ok, uint64_t total)
{
    struct an_analysis *a = rd->a;
    const struct an_options *o = a->opt;
    char err[1024];
    uint64_t done = 0;
    int have_run_json = r->info.version != 0, checked = 0;
    for (int k = 0; k < nf && !r->bad; k++) {
        if (ok[k] <= 0) continue;
        uint32_t bad = 0, refused = 0; /* three messages per file of each kind, then a count (docs/analyzer.md) */
        for (uint32_t i = 0; i < pf[k].header.rank_count; i++) {
            /* with several analyzer processes, each reads its slice of the ranks (par.h) */
            if (!an_par_mine(pf[k].header.first_rank + i, r->P)) continue;
            struct prf_rank_data d;
            memset(&d, 0, sizeof d);
            int rc = prf_file_read_rank(&pf[k], i, &d, err, sizeof err);
            if (rc < 0) {
                if (bad++ < 3) an_warn(a, "%s (rank skipped)", err);
                uint64_t wr = (uint64_t)pf[k].header.first_rank + i;
                if (wr < r->P) r->unreadable[wr] = 1;
            } else if (rc == 1) {
                if (!have_run_json && !checked && rd->exe_build_id[0]) {
                    /* no run.json: the profile's own modules must include the executable */
                    int found = 0;
                    for (uint32_t m = 0; m < d.module_count && !found; m++)
                        found = strcmp(prf_string(&d, d.modules[m].build_id), rd->exe_build_id) == 0;
                    checked = 1;
                    if (!found) {
                        an_warn(a, "%s: refused: its profiles name no module with build-id %s (%s); a run of "
                                   "another binary", dir, rd->exe_build_id, a->exe);
                        prf_rank_free(&d);
                        r->bad = 1;
                        break;
                    }
                }
                if (an_run_add_rank(r, &rd->ctx, &d, err, sizeof err) != 0 && refused++ < 3)
                    an_warn(a, "%s: %s", files[k], err);
                prf_rank_free(&d);
            }
            an_progress(o, dir, ++done, total);
        }
        if (bad > 3) an_warn(a, "%s: %u more bad rank sections skipped", files[k], bad - 3);
        if (refused > 3)
            an_warn(a, "%s: %u more rank sections ignored (ranks read twice or outside the run)", files[k], refused - 3);
        prf_file_close(&pf[k]);
    }
    for (int k = 0; k < nf; k++)
        if (ok[k] > 0 && pf[k].fd >= 0 && r->bad) prf_file_close(&pf[k]);
    an_progress_end(o);
}

/* Reads one run directory into r: its run.json, the executable (first
 * run), its profile files and every rank section; r->bad when the run is
 * skipped or refused (a warning says why). */
static void read_run(struct reader *rd, struct an_run *r, const char *dir)
{
    struct an_analysis *a = rd->a;
    char err[1024];
    struct scalana_run_info info;
    memset(&info, 0, sizeof info);
    if (check_run_path(a, r, dir) != 0) return;
    int have_info = scalana_run_info_read(dir, &info, err, sizeof err) == 0;
    if (!have_info) an_warn(a, "%s", err);
    if (choose_executable(rd, r, dir, &info, have_info) != 0) {
        if (have_info) scalana_run_info_free(&info);
        return;
    }
    add_library_copies(rd, dir);
    char **files = NULL;
    int nf = prf_run_list_files(dir, &files, err, sizeof err);
    if (nf <= 0) {
        if (nf < 0) an_warn(a, "%s: %s; run skipped", dir, err);
        else an_warn(a, "%s: no profile files (profile-*.sclp); run skipped", dir);
        if (have_info) scalana_run_info_free(&info);
        free(files);
        r->bad = 1;
        return;
    }
    struct prf_file *pf = calloc((size_t)nf, sizeof *pf);
    int *ok = calloc((size_t)nf, sizeof *ok);
    if (!pf || !ok) abort();
    uint64_t total = 0;
    /* world size: the first readable file's (run.json's "processes" is checked against it) */
    uint32_t P = open_profiles(rd, dir, files, nf, pf, ok, &info, have_info, &total);
    if (!P) {
        an_warn(a, "%s: no readable profile; run skipped", dir);
        r->bad = 1;
    } else {
        an_run_init(r, P);
        /* each process of a parallel analysis holds its slice's per-rank vertex arrays
         * (par_combine.c, par_serve.c) */
        if (an_par_size() > 1) an_par_slice(P, &r->slice_lo, &r->slice_n);
        r->unreadable = calloc(P, 1);
        if (!r->unreadable) abort();
        mark_unreadable_files(r, files, nf, ok);
        if (have_info) r->info = info, have_info = 0;
        r->dir = strdup(dir);
        if (r->info.sampler) snprintf(r->sampler, sizeof r->sampler, "%s", r->info.sampler);
        if (r->info.sample_period_ns) r->period_s = r->info.sample_period_ns * 1e-9;
        read_ranks(rd, r, dir, files, nf, pf, ok, total);
        /* (parallel: decided once the slices are combined, in analyse) */
        if (an_par_size() == 1 && !r->bad && !r->present_count) {
            an_warn(a, "%s: no rank could be read; run skipped", dir);
            r->bad = 1;
        }
    }
    for (int k = 0; k < nf; k++) free(files[k]);
    free(files), free(pf), free(ok);
    if (have_info) scalana_run_info_free(&info);
}

/* Checks, before any run is read, that the report can be written to
 * o->out_dir (an existing directory we may write, or creatable below the
 * nearest existing ancestor) and that --exe names an ELF file; normalises
 * trailing slashes of the output path into buf.  Prints an error naming the
 * path and returns 0 when all is well, else the exit status (2: bad flag
 * value, 1: cannot write). */
static int check_paths(struct an_options *o, char *buf, size_t buflen)
{
    struct stat st;
    if (o->exe) {
        unsigned char magic[4] = {0};
        FILE *f = NULL;
        if (stat(o->exe, &st) != 0) {
            fprintf(stderr, "scalana-analyze: error: --exe %s: %s\n", o->exe,
                    errno == ENOENT ? "no such file" : strerror(errno));
            return 2;
        }
        if (!S_ISREG(st.st_mode) || !(f = fopen(o->exe, "rb")) || fread(magic, 1, 4, f) != 4 ||
            memcmp(magic, "\177ELF", 4) != 0) {
            fprintf(stderr, "scalana-analyze: error: --exe %s: not an ELF executable (give the program the "
                            "runs were made with)\n", o->exe);
            if (f) fclose(f);
            return 2;
        }
        fclose(f);
    }
    snprintf(buf, buflen, "%s", o->out_dir && *o->out_dir ? o->out_dir : "scalana-report");
    for (size_t n = strlen(buf); n > 1 && buf[n - 1] == '/'; n--) buf[n - 1] = 0;
    o->out_dir = buf;
    if (stat(buf, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "scalana-analyze: error: cannot write the report to %s: it is a file, not a "
                            "directory (-o names the directory that receives report.json)\n", buf);
            return 1;
        }
        if (access(buf, W_OK | X_OK) != 0) {
            fprintf(stderr, "scalana-analyze: error: cannot write the report to %s: %s\n", buf, strerror(errno));
            return 1;
        }
        char foreign[256];
        if (!o->force && scalana_outdir_is_ours(buf, foreign, sizeof foreign) == 0) {
            fprintf(stderr, "scalana-analyze: error: %s holds files that are not a ScalAna report (%s): not "
                            "overwritten; give another -o DIR, or --force to write there anyway\n", buf, foreign);
            return 2;
        }
        return 0;
    }
    /* it will be created: the nearest existing ancestor must be a writable directory */
    char up[4096];
    snprintf(up, sizeof up, "%s", buf);
    for (;;) {
        char *slash = strrchr(up, '/');
        if (!slash) snprintf(up, sizeof up, ".");
        else if (slash == up) up[1] = 0;
        else *slash = 0;
        if (stat(up, &st) == 0) break;
        if (!strcmp(up, ".") || !strcmp(up, "/")) return 0;
    }
    if (!S_ISDIR(st.st_mode) || access(up, W_OK | X_OK) != 0) {
        fprintf(stderr, "scalana-analyze: error: cannot create %s: %s %s\n", buf, up,
                S_ISDIR(st.st_mode) ? "is not writable" : "is a file, not a directory");
        return 1;
    }
    return 0;
}

/* Reads the runs in dirs into a (through rd): runs with a run.json first, a
 * directory given twice counted once. */
static void read_runs(struct reader *rd, struct an_analysis *a, char **dirs, int ndirs)
{
    char **real = calloc((size_t)ndirs, sizeof *real);
    if (!real) abort();
    for (int i = 0; i < ndirs; i++) real[i] = realpath(dirs[i], NULL);
    /* Runs with a run.json first: a run without one is read with the
     * executable the others name, whatever the order they were given in. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ndirs; i++) {
            char rj[4200];
            snprintf(rj, sizeof rj, "%s/run.json", dirs[i]);
            if ((access(rj, R_OK) == 0) != (pass == 0)) continue;
            int dup = 0;
            for (int k = 0; k < i && real[i] && !dup; k++) dup = real[k] && strcmp(real[k], real[i]) == 0;
            if (dup) {
                an_warn(a, "%s: given twice; counted once", dirs[i]);
                a->runs[i].bad = 1;
                continue;
            }
            read_run(rd, &a->runs[i], dirs[i]);
        }
    for (int i = 0; i < ndirs; i++) free(real[i]);
    free(real);
}

/* Frees what the reader kept: symbolizer, attribution state, PSG. */
static void reader_free(struct reader *rd)
{
    an_sym_free(rd->sym);
    an_attr_ctx_free(&rd->ctx);
    an_psg_free(&rd->psgx);
    psg_graph_free(&rd->psg);
}

/* Data-quality warnings of each process count's representative run: ranks
 * unreadable or missing, intervals not recorded, samples dropped. */
static void warn_runs(struct an_analysis *a)
{
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *r = a->scales[s].rep;
        uint32_t unwritten = r->nmissing - r->nunreadable;
        if (r->nunreadable)
            an_warn(a, "%u process%s (%s): partial run: %u %s unreadable (truncated, corrupt or refused "
                       "profile, see above)", r->P, r->P == 1 ? "" : "es", r->dir, r->nunreadable, r->nunreadable == 1 ? "rank" : "ranks");
        if (unwritten)
            an_warn(a, "%u process%s (%s): %u %s missing (did not write a profile)", r->P,
                    r->P == 1 ? "" : "es", r->dir, unwritten,
                    unwritten == 1 ? "rank" : "ranks");
        if (r->interval_overflow)
            an_warn(a, "%u process%s: %llu computation intervals between MPI calls not recorded (the runtime's "
                       "table of context pairs was full, or a call had no context): times before and after "
                       "MPI calls are partial", r->P, r->P == 1 ? "" : "es", (unsigned long long)r->interval_overflow);
        if (r->samples && r->dropped * 10 > r->samples)
            an_warn(a, "%u process%s: %llu of %llu samples dropped", r->P, r->P == 1 ? "" : "es", (unsigned long long)r->dropped,
                    (unsigned long long)r->samples);
    }
}

/* One analysis: the runs in dirs (one build), read, modelled and reported.
 * Returns the report (json_t *), or NULL with one line on stderr when
 * nothing could be analysed (then *status is the exit status). */
static json_t *analyse(struct an_options *opt, char **dirs, int ndirs, int *status)
{
    struct an_analysis a;
    memset(&a, 0, sizeof a);
    a.opt = opt;
    an_graph_init(&a.g);
    a.runs = calloc((size_t)ndirs, sizeof *a.runs);
    if (!a.runs) abort();
    a.nruns = (uint32_t)ndirs;
    struct reader rd;
    memset(&rd, 0, sizeof rd);
    rd.a = &a;
    rd.dirs = dirs, rd.ndirs = ndirs;
    a.echo_warnings = an_par_rank() == 0;
    read_runs(&rd, &a, dirs, ndirs);
    /* every process must have found the same runs (a shared file system): checked there */
    an_par_combine(&a, rd.ready);
    if (an_par_rank() != 0) {
        /* the other analyzer processes answer process 0's questions about their ranks
         * until it has written the report */
        if (rd.ready) an_par_serve(&a);
        reader_free(&rd);
        an_analysis_free(&a);
        *status = rd.ready ? 0 : 1;
        return rd.ready ? json_object() : NULL;
    }
    a.echo_warnings = 0;
    if (!rd.ready) {
        if (an_par_rank() == 0) /* every analyzer process found the same */
            fprintf(stderr, "scalana-analyze: error: nothing to analyse (every run was skipped, see above)\n");
        an_analysis_free(&a);
        *status = 1;
        return NULL;
    }
    an_group_scales(&a);
    if (!a.nscales) {
        an_par_done(&a);
        fprintf(stderr, "scalana-analyze: error: no valid run left to analyse (see above)\n");
        reader_free(&rd);
        an_analysis_free(&a);
        *status = 1;
        return NULL;
    }
    if (a.nscales == 1) an_warn(&a, "one process count only: imbalance and waits are analysed, scaling is not");
    an_warn_contention(&a);
    an_warn_unsampled(&a);
    an_warn_omp_runtime(&a);
    warn_runs(&a);
    an_graph_sort_children(&a.g);
    an_compute_metrics(&a);
    an_find_root_causes(&a);
    a.phases = an_phases_json(&a);

    json_t *report = an_report_build(&a);
    json_t *what_if = an_whatif_json(&a); /* whatif.c */
    if (what_if) json_object_set_new(report, "what_if", what_if);
    an_par_done(&a); /* the other processes' peak memory, now that they are done */
    an_report_set_peaks(report, &a);
    reader_free(&rd);
    an_analysis_free(&a);
    *status = 0;
    return report;
}

/* Writes report.json (and, unless --no-viewer, the viewer's files) into
 * dir; prints the summary unless quiet.  Returns 0 or the exit status. */
static int write_report(const struct an_options *opt, json_t *report, const char *dir, int quiet)
{
    if (an_par_rank() != 0) return 0; /* process 0 writes the report */
    if (sc_mkdir_p(dir) != 0) {
        fprintf(stderr, "scalana-analyze: error: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char path[4096];
    if (scalana_outdir_mark(dir) != 0) {
        fprintf(stderr, "scalana-analyze: error: cannot write %s/%s: %s\n", dir, SCALANA_REPORT_MARKER, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (json_dump_file(report, path, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) != 0) {
        fprintf(stderr, "scalana-analyze: error: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    int viewer_writes = 0;
#ifdef SCALANA_HAVE_VIEWER
    viewer_writes = !opt->no_viewer; /* the viewer removes the stale ones itself */
#endif
    /* no cause graph is written this time (--no-viewer): all would be stale */
    if (!viewer_writes) sc_remove_cause_graphs(dir, NULL, NULL);
#ifdef SCALANA_HAVE_VIEWER
    if (!opt->no_viewer) {
        struct scalana_viewer_options vo;
        memset(&vo, 0, sizeof vo);
        vo.source_path_from = opt->remap_from;
        vo.source_path_to = opt->remap_to;
        vo.source_path_count = (size_t)opt->remap_count;
        vo.outputs = SCALANA_OUT_ALL & ~opt->no_outputs;
        char err[1024] = "";
        if (scalana_viewer_write(report, dir, &vo, err, sizeof err) != 0)
            fprintf(stderr, "scalana-analyze: viewer: %s (report.json is complete)\n", err);
    }
#endif
    /* with --json, stdout carries the report: the summary goes to stderr */
    if (!quiet) scalana_viewer_print_summary(opt->json_stdout ? stderr : stdout, report, opt->color);
    if (!quiet) fprintf(stderr, "scalana-analyze: wrote %s\n", path);
    return 0;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* --gate judges a change between two builds of one program: runs of one
 * build on both sides (a CI cache mix-up) would always pass, and builds run
 * at different largest counts compare costs of two machines: refused (1,
 * with a line on stderr).  Executables of two names are compared with a
 * warning (a renamed binary may be the same program). */
static int gate_refuses(const json_t *before, const json_t *after)
{
    const json_t *pb = json_object_get(before, "program"), *pa = json_object_get(after, "program");
    const char *bb = json_string_value(json_object_get(pb, "build_id"));
    const char *ba = json_string_value(json_object_get(pa, "build_id"));
    const char *eb = json_string_value(json_object_get(pb, "path"));
    const char *ea = json_string_value(json_object_get(pa, "path"));
    if (bb && ba && *bb && strcmp(bb, ba) == 0) {
        fprintf(stderr, "scalana-analyze: error: --gate: the runs of --before and --after are of one build "
                        "(build-id %.12s): give the runs of the old build and of the new one\n", bb);
        return 1;
    }
    const char *nb = eb ? strrchr(eb, '/') : NULL, *na = ea ? strrchr(ea, '/') : NULL;
    nb = nb ? nb + 1 : eb, na = na ? na + 1 : ea;
    /* costs are compared at each build's largest count: they must be one */
    const json_t *rb = json_object_get(before, "runs"), *ra = json_object_get(after, "runs");
    size_t nb_ = json_array_size(rb), na_ = json_array_size(ra);
    json_int_t Pb = nb_ ? json_integer_value(json_object_get(json_array_get(rb, nb_ - 1), "processes")) : 0;
    json_int_t Pa = na_ ? json_integer_value(json_object_get(json_array_get(ra, na_ - 1), "processes")) : 0;
    if (Pb != Pa) {
        fprintf(stderr, "scalana-analyze: error: --gate: the builds' largest process counts differ (%lld "
                        "before, %lld after): costs are compared there, so run both at the same counts\n",
                (long long)Pb, (long long)Pa);
        return 1;
    }
    /* a renamed binary may still be the same program: said, not refused */
    if (nb && na && strcmp(nb, na) != 0)
        fprintf(stderr, "scalana-analyze: warning: --gate: the runs of --before (%s) and --after (%s) are of "
                        "programs of two names: compared as two builds of one program\n", eb, ea);
    return 0;
}

/* The runs of one program's build are analysed, of two compared: more
 * builds, or two builds of programs of different names (run.json's
 * executable: more likely a mix-up than a fix; --before/--after says so
 * explicitly), are refused with the reason on stderr (returns 1). */
static int builds_refused(const struct an_build *builds, int nbuilds)
{
    if (nbuilds > 2) {
        fprintf(stderr, "scalana-analyze: error: the runs are of %d builds; one build is analysed, two are "
                        "compared (before, after):\n", nbuilds);
        for (int b = 0; b < nbuilds; b++)
            fprintf(stderr, "  build-id %s (%s): %d run%s, first %s\n", *builds[b].build_id ? builds[b].build_id : "?",
                    builds[b].executable, builds[b].ndirs, builds[b].ndirs == 1 ? "" : "s", builds[b].dirs[0]);
        fputs("  give the runs of one build, or of two with --before DIR --after DIR (each repeatable)\n", stderr);
        return 1;
    }
    if (nbuilds == 2 && strcmp(base_name(builds[0].executable), base_name(builds[1].executable)) != 0) {
        fprintf(stderr, "scalana-analyze: error: the runs are of two different programs, %s (%s, %d run%s) and "
                        "%s (%s, %d run%s); give the runs of one program, or compare two builds explicitly "
                        "with --before DIR --after DIR\n",
                builds[0].executable, builds[0].dirs[0], builds[0].ndirs, builds[0].ndirs == 1 ? "" : "s",
                builds[1].executable, builds[1].dirs[0], builds[1].ndirs, builds[1].ndirs == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

/* Two builds compared: each analysed on its own (bv[bn] before, av[an]
 * after; builds: the groups when found by build-id, for the message), the
 * earlier one's report written into OUT/before, the later one's with the
 * comparison (and --predict, --gate) into OUT.  *report: the later report
 * (NULL when an analysis failed); *gate_rc: the gate's verdict once judged.
 * Returns the exit status. */
static int compare_builds(struct an_options *opt, char **bv, int bn, char **av, int an,
                          const struct an_build *builds, json_t **report, int *gate_rc)
{
    int rc = 0;
    if (!opt->quiet && !opt->before_count)
        fprintf(stderr, "scalana-analyze: runs of two builds: before %s (%d run%s, the earlier), after %s (%d "
                        "run%s); each is analysed on its own, then compared\n", builds[0].build_id, bn,
                bn == 1 ? "" : "s", builds[1].build_id, an, an == 1 ? "" : "s");
    if (!opt->quiet) fprintf(stderr, "scalana-analyze: before:\n");
    json_t *before = analyse(opt, bv, bn, &rc);
    json_t *after = NULL;
    if (before) {
        if (!opt->quiet) fprintf(stderr, "scalana-analyze: after:\n");
        after = analyse(opt, av, an, &rc);
    }
    if (before && after) {
        char bdir[4200];
        snprintf(bdir, sizeof bdir, "%s/before", opt->out_dir);
        /* the earlier build's own report, then the later one's with the comparison */
        rc = write_report(opt, before, bdir, 1);
        if (an_par_rank() == 0) json_object_set_new(after, "comparison", an_compare_reports(before, after));
        if (an_par_rank() == 0 && opt->predict) an_predict(after, opt->predict, &opt->th);
        if (an_par_rank() == 0 && opt->gate && gate_refuses(before, after)) rc = 2;
        else if (an_par_rank() == 0 && opt->gate) *gate_rc = an_gate_apply(opt, after);
        if (!rc) rc = write_report(opt, after, opt->out_dir, opt->quiet);
        *report = after;
    } else {
        if (after) json_decref(after);
    }
    if (before) json_decref(before);
    return rc;
}

int main(int argc, char **argv)
{
    struct an_options opt;
    an_options_defaults(&opt);
    int rc = an_options_parse(&opt, argc, argv);
    if (rc != 0) {
        an_options_free(&opt);
        return rc > 0 ? 0 : 2;
    }
    static char out_dir[4096];
    if ((rc = check_paths(&opt, out_dir, sizeof out_dir)) != 0) {
        an_options_free(&opt);
        return rc;
    }
    /* under mpirun/srun with N > 1: N analyzer processes share the ranks (par.h) */
    if (an_par_start() != 0) {
        an_options_free(&opt);
        return 1;
    }
    if (an_par_rank() != 0) opt.quiet = 1, opt.progress = 0, opt.json_stdout = 0;
    /* the run directories: named, or found in the studies named */
    char **dirs = NULL, **bdirs = NULL, **adirs = NULL;
    int ndirs = 0, nb = 0, na = 0;
    struct an_build *builds = NULL;
    int nbuilds = 0;
    if (opt.before_count) {
        for (int i = 0; i < opt.before_count; i++) an_expand_run_dirs(opt.before_dirs[i], &bdirs, &nb);
        for (int i = 0; i < opt.after_count; i++) an_expand_run_dirs(opt.after_dirs[i], &adirs, &na);
    } else {
        for (int i = 0; i < opt.run_dir_count; i++) an_expand_run_dirs(opt.run_dirs[i], &dirs, &ndirs);
        if (!opt.exe) nbuilds = an_group_builds(dirs, ndirs, &builds);
        if (builds_refused(builds, nbuilds)) {
            an_builds_free(builds, nbuilds);
            free_list(dirs, ndirs);
            an_options_free(&opt);
            an_par_end();
            return 2;
        }
    }
    json_t *report = NULL;
    int gate_rc = -1; /* --gate: the gate's exit status once judged (gate.c) */
    if (opt.gate && !opt.before_count && nbuilds != 2) {
        fputs("scalana-analyze: error: --gate compares two builds: give the runs of both (--before DIR... "
              "--after DIR...)\n", stderr);
        an_builds_free(builds, nbuilds);
        free_list(dirs, ndirs);
        an_options_free(&opt);
        an_par_end();
        return 2;
    }
    if (opt.before_count || nbuilds == 2) {
        char **bv = opt.before_count ? bdirs : builds[0].dirs, **av = opt.before_count ? adirs : builds[1].dirs;
        int bn = opt.before_count ? nb : builds[0].ndirs, an = opt.before_count ? na : builds[1].ndirs;
        rc = compare_builds(&opt, bv, bn, av, an, builds, &report, &gate_rc);
    } else {
        report = analyse(&opt, dirs, ndirs, &rc);
        if (report && opt.predict && an_par_rank() == 0) an_predict(report, opt.predict, &opt.th);
        if (report) rc = write_report(&opt, report, opt.out_dir, opt.quiet);
    }
    if (report && gate_rc >= 0 && !opt.quiet) /* the verdict last, after the summary */
        an_gate_print(opt.json_stdout ? stderr : stdout, json_object_get(report, "gate"));
    if (report && !rc && opt.json_stdout)
        json_dumpf(report, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6)), fputc('\n', stdout);
    if (report) json_decref(report);
    if (opt.gate) rc = rc ? 2 : gate_rc < 0 ? 0 : gate_rc; /* 2 stays for errors */
    an_builds_free(builds, nbuilds);
    free_list(dirs, ndirs), free_list(bdirs, nb), free_list(adirs, na);
    an_options_free(&opt);
    an_par_end();
    return rc;
}
