/* options.h — command-line options, the threshold table, source-path
 * remapping and progress lines (core/options.c). */
#ifndef SCALANA_AN_CORE_OPTIONS_H
#define SCALANA_AN_CORE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "core/types.h"

/** Sets the defaults.  */
void an_options_defaults(struct an_options *o);
/** Parses argv.  Returns 0 to run, 1 when --help/--version was printed
 *  (exit 0), -1 on a usage error (message printed on stderr). */
int an_options_parse(struct an_options *o, int argc, char **argv);
void an_options_free(struct an_options *o);
/** Prints the one line of a usage error getopt_long reported (optstring
 *  starting with ':', opterr 0): c is what it returned ('?' unknown or
 *  ambiguous, ':' value missing); names the word of argv at fault. */
void an_bad_option(const char *prog, int c, char **argv);
/** Iterates the threshold table: name, value, source; returns 0 past the end. */
int an_threshold_at(const struct an_thresholds *t, size_t i, const char **name, double *value,
                    const char **source);
/** Source path as reports show it: "." and ".." components and repeated
 *  slashes folded lexically (symbolic links are never resolved), then
 *  --source-path remapping (first matching prefix).  The result is
 *  interned in pool. */
const char *an_remap_path(const struct an_options *o, struct an_strpool *pool, const char *file);
/* ---- Progress ------------------------------------------------------------------ */
void an_progress(const struct an_options *o, const char *what, uint64_t done, uint64_t total);
void an_progress_end(const struct an_options *o);

#endif
