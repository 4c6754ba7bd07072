/* outputs.h — the exports of a report directory (outputs.def) as codes and
 * bits, for the viewer, both command lines and formats/outdir.c. */
#ifndef SCALANA_OUTPUTS_H
#define SCALANA_OUTPUTS_H

/** SCALANA_OUT_DOT, SCALANA_OUT_SVG, ...: the lines of outputs.def in order. */
enum scalana_output {
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) SCALANA_OUT_##NAME,
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
    SCALANA_OUT_COUNT
};

/** The bit of output o in a set of outputs (struct scalana_viewer_options.outputs). */
#define SCALANA_OUT_BIT(o) (1u << (o))
/** Every output of outputs.def. */
#define SCALANA_OUT_ALL ((1u << SCALANA_OUT_COUNT) - 1u)

#include <stdio.h>

/** The output whose --no-<flag> word is flag ("dot", "svg", ...), or -1.
 *  Never fails. */
int scalana_output_of_flag(const char *flag);

/** Prints the --help line of each --no-<flag> option, "      --no-FLAG", padded
 *  to column col, then " do not write WHAT". */
void scalana_outputs_help(FILE *out, int col);

#endif
