/* demangle.h — the names a person reads for linkage names (read/demangle.c). */
#ifndef SCALANA_AN_READ_DEMANGLE_H
#define SCALANA_AN_READ_DEMANGLE_H

#include <stdint.h>
#include "core/types.h"

/* ---- Names (demangle.c) ------------------------------------------------------ */

/** The name a person reads for a linkage name: a C++ (Itanium ABI, "_Z")
 *  name demangled by libstdc++'s __cxa_demangle; flang's _QP<proc> as
 *  "proc", _QM<module>P<proc> as "module::proc", _QQmain as "main
 *  program"; gfortran's __<module>_MOD_<proc> as "module::proc"; other
 *  names (C, gfortran's external procedures, names that do not demangle)
 *  unchanged.  Interned in pool; never NULL. */
const char *an_demangle(struct an_strpool *pool, const char *name);
/** A demangled function name without its return type and argument list,
 *  template argument lists longer than 24 characters elided ("void
 *  ns::f<int>(int*, int) const" -> "ns::f<int>", "ns::cg<ns::Csr<double,
 *  int, int>, ...>" -> "ns::cg<...>"), for one-line locations.  Interned. */
const char *an_short_function(struct an_strpool *pool, const char *name);
/*  (Also: flang's internal procedures _QF<host>P<proc> as "host.proc" and
 *  _QM<module>F<host>P<proc> as "module::host.proc", gfortran's MAIN__ as
 *  "main program" and local inner.0 as "inner": demangle.c.) */
/** The main program's name as the source spells it, "program NAME" (lower
 *  case, as flang and gfortran fold it), read from the `program` statement at
 *  `line` of `file` (the subprogram's first line from DWARF); NULL when the
 *  source cannot be read or that line is no program statement.  flang names
 *  the program _QQmain and gfortran MAIN__ in the symbol table. */
const char *an_fortran_program(struct an_strpool *pool, const char *file, uint32_t line);

#endif
