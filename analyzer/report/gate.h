/* gate.h — the CI gate of scalana-analyze (--gate): a before/after
 * comparison judged pass or fail, written as JUnit XML and Markdown.
 * Reports are jansson json_t *, passed as void * like report/report.h does. */
#ifndef SCALANA_ANALYZER_GATE_H
#define SCALANA_ANALYZER_GATE_H

#include "core/types.h"
#include <stdio.h>

/** Judges the comparison (report.json "comparison" from an_compare_reports,
 *  a json_t *) of two builds for a CI gate, with the after build's
 *  thresholds th.  A cause fails the gate when it is new (a root cause of the
 *  after build with no match before and nothing at its place under the
 *  before build's thresholds) or when its cost (seconds, each build's
 *  largest process count) grew by more than its noise band:
 *  max(noise_sigmas * sqrt(noise_before^2 + noise_after^2),
 *  min_cost_percent % of the cost before, min_cost_seconds) seconds, the
 *  noises being the causes' cost_noise_seconds.  Gone causes pass (fixed).
 *  Returns the report.json "gate" object (json_t *): failed (boolean),
 *  counts, and per cause its verdict (fixed, improved, unchanged, regressed,
 *  new), growth and band in seconds.  Never NULL; aborts on allocation
 *  failure. */
void *an_gate_judge(const void *comparison, const struct an_thresholds *th);

/** Whether the gate object says the gate failed (1) or passed (0). */
int an_gate_failed(const void *gate);

/** Writes the gate object (an_gate_judge) as JUnit XML into path: one
 *  testsuite, one testcase per compared cause (classname
 *  scalana.<category>, name "<category> at <file>:<line>-<last> in
 *  <function>"), a failure element on each failing cause whose text gives
 *  file:line, category and the cost before and after; one passing testcase
 *  when no cause was compared.  Returns 0, or -1 with errno set when the
 *  file cannot be written. */
int an_gate_write_junit(const void *gate, const char *path);

/** Writes a Markdown summary of the gate for a CI job page into path: the
 *  verdict, a table of the causes (verdict, category, location, cost before
 *  and after, band) and, from the comparison object, the wall time per
 *  process count both builds ran.  Returns 0, or -1 with errno set. */
int an_gate_write_markdown(const void *gate, const void *comparison, const char *path);

/** Prints the verdict and each failing cause, one line each, to f. */
void an_gate_print(FILE *f, const void *gate);

/** --gate on the after build's report (json_t *, holding "comparison"):
 *  judges it (an_gate_judge with o->th), sets report.json's "gate" and
 *  writes o->junit and o->markdown when given (an_gate_print prints the
 *  verdict).  Returns the gate's exit status: 0 pass, 1 fail, 2 when
 *  the report has no comparison or a file cannot be written (one line on
 *  stderr names it). */
int an_gate_apply(const struct an_options *o, void *report);

#endif
