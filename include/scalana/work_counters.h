/* work_counters.h — the loop work counters: what code built by the pass
 * (plugin/WorkCounters.cpp) hands to the runtime (runtime/threads/rt_work.c).
 *
 * Every translation unit built with the pass that has LOOP vertices carries
 *   - a thread-local array of `count` 64-bit counters, one per LOOP vertex:
 *     the number of times the loop's header ran in this thread (iterations,
 *     plus one per entry for loops that test before the body);
 *   - a constant array of the vertices' PSG stable ids (psg_format.h), in
 *     the same order: the key under which the analyzer finds the loop;
 *   - a function that returns the calling thread's counter array;
 *   - a constructor that passes one struct scalana_work_unit to
 *     scalana_rt_work_register when the runtime is loaded (a weak reference:
 *     without the runtime the counters count and nobody reads them).
 * A loop adds its header executions into a local register and the register
 * into the thread's counter on each exit from the loop (docs/plugin.md,
 * "Work counters").  Counts are per thread and per vertex, summed over the
 * calling contexts of the vertex. */
#ifndef SCALANA_WORK_COUNTERS_H
#define SCALANA_WORK_COUNTERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCALANA_WORK_ABI_VERSION 1u
#define SCALANA_WORK_REGISTER "scalana_rt_work_register"

/** One unit's counters; lives in the unit's constant data for the whole run.
 *  The layout is built field by field by the pass: change both together and
 *  bump SCALANA_WORK_ABI_VERSION. */
struct scalana_work_unit {
    uint32_t version;            /* SCALANA_WORK_ABI_VERSION */
    uint32_t count;              /* loops (ids[] and counters) */
    const uint64_t *ids;         /* [count] PSG stable ids of the LOOP vertices */
    uint64_t *(*counters)(void); /* the calling thread's [count] counters */
};

/** Registers a unit (called from the unit's constructor, on the thread that
 *  loads it).  Units of a later version are ignored with one line on stderr.
 *  Thread-safe; never fails the program. */
void scalana_rt_work_register(const struct scalana_work_unit *unit);

#ifdef __cplusplus
}
#endif
#endif
