/* symbolize.c — module-relative addresses to source with elfutils libdw:
 * function (linkage name), file, line, column and the inline chain, through
 * one Dwfl per module (reported at bias 0, so a module-relative address is
 * the ELF virtual address).  Results are cached per (module, address). */
#include "read/symbolize.h"
#include "core/graph.h"
#include "core/types.h"
#include "sc_alloc.h"
#include "sc_hash.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

struct sym_module {
    const char *path, *build_id; /* interned, as the profile names them */
    Dwfl *dwfl;
    Dwfl_Module *mod;
    int is_exe;
    int no_dwarf; /* the module has no DWARF at all: names from its symbol table */
    int is_app; /* the executable or one of the application's own shared libraries */
    Dwarf_Die *cus; size_t ncus; int cus_done; /* every CU, for binaries without .debug_aranges */
    struct fn_range *fns; size_t nfns; int fns_done; /* every subprogram's address ranges, sorted */
    struct fn_lines *lines; size_t lines_n, lines_cap; /* source lines of functions */
    struct sc_hash lines_index;                        /* indices into lines, by DIE */
};

/* The source lines of a function's own code (a subprogram or one inlined
 * instance), memoised by its DIE's global offset. */
struct fn_lines { Dwarf_Off die; uint32_t first, last; };

/* One address range of a subprogram DIE (global .debug_info offset). */
struct fn_range { Dwarf_Addr lo, hi; Dwarf_Off die; };

struct cache_entry {
    uint64_t address;
    uint32_t module;
    struct an_resolved r;
};

struct an_symbolizer {
    struct an_strpool *pool;
    const char *exe_path, *exe_build_id;
    struct sym_module *mods; uint32_t nmods, capmods;
    struct cache_entry *cache; size_t cache_n, cache_cap;
    struct sc_hash cache_index; /* indices into cache, by (module, address) */
    const char **lib_dirs; uint32_t nlib_dirs; /* runs' exe/lib: kept copies of shared libraries */
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void hexify(const unsigned char *b, int n, char *out, size_t outlen)
{
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < outlen; i++) k += (size_t)snprintf(out + k, outlen - k, "%02x", b[i]);
    out[k] = 0;
}

/* A libdwfl session holding only the ELF file path (*m NULL when it is not
 * one), or NULL when libdwfl cannot start; the caller ends it. */
static Dwfl *open_elf(const char *path, Dwfl_Module **m)
{
    Dwfl *d = dwfl_begin(&callbacks);
    if (!d) return NULL;
    *m = dwfl_report_elf(d, path, path, -1, 0, false);
    dwfl_report_end(d, NULL, NULL);
    return d;
}

int an_elf_build_id(const char *path, char *out, size_t outlen)
{
    Dwfl_Module *m;
    Dwfl *d = open_elf(path, &m);
    if (!d) return -1;
    int rc = -1;
    if (m) {
        const unsigned char *bits;
        GElf_Addr vaddr;
        int n = dwfl_module_build_id(m, &bits, &vaddr);
        if (n > 0) hexify(bits, n, out, outlen), rc = 0;
        else if (outlen) out[0] = 0, rc = 0;
    }
    dwfl_end(d);
    return rc;
}

int an_elf_has_debug_info(const char *path)
{
    Dwfl_Module *m;
    Dwfl *d = open_elf(path, &m);
    if (!d) return -1;
    int rc = -1;
    if (m) {
        Dwarf_Addr bias;
        rc = dwfl_module_getdwarf(m, &bias) != NULL;
    }
    dwfl_end(d);
    return rc;
}

struct an_symbolizer *an_sym_new(struct an_strpool *pool, const char *exe_path,
                                 const char *exe_build_id)
{
    struct an_symbolizer *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->pool = pool;
    s->exe_path = an_intern(pool, exe_path ? exe_path : "");
    s->exe_build_id = an_intern(pool, exe_build_id ? exe_build_id : "");
    return s;
}

void an_sym_add_library_dir(struct an_symbolizer *s, const char *dir)
{
    dir = an_intern(s->pool, dir);
    for (uint32_t i = 0; i < s->nlib_dirs; i++)
        if (s->lib_dirs[i] == dir) return;
    const char **v = realloc(s->lib_dirs, (s->nlib_dirs + 1) * sizeof *v);
    if (!v) abort();
    s->lib_dirs = v;
    v[s->nlib_dirs++] = dir;
}

/* Whether file is readable ELF with build-id id ("": any). */
static int file_has_build_id(const char *file, const char *id)
{
    char got[128] = "";
    return access(file, R_OK) == 0 && an_elf_build_id(file, got, sizeof got) == 0 && (!*id || !strcmp(got, id));
}

void an_sym_free(struct an_symbolizer *s)
{
    if (!s) return;
    free(s->lib_dirs);
    for (uint32_t i = 0; i < s->nmods; i++) {
        if (s->mods[i].dwfl) dwfl_end(s->mods[i].dwfl);
        free(s->mods[i].cus);
        free(s->mods[i].fns);
        free(s->mods[i].lines);
        sc_hash_free(&s->mods[i].lines_index);
    }
    free(s->mods);
    for (size_t i = 0; i < s->cache_n; i++) free(s->cache[i].r.frames);
    free(s->cache);
    sc_hash_free(&s->cache_index);
    free(s);
}

/* A shared library of the application's own (its frames with DWARF are
 * application code, like the executable's): not in a system library
 * directory, not an MPI library, not the runtime.  Libraries installed with
 * the system (MPI, libc, their -dbg DWARF included) stay library frames. */
static int app_library(const char *path)
{
    static const char *const sysdirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/"};
    static const char *const libs[] = {"libmpi", "libpmpi", "libmpich", "libopen-", "libscalana", "libucp",
                                       "libucs", "libuct", "libfabric", "libpsm", "libhwloc", "libpmix",
                                       "libgfortran", "libstdc++", "libgomp", "libomp", "ld-linux"};
    if (!path || path[0] != '/')
        return 0;
    for (size_t i = 0; i < sizeof sysdirs / sizeof sysdirs[0]; i++)
        if (strncmp(path, sysdirs[i], strlen(sysdirs[i])) == 0)
            return 0;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (strncmp(b, libs[i], strlen(libs[i])) == 0)
            return 0;
    return 1;
}

uint32_t an_sym_module(struct an_symbolizer *s, const char *path, const char *build_id,
                       char *warn, size_t warnlen)
{
    if (warn && warnlen) warn[0] = 0;
    path = an_intern(s->pool, path);
    build_id = an_intern(s->pool, build_id);
    for (uint32_t i = 0; i < s->nmods; i++)
        if (s->mods[i].path == path && s->mods[i].build_id == build_id) return i;
    if (s->nmods == s->capmods) {
        s->capmods = s->capmods ? s->capmods * 2 : 16;
        struct sym_module *m = realloc(s->mods, s->capmods * sizeof *m);
        if (!m) abort();
        s->mods = m;
    }
    struct sym_module *m = &s->mods[s->nmods];
    memset(m, 0, sizeof *m);
    m->path = path, m->build_id = build_id;
    m->is_exe = (*build_id && build_id == s->exe_build_id) ||
                (*s->exe_path && strcmp(path, s->exe_path) == 0);
    m->is_app = m->is_exe || app_library(path);
    const char *file = m->is_exe && *s->exe_path ? s->exe_path : path;
    if (!m->is_exe && *build_id && s->nlib_dirs && !file_has_build_id(file, build_id)) {
        /* rebuilt or gone since the run: a run's own copy of it, by file name and build-id */
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char alt[4096];
        for (uint32_t k = 0; k < s->nlib_dirs; k++)
            if ((size_t)snprintf(alt, sizeof alt, "%s/%s", s->lib_dirs[k], base) < sizeof alt &&
                file_has_build_id(alt, build_id)) {
                file = an_intern(s->pool, alt);
                break;
            }
    }
    if (*file && access(file, R_OK) == 0) {
        m->dwfl = dwfl_begin(&callbacks);
        if (m->dwfl) {
            m->mod = dwfl_report_elf(m->dwfl, file, file, -1, 0, false);
            dwfl_report_end(m->dwfl, NULL, NULL);
        }
        if (m->mod && *build_id) {
            const unsigned char *bits;
            GElf_Addr vaddr;
            char hex[128];
            int n = dwfl_module_build_id(m->mod, &bits, &vaddr);
            hexify(bits, n > 0 ? n : 0, hex, sizeof hex);
            if (n > 0 && strcmp(hex, build_id) != 0) {
                if (warn) snprintf(warn, warnlen, "%s: build-id %s differs from the profile's %s; its frames stay unresolved",
                                   file, hex, build_id);
                m->mod = NULL;
            }
        }
        if (m->mod && m->is_exe) { /* only the executable's functions become the program's */
            Dwarf_Addr bias;
            m->no_dwarf = dwfl_module_getdwarf(m->mod, &bias) == NULL;
        }
        if (!m->mod && warn && !warn[0])
            snprintf(warn, warnlen, "%s: cannot read its ELF/DWARF (%s); its frames stay unresolved",
                     file, dwfl_errmsg(-1));
    } else if (warn && *file) {
        snprintf(warn, warnlen, "%s: not found; its frames stay unresolved", file);
    }
    return s->nmods++;
}

/* The DIE that declares die's function: DW_AT_abstract_origin and
 * DW_AT_specification followed to their end (an inlined instance -> the
 * abstract subprogram -> the declaration inside its class). */
static Dwarf_Die *declaring_die(Dwarf_Die *die, Dwarf_Die *mem)
{
    Dwarf_Die *d = die;
    for (int hops = 0; hops < 8; hops++) {
        Dwarf_Attribute a;
        if (!dwarf_attr(d, DW_AT_abstract_origin, &a) && !dwarf_attr(d, DW_AT_specification, &a)) break;
        if (!dwarf_formref_die(&a, mem)) break;
        d = mem;
    }
    return d;
}

const char *an_die_function_name(void *die_, char *buf, size_t buflen)
{
    Dwarf_Die *die = die_;
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
        n = dwarf_formstring(&a);
    if (n) return n;
    if (!(n = dwarf_diename(die))) return NULL;
    /* No linkage name: gcc gives none to a C++ member function that exists
     * only inlined (Domain::relax at -O2, RowSweep<double>::operator()); its
     * declaration's enclosing classes and namespaces give the qualified name
     * a linkage name would demangle to (without the argument list). */
    Dwarf_Die mem, *decl = declaring_die(die, &mem), *scopes = NULL;
    int n_scopes = dwarf_getscopes_die(decl, &scopes);
    size_t len = 0;
    buf[0] = 0;
    /* a lambda's operator() (its class has no name) reads as the pass names
     * it: "lambda at f.cpp:53 in main" */
    if (n_scopes > 1 && !strcmp(n, "operator()") && !dwarf_diename(&scopes[1]) &&
        (dwarf_tag(&scopes[1]) == DW_TAG_class_type || dwarf_tag(&scopes[1]) == DW_TAG_structure_type)) {
        /* gcc's operator() of a lambda is artificial, without a position:
         * the closure type's is the lambda's */
        const char *file = dwarf_decl_file(decl), *outer = NULL;
        int line = 0;
        if (!file || dwarf_decl_line(decl, &line) != 0 || line <= 0) {
            file = dwarf_decl_file(&scopes[1]);
            if (dwarf_decl_line(&scopes[1], &line) != 0) line = 0;
        }
        for (int k = 2; k < n_scopes && !outer; k++)
            if (dwarf_tag(&scopes[k]) == DW_TAG_subprogram) outer = dwarf_diename(&scopes[k]);
        const char *base = file ? strrchr(file, '/') : NULL;
        int w = snprintf(buf, buflen, "lambda at %s:%d%s%s", base ? base + 1 : (file ? file : "?"), line,
                         outer ? " in " : "", outer ? outer : "");
        free(scopes);
        return w > 0 && (size_t)w < buflen && file && line > 0 ? buf : n;
    }
    for (int k = n_scopes - 1; k >= 1; k--) {   /* scopes[0] is decl, the last the CU */
        int tag = dwarf_tag(&scopes[k]);
        if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
            tag != DW_TAG_union_type)
            continue;
        const char *sn = dwarf_diename(&scopes[k]);
        if (!sn && tag != DW_TAG_namespace) sn = "(unnamed type)";
        int w = snprintf(buf + len, buflen - len, "%s::", sn ? sn : "(anonymous namespace)");
        if (w < 0 || (size_t)w >= buflen - len) {
            free(scopes);
            return n;
        }
        len += (size_t)w;
    }
    free(scopes);
    if (!len) return n;
    if ((size_t)snprintf(buf + len, buflen - len, "%s", n) >= buflen - len) return n;
    return buf;
}

/* Joins dir and name and folds "." and ".." lexically (read/symbolize.h). */
const char *an_path_absolute(struct an_strpool *pool, const char *dir, const char *name)
{
    if (!name || !*name) return an_intern(pool, "");
    char buf[4096], out[4096];
    if (name[0] == '/' || !dir || dir[0] != '/')
        snprintf(buf, sizeof buf, "%s", name);
    else if ((size_t)snprintf(buf, sizeof buf, "%s/%s", dir, name) >= sizeof buf)
        return an_intern(pool, name);
    if (buf[0] != '/') return an_intern(pool, buf);
    size_t n = 0;
    out[0] = 0;
    for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, ".")) continue;
        if (!strcmp(c, "..")) {
            while (n > 0 && out[n - 1] != '/') n--;
            if (n > 0) n--; /* drop the slash: "/a/b" -> "/a" */
            out[n] = 0;
            continue;
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "/%s", c);
        if (n >= sizeof out) return an_intern(pool, name);
    }
    return an_intern(pool, n ? out : "/");
}

/* A DWARF file name made absolute against the CU's DW_AT_comp_dir (a
 * relative name: `mpicc ../solver.c` records "../solver.c"); NULL stays
 * NULL. */
static const char *absolute_file(struct an_symbolizer *s, Dwarf_Die *cu, const char *name)
{
    Dwarf_Attribute a;
    const char *dir = cu && dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
    return name ? an_path_absolute(s->pool, dir, name) : NULL;
}

static void call_site_of(Dwarf_Die *cu, Dwarf_Die *inl, const char **file, uint32_t *line, uint32_t *col)
{
    Dwarf_Attribute a;
    Dwarf_Word w;
    *file = NULL, *line = 0, *col = 0;
    if (dwarf_attr(inl, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0) {
        Dwarf_Files *files;
        size_t nfiles;
        if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles)
            *file = dwarf_filesrc(files, w, NULL, NULL);
    }
    if (dwarf_attr(inl, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0) *line = (uint32_t)w;
    if (dwarf_attr(inl, DW_AT_call_column, &a) && dwarf_formudata(&a, &w) == 0) *col = (uint32_t)w;
}

/* The CU holding addr.  dwfl_module_addrdie needs .debug_aranges, which
 * clang does not emit: fall back to the CUs' own ranges (dwarf_haspc). */
static Dwarf_Die *find_cu(struct sym_module *m, uint64_t addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, bias);
    if (cu) return cu;
    Dwarf *dw = dwfl_module_getdwarf(m->mod, bias);
    if (!dw) return NULL;
    if (!m->cus_done) {
        m->cus_done = 1;
        size_t cap = 0;
        Dwarf_Off off = 0, next;
        size_t hsize;
        while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
            if (m->ncus == cap) {
                cap = cap ? cap * 2 : 16;
                Dwarf_Die *n = realloc(m->cus, cap * sizeof *n);
                if (!n) break;
                m->cus = n;
            }
            if (dwarf_offdie(dw, off + hsize, &m->cus[m->ncus])) m->ncus++;
            off = next;
        }
    }
    for (size_t i = 0; i < m->ncus; i++)
        if (dwarf_haspc(&m->cus[i], addr - *bias) > 0) return &m->cus[i];
    return NULL;
}

/* Appends the ranges of every subprogram below die (through namespaces,
 * classes, Fortran modules and enclosing subprograms). */
static void index_fns(struct sym_module *m, Dwarf_Die *die, size_t *cap, int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(die, &child) != 0) return;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t off = 0;
            while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
                if (hi <= lo) continue;
                if (m->nfns == *cap) {
                    *cap = *cap ? *cap * 2 : 1024;
                    struct fn_range *n = realloc(m->fns, *cap * sizeof *n);
                    if (!n) return;
                    m->fns = n;
                }
                m->fns[m->nfns++] = (struct fn_range){lo, hi, dwarf_dieoffset(&child)};
            }
            index_fns(m, &child, cap, depth + 1); /* Fortran internal procedures */
        } else if (tag == DW_TAG_lexical_block) {
            /* gcc nests an OpenMP region's outlined body (main._omp_fn.0) in
             * a lexical block of the function holding the pragma */
            index_fns(m, &child, cap, depth + 1);
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                   tag == DW_TAG_union_type || tag == DW_TAG_module) {
            index_fns(m, &child, cap, depth + 1);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

static int fn_cmp(const void *a, const void *b)
{
    const struct fn_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : (x->hi > y->hi ? -1 : x->hi < y->hi);
}

/* The subprogram DIE whose ranges hold addr (the smallest when several do).
 * libdw's dwarf_getscopes (0.188) finds no scope for a function inside a C++
 * namespace in clang's DWARF 5 (it stops at the namespace, which has no
 * address): the walk is done here, over an index built once per module. */
static int find_subprogram(struct sym_module *m, Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *out)
{
    if (!m->fns_done) {
        m->fns_done = 1;
        size_t cap = 0, hsize;
        Dwarf_Off off = 0, next;
        Dwarf_Die cu;
        while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
            if (dwarf_offdie(dw, off + hsize, &cu)) index_fns(m, &cu, &cap, 0);
            off = next;
        }
        if (m->nfns) qsort(m->fns, m->nfns, sizeof *m->fns, fn_cmp);
    }
    /* last range starting at or before addr, then back over overlapping ones */
    size_t lo = 0, hi = m->nfns;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->fns[mid].lo <= addr) lo = mid + 1;
        else hi = mid;
    }
    const struct fn_range *best = NULL;
    for (size_t k = lo; k-- > 0;) {
        const struct fn_range *f = &m->fns[k];
        if (addr < f->hi && (!best || f->hi - f->lo < best->hi - best->lo)) best = f;
        if (lo - k > 64) break; /* ranges nest rarely and shallowly */
    }
    return best && dwarf_offdie(dw, best->die, out) != NULL;
}

/* Scopes holding addr from fn (a subprogram) inwards: lexical blocks and
 * inlined subroutines, innermost first, fn last, as dwarf_getscopes_die
 * lists them.  Returns the count (at least 1), *out malloc'ed. */
static int scopes_in(Dwarf_Die *fn, Dwarf_Addr addr, Dwarf_Die **out)
{
    Dwarf_Die chain[128];
    int n = 0;
    chain[n++] = *fn;
    for (int found = 1; found && n < 128;) {
        found = 0;
        Dwarf_Die child;
        if (dwarf_child(&chain[n - 1], &child) != 0) break;
        do {
            int tag = dwarf_tag(&child);
            if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
                 tag == DW_TAG_catch_block) && dwarf_haspc(&child, addr) > 0) {
                chain[n++] = child;
                found = 1;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    *out = malloc((size_t)n * sizeof **out);
    if (!*out) abort();
    for (int k = 0; k < n; k++) (*out)[k] = chain[n - 1 - k];
    return n;
}

/* Address ranges of the inlined subroutines nested anywhere in die (their
 * code is another function's lines), appended to r[*n] up to cap. */
static void nested_inlined(Dwarf_Die *die, Dwarf_Addr (*r)[2], size_t *n, size_t cap, int depth)
{
    Dwarf_Die c;
    if (depth > 64 || dwarf_child(die, &c) != 0) return;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_inlined_subroutine) {
            Dwarf_Addr base, lo, hi;
            for (ptrdiff_t off = 0; (off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0 && *n < cap;)
                r[*n][0] = lo, r[*n][1] = hi, (*n)++;
        } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block) {
            nested_inlined(&c, r, n, cap, depth + 1);
        }
    } while (dwarf_siblingof(&c, &c) == 0);
}

/* First and last source line of fn's own code: its declaration line
 * (DW_AT_decl_line, through the abstract origin of an inlined instance) to
 * the largest line of the line-table rows in its address ranges, in its
 * declaration file, outside the inlined subroutines nested in it.  The range
 * comes from the binary alone, never from where samples fell.  0/0 when
 * DWARF lacks the facts. */
static void function_lines(struct sym_module *m, Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Addr bias,
                           uint32_t *first, uint32_t *last)
{
    *first = *last = 0;
    Dwarf_Off off = dwarf_dieoffset(fn);
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&m->lines_index, off, &it); k != SC_HASH_NONE; k = sc_hash_next(&m->lines_index, &it))
        if (m->lines[k].die == off) {
            *first = m->lines[k].first, *last = m->lines[k].last;
            return;
        }
    int decl = 0;
    /* the declaration file by its index in the CU's file table: libdw's
     * dwarf_decl_file finds no name for clang's DWARF 5 index 0 */
    const char *dfile = NULL;
    Dwarf_Attribute at;
    Dwarf_Word fi;
    Dwarf_Files *files;
    size_t nfiles;
    if (cu && dwarf_attr_integrate(fn, DW_AT_decl_file, &at) && dwarf_formudata(&at, &fi) == 0 &&
        dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && fi < nfiles)
        dfile = dwarf_filesrc(files, fi, NULL, NULL);
    const char *dbase = dfile ? strrchr(dfile, '/') : NULL;
    dbase = dbase ? dbase + 1 : dfile;
    if (dwarf_decl_line(fn, &decl) == 0 && decl > 0 && dfile) {
        static Dwarf_Addr inl[4096][2];
        size_t ninl = 0;
        nested_inlined(fn, inl, &ninl, 4096, 0);
        Dwarf_Lines *lines;
        size_t nlines;
        uint32_t mx = (uint32_t)decl;
        if (cu && dwarf_getsrclines(cu, &lines, &nlines) == 0) {
            Dwarf_Addr base, lo, hi;
            for (ptrdiff_t ro = 0; (ro = dwarf_ranges(fn, ro, &base, &lo, &hi)) > 0;) {
                for (size_t i = 0; i < nlines; i++) {
                    Dwarf_Line *l = dwarf_onesrcline(lines, i);
                    Dwarf_Addr a;
                    int no;
                    if (!l || dwarf_lineaddr(l, &a) != 0 || a < lo || a >= hi || dwarf_lineno(l, &no) != 0 ||
                        no <= 0 || (uint32_t)no <= mx)
                        continue;
                    bool end = false;
                    if (dwarf_lineendsequence(l, &end) == 0 && end) continue;
                    int inside = 0;
                    for (size_t k = 0; k < ninl && !inside; k++) inside = a >= inl[k][0] && a < inl[k][1];
                    /* same file: by base name (DWARF 5 lists the primary
                     * file twice, once relative to the compile directory) */
                    const char *lf = dwarf_linesrc(l, NULL, NULL);
                    const char *lb = lf ? strrchr(lf, '/') : NULL;
                    lb = lb ? lb + 1 : lf;
                    if (!inside && lb && strcmp(lb, dbase) == 0) mx = (uint32_t)no;
                }
            }
        }
        *first = (uint32_t)decl, *last = mx;
    }
    (void)bias;
    if (m->lines_n == m->lines_cap) {
        m->lines_cap = m->lines_cap ? m->lines_cap * 2 : 256;
        m->lines = sc_xrealloc(m->lines, m->lines_cap * sizeof *m->lines);
    }
    if (sc_hash_add(&m->lines_index, off, (uint32_t)m->lines_n)) sc_oom();
    m->lines[m->lines_n] = (struct fn_lines){off, *first, *last};
    m->lines_n++;
}

/* A name reserved for the implementation (C's __x and _X): a runtime linked
 * into the executable (flang's _FortranA*, libgcc, crt), not the program's
 * code; gfortran's module procedures (__mod_MOD_proc) and flang's _Q names
 * are the program's. */
static int implementation_symbol(const char *name)
{
    if (name[0] != '_') return 0;
    if (name[1] == 'Q' || (name[1] == '_' && strstr(name + 2, "_MOD_"))) return 0;
    return name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z');
}

static void resolve(struct an_symbolizer *s, struct sym_module *m, uint64_t addr, struct an_resolved *r)
{
    memset(r, 0, sizeof *r);
    if (!m->mod) {
        r->unresolved = 1;
        r->nframes = 1;
        r->frames = calloc(1, sizeof *r->frames);
        if (!r->frames) abort();
        const char *base = strrchr(m->path, '/');
        char buf[512];
        snprintf(buf, sizeof buf, "<%s>", base ? base + 1 : m->path);
        r->frames[0].function = an_intern(s->pool, buf);
        r->frames[0].file = an_intern(s->pool, "");
        r->frames[0].in_exe = (uint8_t)m->is_app;
        return;
    }
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = find_cu(m, addr, &bias);
    /* innermost location from the line table */
    const char *lfile = NULL;
    int lline = 0, lcol = 0;
    Dwarf_Line *ln = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;
    if (ln) {
        lfile = absolute_file(s, cu, dwarf_linesrc(ln, NULL, NULL));
        dwarf_lineno(ln, &lline);
        dwarf_linecol(ln, &lcol);
    }
    Dwarf_Die *scopes = NULL;
    int nscopes = 0;
    Dwarf_Die fn, fncu;
    Dwarf_Addr dbias = 0;
    Dwarf *dw = dwfl_module_getdwarf(m->mod, &dbias);
    if (dw && find_subprogram(m, dw, addr - dbias, &fn)) {
        nscopes = scopes_in(&fn, addr - dbias, &scopes);
        /* call files are numbered in the line table of the function's own CU */
        if (dwarf_diecu(&fn, &fncu, NULL, NULL)) cu = &fncu;
    }
    Dwarf_Die *chain[64];
    int nchain = 0;
    for (int k = 0; k < nscopes && nchain < 64; k++) {
        int tag = dwarf_tag(&scopes[k]);
        if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) chain[nchain++] = &scopes[k];
        if (tag == DW_TAG_subprogram) break;
    }
    if (nchain == 0) {
        /* no DWARF function: the symbol table still names it */
        GElf_Sym sym;
        GElf_Off off;
        const char *name = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
        r->nframes = 1;
        r->frames = calloc(1, sizeof *r->frames);
        if (!r->frames) abort();
        r->frames[0].function = an_intern(s->pool, name ? name : "");
        r->frames[0].file = an_intern(s->pool, lfile ? lfile : "");
        r->frames[0].line = (uint32_t)(lline > 0 ? lline : 0);
        r->frames[0].column = (uint32_t)(lcol > 0 ? lcol : 0);
        r->frames[0].in_exe = (uint8_t)m->is_exe;
        r->frames[0].exe_nodebug = (uint8_t)(m->is_exe && m->no_dwarf && name && !implementation_symbol(name));
        if (r->frames[0].exe_nodebug) r->frames[0].sym_offset = (uint32_t)off;
        r->frames[0].in_exe = (uint8_t)m->is_app;
        if (!name && !lfile) r->unresolved = 1;
        free(scopes);
        return;
    }
    r->nframes = (uint32_t)nchain;
    r->frames = calloc((size_t)nchain, sizeof *r->frames);
    if (!r->frames) abort();
    /* chain[0] innermost ... chain[nchain-1] the subprogram; frames outermost first */
    for (int k = nchain - 1, f = 0; k >= 0; k--, f++) {
        struct an_frame *fr = &r->frames[f];
        char qual[512];
        const char *name = an_die_function_name(chain[k], qual, sizeof qual);
        fr->function = an_intern(s->pool, name ? name : "");
        fr->has_dwarf = 1;
        Dwarf_Attribute ma;
        bool is_main = false;
        fr->main_program = dwarf_attr_integrate(chain[k], DW_AT_main_subprogram, &ma) &&
                           dwarf_formflag(&ma, &is_main) == 0 && is_main;
        fr->in_exe = (uint8_t)m->is_app;
        function_lines(m, cu, chain[k], dbias, &fr->fn_first, &fr->fn_last);
        if (k == 0) {
            fr->file = an_intern(s->pool, lfile ? lfile : "");
            fr->line = (uint32_t)(lline > 0 ? lline : 0);
            fr->column = (uint32_t)(lcol > 0 ? lcol : 0);
        } else {
            const char *cf;
            uint32_t cl, cc;
            call_site_of(cu, chain[k - 1], &cf, &cl, &cc);
            cf = absolute_file(s, cu, cf);
            fr->file = an_intern(s->pool, cf ? cf : "");
            fr->line = cl, fr->column = cc;
        }
    }
    free(scopes);
}

static uint64_t cache_key(uint32_t module, uint64_t addr) { return addr * 0x9e3779b97f4a7c15ull ^ ((uint64_t)module << 48); }

const struct an_resolved *an_sym_resolve(struct an_symbolizer *s, uint32_t module,
                                         uint64_t address, int is_return_address)
{
    static struct an_resolved unknown = {0, NULL, 1};
    if (module >= s->nmods) return &unknown;
    uint64_t addr = is_return_address && address ? address - 1 : address;
    struct sc_hash_it it;
    for (uint32_t k = sc_hash_first(&s->cache_index, cache_key(module, addr), &it); k != SC_HASH_NONE;
         k = sc_hash_next(&s->cache_index, &it))
        if (s->cache[k].module == module && s->cache[k].address == addr) return &s->cache[k].r;
    if (s->cache_n == s->cache_cap) {
        s->cache_cap = s->cache_cap ? s->cache_cap * 2 : 4096;
        s->cache = sc_xrealloc(s->cache, s->cache_cap * sizeof *s->cache);
    }
    if (sc_hash_add(&s->cache_index, cache_key(module, addr), (uint32_t)s->cache_n)) sc_oom();
    struct cache_entry *e = &s->cache[s->cache_n];
    memset(e, 0, sizeof *e);
    e->module = module, e->address = addr;
    resolve(s, &s->mods[module], addr, &e->r);
    s->cache_n++;
    return &e->r;
}
