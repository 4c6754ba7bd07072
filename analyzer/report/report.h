/* report.h — report.json built from the analysis (report/report.c). */
#ifndef SCALANA_AN_REPORT_REPORT_H
#define SCALANA_AN_REPORT_REPORT_H

#include "core/types.h"

/** Builds report.json (jansson json_t *, returned as void * to keep jansson
 *  out of this header). */
void *an_report_build(const struct an_analysis *a);
/** Sets report's tool.analyzer_peak_rss_bytes from a->peak_rss (one value
 *  per analyzer process, bytes): the parallel analyzer knows the other
 *  processes' peaks only once the report is built (an_par_done). */
void an_report_set_peaks(void *report, const struct an_analysis *a);

#endif
