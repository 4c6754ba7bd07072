/* compare.h — before/after comparison of two reports (report/compare.c). */
#ifndef SCALANA_AN_REPORT_COMPARE_H
#define SCALANA_AN_REPORT_COMPARE_H

/** Line distance up to which a location counts as the same after a change
 *  (edits above a loop shift it; compare.c, docs/analyzer.md). */
#define AN_COMPARE_LINE_SHIFT 20
/** The "comparison" object of report.json from the reports (json_t *) of
 *  the build before and after a change: root causes matched by category and
 *  location (status gone, remains, changed, new, each with its cost before
 *  and after and the time of its location per process count), and the wall
 *  time per process count present in both.  Never NULL. */
void *an_compare_reports(const void *before, const void *after);

#endif
