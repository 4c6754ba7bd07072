/* outdir.h — whether a directory may receive a report of scalana-analyze or
 * scalana-view, and the marker that says it holds one (formats/outdir.c). */
#ifndef SCALANA_OUTDIR_H
#define SCALANA_OUTDIR_H

#include <stddef.h>

/* The file the analyzer and the viewer write into every report directory. */
#define SCALANA_REPORT_MARKER ".scalana-report"

/** Whether dir may receive a report: it does not exist, is an empty
 *  directory, holds SCALANA_REPORT_MARKER, or holds a report.json that
 *  scalana-analyze wrote (a report from before the marker).  Returns 1 when
 *  it may, 0 when it holds other files (one of them is named in foreign,
 *  capacity cap: a file of another name before a report's, such as
 *  index.html), -1 when it cannot be read (errno set).  A path that is not a
 *  directory is left to the caller (returns 1). */
int scalana_outdir_is_ours(const char *dir, char *foreign, size_t cap);

/** Writes SCALANA_REPORT_MARKER into dir (an existing directory).  Returns 0,
 *  or -1 with errno set. */
int scalana_outdir_mark(const char *dir);

#endif
