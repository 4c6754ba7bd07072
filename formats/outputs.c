/* outputs.c — the exports of a report directory (outputs.def): their
 * --no-<flag> words and help lines, shared by scalana-analyze and scalana-view. */
#include "scalana/outputs.h"

#include <string.h>

static const struct { const char *flag, *what; } outputs[] = {
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) {flag, what},
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
};

int scalana_output_of_flag(const char *flag)
{
    for (int i = 0; flag && i < SCALANA_OUT_COUNT; i++)
        if (strcmp(flag, outputs[i].flag) == 0) return i;
    return -1;
}

void scalana_outputs_help(FILE *out, int col)
{
    for (int i = 0; i < SCALANA_OUT_COUNT; i++) {
        int n = fprintf(out, "      --no-%s", outputs[i].flag);
        fprintf(out, "%*s do not write %s\n", n < col ? col - n : 0, "", outputs[i].what);
    }
}
