/* recover.c — the analyzer's use of structure recovery: for an executable
 * without an embedded PSG, load (from the cache) or recover one and say
 * what happened in one warning line. */
#include "binstruct.h"
#include "analyzer.h"

#include <string.h>

int an_recover_structure(struct an_analysis *a, const char *exe, const char *build_id, struct psg_graph *out)
{
    memset(out, 0, sizeof *out);
    if (a->opt->no_recover) {
        an_warn(a, "%s has no PSG (built without scalana-cc) and --no-recover was given: the call-path graph is "
                   "recovered from the samples, without loops", exe);
        return 0;
    }
    struct bs_cache_opts co = {0, NULL};
    if (a->opt->psg_cache && !strcmp(a->opt->psg_cache, "off")) co.disabled = 1;
    else co.dir = a->opt->psg_cache;
    struct bs_load_info info;
    char err[1024];
    if (bs_load(exe, build_id, &co, out, &info, err, sizeof err) != 0) {
        an_warn(a, "%s has no PSG (built without scalana-cc) and its structure could not be recovered (%s): the "
                   "call-path graph is recovered from the samples, without loops", exe, err);
        return 0;
    }
    a->psg_recovered = 1;
    a->psg_from_cache = info.from_cache;
    a->psg_loops = info.loops;
    an_warn(a, "%s has no PSG (built without scalana-cc): structure recovered from machine code, %u function%s, "
               "%u loop%s%s%s%s", exe, info.functions, info.functions == 1 ? "" : "s", info.loops,
            info.loops == 1 ? "" : "s", info.from_cache ? " (cached: " : info.cache_written ? " (cached as " : "",
            info.cache_path, info.cache_path[0] ? ")" : "");
    return 1;
}
