/* samplers.h — lookup of the sample sources of samplers.def (formats/samplers.c),
 * shared by the runtime, scalana-dump and the analyzer so that the code
 * a profile stores, the word a user types and "does it count CPU time" are
 * written once. */
#ifndef SCALANA_SAMPLERS_H
#define SCALANA_SAMPLERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What one sampling period of a sampler stands for (samplers.def CLOCK). */
enum scalana_clock { SCALANA_CLOCK_NONE = 0, SCALANA_CLOCK_CPU, SCALANA_CLOCK_WALL, SCALANA_CLOCK_EVENT };

/** The word of sampler id (enum prf_sampler): "cputime", ... "none"; NULL
 *  for a code samplers.def does not list.  Never fails. */
const char *scalana_sampler_word(uint32_t id);

/** The sampler a word names, or -1: a word of samplers.def, or
 *  "word:ARG" with a non-empty ARG for a sampler that takes one
 *  ("papi:PAPI_TOT_CYC"; *arg, may be NULL, then points at ARG, else at "").
 *  Never fails. */
int scalana_sampler_of_word(const char *s, const char **arg);

/** What follows "word:" for sampler id ("<EVENT>" for papi), or NULL when
 *  it takes nothing after its word (and for an unknown id). */
const char *scalana_sampler_arg(uint32_t id);

/** What sampler id's periods count (SCALANA_CLOCK_NONE for an unknown id). */
enum scalana_clock scalana_sampler_clock(uint32_t id);

/** Whether sampler id counts the sampled thread's CPU time (CLOCK_CPU). */
int scalana_sampler_cpu_clock(uint32_t id);

/** The accepted values, as the runtime's warning lists them: "cputime,
 *  taskclock, realtime, papi:<EVENT> or none" (sep between words, last
 *  before the final one) into buf (capacity cap, truncated).  Returns buf. */
char *scalana_sampler_words(char *buf, size_t cap, const char *sep, const char *last);

#ifdef __cplusplus
}
#endif

#endif
