/* run_files.h — the names of a run directory and of the files in it: one
 * place that builds them and parses them (formats/run_files.c), used by the
 * runtime that writes a run, and by the analyzer, scalana-dump and the
 * benchmark generator that read one.  Nothing else spells these names
 * (tests/formats/check_file_names.sh fails when something does).
 *
 *   <dir>/run.json                         the run's description (run_info.h)
 *   <dir>/profile-<first>-<last>.sclp      world ranks first..last, each %06u
 *   <dir>/.profile-<first>-<last>.sclp.tmp a profile being written (renamed when complete)
 *   <dir>/.run.json.tmp.<pid>.<rank>       run.json being rewritten by one rank
 *   scalana-<exe>-<p>p                     the default run directory name
 */
#ifndef SCALANA_RUN_FILES_H
#define SCALANA_RUN_FILES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCALANA_PROFILE_SUFFIX ".sclp"
/** Longest profile file name the API builds, with its NUL (two 10-digit
 *  ranks, the temporary's dot and ".tmp"). */
#define SCALANA_PROFILE_NAME_MAX 48

/** Writes "profile-<first>-<last>.sclp" (ranks as %06u, so that names sort
 *  by first rank) into buf of n bytes; with tmp, the temporary
 *  ".profile-<first>-<last>.sclp.tmp" instead.  Returns the length, or -1
 *  when n is too small (buf then holds "" when n > 0). */
int scalana_profile_file_name(char *buf, size_t n, uint32_t first, uint32_t last, int tmp);

/** 1 when name (a file name, no directory) is one the tools read as a
 *  profile: "profile-" ... ".sclp" with something in between; 0 otherwise
 *  (temporaries and other files). */
int scalana_profile_file_match(const char *name);

/** 1 when name (a file name, no directory) is a profile's temporary as
 *  scalana_profile_file_name(..., tmp = 1) writes it: ".profile-" ...
 *  ".sclp.tmp"; 0 otherwise.  A run directory being replaced removes them. */
int scalana_profile_tmp_match(const char *name);

/** Writes the path of run.json's temporary in dir, "<dir>/.run.json.tmp.
 *  <pid>.<rank>" (world rank), into buf of n bytes.  Hidden, like a
 *  profile's: every exiting rank rewrites run.json, and hydra's SIGKILL of
 *  the others once one rank has exited can stop a rank between writing and
 *  renaming it (runtime.mpich.writing_exit.np8 left one visible).  Returns
 *  the length, or -1 when n is too small (buf then holds ""). */
int scalana_run_info_tmp_path(char *buf, size_t n, const char *dir, int pid, uint32_t rank);

/** 1 when name (a file name, no directory) is a run.json temporary: the
 *  hidden ".run.json.tmp." names of scalana_run_info_tmp_path, or the
 *  visible "run.json.tmp." of earlier versions; 0 otherwise.  A run
 *  directory being replaced removes them. */
int scalana_run_info_tmp_match(const char *name);

/** Parses a profile file name (a path's last component is used) into its
 *  world-rank range.  Returns 1 with *first and *last set for
 *  "profile-<first>-<last>.sclp", 0 for any other name. */
int scalana_profile_file_parse(const char *path, uint32_t *first, uint32_t *last);

/** 1 when path ends in the profile suffix (a profile file given directly on
 *  a command line, whatever its name). */
int scalana_profile_path_has_suffix(const char *path);

/** Writes the default run directory name "scalana-<exe>-<nprocs>p" into buf
 *  of n bytes (exe: the executable's base name; "app" when NULL or empty).
 *  Returns the length snprintf reports (>= n: truncated). */
int scalana_run_dir_default_name(char *buf, size_t n, const char *exe, uint32_t nprocs);

/** Lists the profile files of run directory dir (scalana_profile_file_match),
 *  sorted by name, that is by first rank.  with_dir: each entry is
 *  "<dir>/<name>", else the name alone.  Returns the number found (malloc'ed
 *  into *out: free each and the array; NULL when 0), or -1 with a reason
 *  naming dir in err (unreadable directory, out of memory). */
int scalana_run_list_profiles(const char *dir, int with_dir, char ***out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
