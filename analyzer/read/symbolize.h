/* symbolize.h — addresses to logical frames through libdw (read/symbolize.c). */
#ifndef SCALANA_AN_READ_SYMBOLIZE_H
#define SCALANA_AN_READ_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "core/types.h"

/* ---- Symbols (libdw) -------------------------------------------------------- */

/** The name frames and recovered structure give the DWARF function DIE die
 *  (a Dwarf_Die *; void * keeps libdw out of this header): its linkage name,
 *  through the abstract origin and specification; else its DW_AT_name
 *  qualified by the classes and namespaces that enclose its declaration
 *  ("Domain::relax", "RowSweep<double>::operator()": gcc gives no linkage
 *  name to a C++ member function that exists only inlined), written into
 *  buf (buflen bytes; a name that does not fit stays unqualified); NULL when
 *  the DIE has no name.  The result is valid while the DWARF and buf are. */
const char *an_die_function_name(void *die, char *buf, size_t buflen);

/** One logical frame of a physical frame's inline chain. */
struct an_frame {
    const char *function;  /* linkage name ("" when unknown), interned */
    const char *file;      /* source file ("" when unknown), interned */
    uint32_t line, column;
    uint32_t fn_first, fn_last; /* the function's own source lines (DWARF; 0 unknown) */
    uint8_t has_dwarf;     /* function known from DWARF (not just the symbol table) */
    uint8_t in_exe;        /* the frame lies in the application's code: the analysed executable
                              or one of its own shared libraries (symbolize.c) */
    uint8_t exe_nodebug;   /* in_exe, named from the symbol table of an executable
                              without any DWARF (built without -g) */
    uint32_t sym_offset;   /* exe_nodebug: the address's byte offset in its function
                              (tells call sites apart where there are no lines) */
    uint8_t main_program;  /* DWARF marks the function as the (Fortran) main program
                              (DW_AT_main_subprogram: gfortran names it by the program) */
};

/** Resolution of one address: logical frames outermost first (the real
 *  function, then each inlined call, the innermost last). */
struct an_resolved {
    uint32_t nframes;
    struct an_frame *frames;
    uint8_t unresolved;    /* no module or no symbol at all */
};

struct an_symbolizer;
struct an_symbolizer *an_sym_new(struct an_strpool *pool, const char *exe_path,
                                 const char *exe_build_id);
void an_sym_free(struct an_symbolizer *s);
/** Adds a directory where kept copies of shared libraries lie (a run's
 *  exe/lib/): a module whose file is gone or has another build-id than the
 *  profile names is looked up there by file name and build-id. */
void an_sym_add_library_dir(struct an_symbolizer *s, const char *dir);
/** Global id of a profile module (path, build-id).  The executable is
 *  recognised by build-id (or path) and read from the --exe/run.json path.
 *  A module whose file is missing or has another build-id resolves nothing
 *  (counted as unresolved frames); warn receives one line the first time. */
uint32_t an_sym_module(struct an_symbolizer *s, const char *path, const char *build_id,
                       char *warn, size_t warnlen);
/** Resolves a module-relative address (return addresses are looked up at
 *  address - 1).  Cached; never NULL. */
const struct an_resolved *an_sym_resolve(struct an_symbolizer *s, uint32_t module,
                                         uint64_t address, int is_return_address);
/** A source file name made absolute: name joined to dir (a CU's
 *  DW_AT_comp_dir; NULL or relative: not joined) with "." and ".."
 *  components folded lexically, without file-system access (the sources may
 *  live elsewhere now; --source-path remaps them).  Returns a string
 *  interned in pool; "" for a NULL or empty name; name itself (interned)
 *  when the result would not fit 4 KiB. */
const char *an_path_absolute(struct an_strpool *pool, const char *dir, const char *name);
/** Build-id (lowercase hex) of an ELF file into out; returns 0, or -1. */
int an_elf_build_id(const char *path, char *out, size_t outlen);
/** Whether the ELF file at path has DWARF debugging information (its own
 *  .debug_info or a separate debug file libdwfl finds): 1 yes, 0 no, -1 the
 *  file cannot be read as ELF. */
int an_elf_has_debug_info(const char *path);

#endif
