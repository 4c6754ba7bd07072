/* warn.c — the report's warnings: one line each, kept once (a repeated line
 * is dropped), echoed on stderr while the runs are read when asked. */
#include "core/warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void an_warn(struct an_analysis *a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (uint32_t i = 0; i < a->nwarnings; i++)
        if (strcmp(a->warnings[i], buf) == 0) return;
    char **w = realloc(a->warnings, (a->nwarnings + 1) * sizeof *w);
    if (!w) return;
    a->warnings = w;
    a->warnings[a->nwarnings] = strdup(buf);
    if (a->warnings[a->nwarnings]) a->nwarnings++;
    if (a->echo_warnings) fprintf(stderr, "scalana-analyze: warning: %s\n", buf);
}
