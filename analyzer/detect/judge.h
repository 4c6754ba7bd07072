/* judge.h — a cause confronted with the work counters (detect/work_judge.c)
 * and with its culprits' contention (detect/interference.c). */
#ifndef SCALANA_AN_DETECT_JUDGE_H
#define SCALANA_AN_DETECT_JUDGE_H

#include "core/types.h"
#include "ppg/work.h"

/** Confronts a computation cause (culprits c->procs, not at an MPI call) of
 *  run r with the work counters: when the culprits did the others' work
 *  more slowly, c becomes undecided (a candidate) and a data-quality warning
 *  names the processes and the code; when they did more, c's evidence says
 *  by how much.  Equal iterations in more than speed_max times the others'
 *  CPU time are not speed (CPU time does not grow while another job holds
 *  the core): the evidence says the work inside the iterations differs, and
 *  the verdict is AN_WORK_UNKNOWN (judged by time).  Returns the verdict
 *  (AN_WORK_SAME: c was judged speed, not work). */
enum an_work_verdict an_work_judge_cause(struct an_analysis *a, const struct an_run *r, struct an_cause *c);
/** Confronts a cause with culprits c->procs (not all present ranks) of run r
 *  with their contention: when the culprits computed at least 1.3x slower in
 *  wall time than in CPU time beyond the job's own processes per core, and
 *  1.3x the others, another job delayed them; c becomes undecided and a
 *  data-quality warning ("interference: ...") names the processes and the
 *  cause (interference.c).  Returns 1 then, else 0. */
int an_interference_judge_cause(struct an_analysis *a, const struct an_run *r, struct an_cause *c);

#endif
