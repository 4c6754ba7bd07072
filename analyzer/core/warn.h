/* warn.h — the report's warnings (core/warn.c): any room adds one line. */
#ifndef SCALANA_AN_CORE_WARN_H
#define SCALANA_AN_CORE_WARN_H

#include "core/types.h"

/** Adds a warning line to the report (printf-style). */
void an_warn(struct an_analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
