/* vw_source.c — find a program's source file for the snippets, honouring the
 * --source-path FROM=TO prefix pairs (first matching pair wins, then the name as is). */
#include "vw_internal.h"
#include <string.h>

FILE *vw_source_open(const struct scalana_viewer_options *opt, const char *file,
                     char *resolved, size_t resolved_len)
{
    if (!file || !*file) return NULL;
    if (opt) {
        for (size_t k = 0; k < opt->source_path_count; k++) {
            const char *from = opt->source_path_from ? opt->source_path_from[k] : NULL;
            const char *to = opt->source_path_to ? opt->source_path_to[k] : NULL;
            if (!from || !to) continue;
            size_t fl = strlen(from);
            if (strncmp(file, from, fl) != 0) continue;
            const char *rest = file + fl;
            /* FROM=/a must not match /ab/x.c: the prefix ends at a path separator */
            if (fl > 0 && from[fl - 1] != '/' && *rest != '/' && *rest != '\0') continue;
            char path[4096];
            int n = snprintf(path, sizeof path, "%s%s%s", to,
                             (*rest != '/' && *to && to[strlen(to) - 1] != '/' && *rest) ? "/" : "", rest);
            if (n < 0 || (size_t)n >= sizeof path) continue;
            FILE *fp = fopen(path, "r");
            if (fp) {
                if (resolved && resolved_len) snprintf(resolved, resolved_len, "%s", path);
                return fp;
            }
        }
    }
    FILE *fp = fopen(file, "r");
    if (fp && resolved && resolved_len) snprintf(resolved, resolved_len, "%s", file);
    return fp;
}
