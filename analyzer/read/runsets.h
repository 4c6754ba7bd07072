/* runsets.h — run directories found and grouped by build (read/runsets.c). */
#ifndef SCALANA_AN_READ_RUNSETS_H
#define SCALANA_AN_READ_RUNSETS_H

#include <stdint.h>

/* ---- Run sets and before/after comparison (runsets.c, compare.c) ------------ */

/** Whether dir holds run.json or a profile-*.sclp (a run directory). */
int an_is_run_dir(const char *dir);
/** Appends to (*out, *n) the run directories path names (malloc'ed strings):
 *  path itself when it is a run directory or not a directory (read_run then
 *  says what is wrong), else the run directories below it, up to three levels
 *  deep, sorted by path (a study: one directory per run); repeated and
 *  trailing slashes of path are dropped ("run//" -> "run").  Returns how many
 *  were appended (at least 1). */
int an_expand_run_dirs(const char *path, char ***out, int *n);
/** The runs of one build: every run.json with this build-id. */
struct an_build {
    char *build_id, *executable; /* "" for the group of runs without run.json or build-id */
    char **dirs; int ndirs;      /* borrowed from the caller's list */
    uint64_t first_start_ns;     /* earliest start_realtime_ns of its runs */
    int available;               /* its binary can be read (its path or a run's copy) */
};
/** Groups dirs by the build-id of their run.json, the build whose first run
 *  started first first (before, then after).  Runs with no readable run.json
 *  or no build-id, and runs of a build whose binary is nowhere (neither at
 *  its path with its build-id nor as a run's copy), join the first build that
 *  can be read (the reader refuses them by name).  Returns the group count
 *  (>= 1). */
int an_group_builds(char **dirs, int n, struct an_build **out);
void an_builds_free(struct an_build *b, int n);

#endif
