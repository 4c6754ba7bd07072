/* dwarf.c — the functions of a binary and their inline scopes from DWARF
 * (libdw): each subprogram with code, the inlined subroutines inside it
 * with their call sites and address ranges, named as the analyzer's
 * symbolizer names frames, so that recovered vertices and sampled frames
 * meet. */
#include "binstruct.h"
#include "core/graph.h"
#include "core/types.h"
#include "read/demangle.h"
#include "read/symbolize.h"
#include "scalana/psg_format.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>


/* The display name: DW_AT_name through the abstract origin. */
static const char *source_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(die, DW_AT_name, &a)) n = dwarf_formstring(&a);
    return n;
}

/* A file name of the CU made absolute against DW_AT_comp_dir (as the
 * symbolizer does: an_path_absolute). */
static const char *absolute(struct an_strpool *pool, Dwarf_Die *cu, const char *name)
{
    Dwarf_Attribute a;
    const char *dir = dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
    return an_path_absolute(pool, dir, name);
}

/* File number w of the CU's line-table file list. */
static const char *cu_file(struct an_strpool *pool, Dwarf_Die *cu, Dwarf_Word w)
{
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || w >= nfiles) return an_intern(pool, "");
    return absolute(pool, cu, dwarf_filesrc(files, w, NULL, NULL));
}

static uint32_t language_of(Dwarf_Die *cu)
{
    Dwarf_Attribute a;
    Dwarf_Word l;
    if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &l) != 0) return PSG_LANG_UNKNOWN;
    switch (l) {
    case DW_LANG_C: case DW_LANG_C89: case DW_LANG_C99: case DW_LANG_C11: return PSG_LANG_C;
    case DW_LANG_C_plus_plus: case DW_LANG_C_plus_plus_03: case DW_LANG_C_plus_plus_11:
    case DW_LANG_C_plus_plus_14: return PSG_LANG_CXX;
    case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95: case DW_LANG_Fortran03:
    case DW_LANG_Fortran08: return PSG_LANG_FORTRAN;
    default: return l == 0x1d /* C17 */ ? PSG_LANG_C : l == 0x21 /* C++17 */ || l == 0x2a ? PSG_LANG_CXX
                                                                                          : PSG_LANG_UNKNOWN;
    }
}

static int add_scope(struct bs_func *f, uint32_t *cap, struct bs_scope **out)
{
    if (f->nscopes == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        struct bs_scope *p = realloc(f->scope, *cap * sizeof *p);
        if (!p) return -1;
        f->scope = p;
    }
    *out = &f->scope[f->nscopes++];
    memset(*out, 0, sizeof **out);
    return 0;
}

/* Fills s from die (a subprogram or inlined subroutine). */
static int fill_scope(struct an_strpool *pool, Dwarf_Die *cu, Dwarf_Die *die, struct bs_scope *s, uint32_t lang)
{
    (void)lang; /* C++ is told by its names, whatever the CU's language */
    /* the symbolizer's name for the frames of this function (an_die_function_name) */
    char qual[512];
    const char *n = an_die_function_name(die, qual, sizeof qual), *d = source_name(die);
    s->name = an_intern(pool, n ? n : "");
    /* C++ reads as its qualified name, as the pass shows it ("Domain::relax",
     * not DW_AT_name's "relax"): the demangled linkage name without return
     * type and arguments, or the name qualified from the DWARF scopes */
    if (n && n[0] == '_' && n[1] == 'Z')
        s->display = an_short_function(pool, an_demangle(pool, n));
    else if (n && n == qual)
        s->display = s->name;
    else
        s->display = an_intern(pool, d ? d : (n ? n : ""));
    Dwarf_Attribute a;
    Dwarf_Word w;
    s->decl_file = an_intern(pool, "");
    if (dwarf_attr_integrate(die, DW_AT_decl_file, &a) && dwarf_formudata(&a, &w) == 0) {
        /* the file number counts in the line table of the CU that holds the
         * attribute: with -flto the abstract origin is often in another CU */
        Dwarf_Die owner;
        Dwarf_Die *fcu = a.cu && dwarf_cu_die(a.cu, &owner, NULL, NULL, NULL, NULL, NULL, NULL) ? &owner : cu;
        s->decl_file = cu_file(pool, fcu, w);
    }
    int line = 0;
    s->decl_line = dwarf_decl_line(die, &line) == 0 && line > 0 ? (uint32_t)line : 0;
    s->call_file = dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 ? cu_file(pool, cu, w)
                                                                                       : an_intern(pool, "");
    if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0) s->call_line = (uint32_t)w;
    if (dwarf_attr(die, DW_AT_call_column, &a) && dwarf_formudata(&a, &w) == 0) s->call_col = (uint32_t)w;
    Dwarf_Addr base, lo, hi;
    uint32_t cap = 0;
    s->entry = UINT64_MAX;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
        if (hi <= lo) continue;
        if (s->nranges == cap) {
            cap = cap ? cap * 2 : 2;
            void *p = realloc(s->ranges, cap * sizeof *s->ranges);
            if (!p) return -1;
            s->ranges = p;
        }
        s->ranges[s->nranges][0] = lo, s->ranges[s->nranges][1] = hi;
        s->nranges++;
        if (lo < s->entry) s->entry = lo;
    }
    Dwarf_Addr epc;
    if (dwarf_entrypc(die, &epc) == 0) s->entry = epc;
    return 0;
}

/* The inlined subroutines below die (through lexical blocks), as scopes of f. */
static int inlined(struct an_strpool *pool, Dwarf_Die *cu, Dwarf_Die *die, struct bs_func *f, uint32_t *cap,
                   uint32_t parent, uint32_t depth, uint32_t lang)
{
    Dwarf_Die c;
    if (depth > 64 || dwarf_child(die, &c) != 0) return 0;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_inlined_subroutine) {
            struct bs_scope *s;
            if (add_scope(f, cap, &s) != 0) return -1;
            uint32_t me = f->nscopes - 1;
            if (fill_scope(pool, cu, &c, &f->scope[me], lang) != 0) return -1;
            f->scope[me].parent = parent, f->scope[me].depth = f->scope[parent].depth + 1;
            if (!f->scope[me].nranges) { f->nscopes--; continue; }
            if (inlined(pool, cu, &c, f, cap, me, depth + 1, lang) != 0) return -1;
        } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block) {
            if (inlined(pool, cu, &c, f, cap, parent, depth + 1, lang) != 0) return -1;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
    return 0;
}

/* Adds the functions below die; outer_file is the declaration file of the
 * subprogram around die ("" at file scope). */
static int walk(struct bs_dwarf *d, Dwarf_Die *cu, Dwarf_Die *die, size_t *fcap, uint32_t lang, int depth,
                const char *outer_file)
{
    Dwarf_Die c;
    if (depth > 32 || dwarf_child(die, &c) != 0) return 0;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_subprogram) {
            Dwarf_Addr base, lo, hi;
            const char *of = outer_file; /* the declaration file for what is nested in it */
            if (dwarf_ranges(&c, 0, &base, &lo, &hi) > 0) {
                if (d->nf == *fcap) {
                    *fcap = *fcap ? *fcap * 2 : 64;
                    struct bs_func *p = realloc(d->f, *fcap * sizeof *p);
                    if (!p) return -1;
                    d->f = p;
                }
                struct bs_func *f = &d->f[d->nf++];
                memset(f, 0, sizeof *f);
                f->cu = cu, f->language = lang;
                uint32_t cap = 0;
                struct bs_scope *s;
                if (add_scope(f, &cap, &s) != 0 || fill_scope(d->pool, cu, &c, s, lang) != 0) return -1;
                f->scope[0].parent = UINT32_MAX;
                /* gcc's outlined OpenMP region body (main._omp_fn.0, artificial)
                 * has no declaration: its lines are those of the function
                 * holding the pragma, in that function's file */
                if (!*s->decl_file && outer_file && *outer_file) s->decl_file = outer_file;
                of = s->decl_file;
                if (inlined(d->pool, cu, &c, f, &cap, 0, 0, lang) != 0) return -1;
            } else {
                /* no code of its own: the abstract instance of a function
                 * inlined everywhere (a static helper with a parallel region
                 * that gcc inlined into main); its region body, nested here,
                 * is still its code, in its file */
                Dwarf_Attribute a;
                Dwarf_Word w;
                if (dwarf_attr_integrate(&c, DW_AT_decl_file, &a) && dwarf_formudata(&a, &w) == 0)
                    of = cu_file(d->pool, cu, w);
            }
            if (walk(d, cu, &c, fcap, lang, depth + 1, of) != 0) return -1; /* contained procedures */
        } else if (tag == DW_TAG_lexical_block) {
            /* gcc nests an OpenMP region's outlined body in a lexical block
             * of the function holding the pragma */
            if (walk(d, cu, &c, fcap, lang, depth + 1, outer_file) != 0) return -1;
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                   tag == DW_TAG_union_type || tag == DW_TAG_module) {
            if (walk(d, cu, &c, fcap, lang, depth + 1, outer_file) != 0) return -1;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
    return 0;
}

static int cmp_range(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Whether addr lies in one of the sorted ranges r[0..n) (each [lo, hi); ranges
 * of distinct functions do not overlap, so the last start at or before addr
 * decides, with a few steps back for nested or duplicate entries). */
static int covered(const uint64_t (*r)[2], size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r[mid][0] <= addr) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo, back = 0; k-- > 0 && back < 16; back++)
        if (addr < r[k][1]) return 1;
    return 0;
}

int bs_dwarf_functions(const struct bs_elf *e, struct an_strpool *pool, struct bs_dwarf *out)
{
    memset(out, 0, sizeof *out);
    out->pool = pool;
    /* DWARF in the file itself, else a separate debug file (.gnu_debuglink
     * beside it or in .debug/, /usr/lib/debug/.build-id/): libdwfl's
     * standard search, the one the symbolizer uses for samples */
    Dwarf *dw = dwarf_begin_elf((Elf *)e->elf, DWARF_C_READ, NULL);
    out->dw = dw;
    if (!dw && e->path) {
        static const Dwfl_Callbacks cb = {
            .find_elf = dwfl_build_id_find_elf,
            .find_debuginfo = dwfl_standard_find_debuginfo,
            .section_address = dwfl_offline_section_address,
        };
        Dwfl *dwfl = dwfl_begin(&cb);
        Dwfl_Module *m = dwfl ? dwfl_report_elf(dwfl, e->path, e->path, -1, 0, false) : NULL;
        if (dwfl) dwfl_report_end(dwfl, NULL, NULL);
        Dwarf_Addr bias = 0;
        dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
        if (dw && bias == 0) out->dwfl = dwfl;
        else if (dwfl) dwfl_end(dwfl), dw = NULL;
    }
    size_t fcap = 0;
    if (dw) {
        size_t ccap = 0, hsize;
        Dwarf_Off off = 0, next;
        while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
            if (out->ncus == ccap) {
                ccap = ccap ? ccap * 2 : 16;
                void *p = realloc(out->cus, ccap * sizeof(Dwarf_Die));
                if (!p) return -1;
                out->cus = p;
            }
            if (dwarf_offdie(dw, off + hsize, &((Dwarf_Die *)out->cus)[out->ncus])) out->ncus++;
            off = next;
        }
        /* CU pointers are taken after the array stops moving */
        for (size_t k = 0; k < out->ncus; k++) {
            Dwarf_Die *cu = &((Dwarf_Die *)out->cus)[k];
            if (walk(out, cu, cu, &fcap, language_of(cu), 0, "") != 0) return -1;
        }
    }
    /* A function split into hot and cold parts (gcc's `main` and `main.cold`)
     * has only DW_AT_ranges, and libdw's entry is its lowest address, often
     * the cold part: the entry is the range start that the symbol table
     * names without a ".cold" suffix. */
    for (size_t i = 0; i < out->nf; i++) {
        struct bs_scope *s = &out->f[i].scope[0];
        const struct bs_sym *y = bs_sym_at(e->funcs, e->nfuncs, s->entry);
        if (s->nranges < 2 || (y && !strstr(y->name, ".cold"))) continue;
        for (uint32_t r = 0; r < s->nranges; r++) {
            y = bs_sym_at(e->funcs, e->nfuncs, s->ranges[r][0]);
            if (y && !strstr(y->name, ".cold")) {
                s->entry = s->ranges[r][0];
                break;
            }
        }
    }
    /* functions the symbol table knows and DWARF does not (no -g, assembly, libc's start files) */
    size_t nr = 0;
    for (size_t i = 0; i < out->nf; i++) nr += out->f[i].scope[0].nranges;
    uint64_t (*ranges)[2] = malloc((nr + 1) * sizeof *ranges);
    if (!ranges) return -1;
    nr = 0;
    for (size_t i = 0; i < out->nf; i++)
        for (uint32_t r = 0; r < out->f[i].scope[0].nranges; r++)
            ranges[nr][0] = out->f[i].scope[0].ranges[r][0], ranges[nr][1] = out->f[i].scope[0].ranges[r][1], nr++;
    qsort(ranges, nr, sizeof *ranges, cmp_range);
    for (size_t i = 0; i < e->nfuncs; i++) {
        const struct bs_sym *y = &e->funcs[i];
        if (!y->size || (i && e->funcs[i - 1].addr == y->addr) || covered((const uint64_t (*)[2])ranges, nr, y->addr))
            continue;
        if (out->nf == fcap) {
            fcap = fcap ? fcap * 2 : 64;
            struct bs_func *p = realloc(out->f, fcap * sizeof *p);
            if (!p) { free(ranges); return -1; }
            out->f = p;
        }
        struct bs_func *f = &out->f[out->nf++];
        memset(f, 0, sizeof *f);
        uint32_t cap = 0;
        struct bs_scope *s;
        if (add_scope(f, &cap, &s) != 0) { free(ranges); return -1; }
        s->parent = UINT32_MAX;
        s->name = s->display = an_intern(pool, y->name);
        s->decl_file = s->call_file = an_intern(pool, "");
        s->entry = y->addr;
        s->ranges = malloc(sizeof *s->ranges);
        if (!s->ranges) { free(ranges); return -1; }
        s->ranges[0][0] = y->addr, s->ranges[0][1] = y->addr + y->size;
        s->nranges = 1;
    }
    free(ranges);
    return 0;
}

void bs_dwarf_free(struct bs_dwarf *d)
{
    for (size_t i = 0; i < d->nf; i++) {
        for (uint32_t k = 0; k < d->f[i].nscopes; k++) free(d->f[i].scope[k].ranges);
        free(d->f[i].scope);
    }
    free(d->f);
    free(d->cus);
    if (d->dwfl) dwfl_end(d->dwfl); /* owns its Dwarf */
    else if (d->dw) dwarf_end(d->dw);
    memset(d, 0, sizeof *d);
}

int bs_dwarf_line(const struct bs_func *f, uint64_t addr, const char **base, uint32_t *line, uint32_t *col,
                  uint64_t *row_addr)
{
    if (!f->cu) return -1;
    Dwarf_Line *l = dwarf_getsrc_die((Dwarf_Die *)f->cu, addr);
    int ln = 0, cl = 0;
    if (!l || dwarf_lineno(l, &ln) != 0 || ln <= 0) return -1;
    Dwarf_Addr ra = addr;
    if (row_addr) *row_addr = dwarf_lineaddr(l, &ra) == 0 ? ra : addr;
    dwarf_linecol(l, &cl);
    const char *src = dwarf_linesrc(l, NULL, NULL);
    const char *b = src ? strrchr(src, '/') : NULL;
    *base = b ? b + 1 : (src ? src : "");
    *line = (uint32_t)ln, *col = cl > 0 ? (uint32_t)cl : 0;
    return 0;
}

const char *bs_dwarf_file(const struct bs_dwarf *d, const struct bs_func *f, uint64_t addr)
{
    Dwarf_Line *l = f->cu ? dwarf_getsrc_die((Dwarf_Die *)f->cu, addr) : NULL;
    const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
    return src ? absolute(d->pool, (Dwarf_Die *)f->cu, src) : an_intern(d->pool, "");
}

void bs_dwarf_stmt_lines(const struct bs_func *f, const struct bs_insn *ins, size_t n, const char *const *base,
                         uint32_t *stmt, uint32_t *stmt0)
{
    memset(stmt, 0, n * sizeof *stmt);
    memset(stmt0, 0, n * sizeof *stmt0);
    Dwarf_Lines *lines = NULL;
    size_t nl = 0;
    if (!f->cu || !n || dwarf_getsrclines((Dwarf_Die *)f->cu, &lines, &nl) != 0) return;
    /* the rows are sorted by address: the first one at or after ins[0] */
    size_t lo = 0, hi = nl;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        Dwarf_Addr a = 0;
        Dwarf_Line *l = dwarf_onesrcline(lines, mid);
        if (!l || dwarf_lineaddr(l, &a) != 0 || a < ins[0].addr) lo = mid + 1;
        else hi = mid;
    }
    /* the zero-length rows at one address come before the row with its
     * code: kept until that row tells the line of the code */
    uint32_t pend[16], np = 0;
    size_t i = 0;
    for (size_t k = lo; k < nl; k++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, k), *next = k + 1 < nl ? dwarf_onesrcline(lines, k + 1) : NULL;
        Dwarf_Addr a = 0, na = 0;
        if (!l || dwarf_lineaddr(l, &a) != 0) continue;
        while (i < n && ins[i].addr + ins[i].size <= a) i++, np = 0;
        if (i >= n) break;
        if (a < ins[i].addr) continue; /* between the function's ranges */
        int zero = next && dwarf_lineaddr(next, &na) == 0 && na == a; /* the next row has the same address */
        bool is_stmt = false, end = false;
        int ln = 0;
        const char *src = dwarf_linesrc(l, NULL, NULL);
        const char *b = src ? strrchr(src, '/') : NULL;
        b = b ? b + 1 : (src ? src : "");
        int ok = dwarf_linebeginstatement(l, &is_stmt) == 0 && is_stmt &&
                 !(dwarf_lineendsequence(l, &end) == 0 && end) && dwarf_lineno(l, &ln) == 0 && ln > 0 && base[i] &&
                 !strcmp(b, base[i]);
        if (zero) {
            if (ok && np < 16) pend[np++] = (uint32_t)ln;
            continue;
        }
        int cover = 0;
        if (dwarf_lineno(l, &cover) != 0) cover = 0;
        if (ok && (!stmt[i] || (uint32_t)ln < stmt[i])) stmt[i] = (uint32_t)ln;
        for (uint32_t m = 0; m < np; m++)
            if (pend[m] >= (uint32_t)cover && (!stmt0[i] || pend[m] < stmt0[i])) stmt0[i] = pend[m];
        np = 0;
    }
}
