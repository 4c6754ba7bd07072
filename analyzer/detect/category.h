/* category.h — root-cause categories and a cause's culprits as text
 * (detect/category.c). */
#ifndef SCALANA_AN_DETECT_CATEGORY_H
#define SCALANA_AN_DETECT_CATEGORY_H

#include <stddef.h>
#include "core/types.h"

/** report.json name of a category ("load_imbalance"); never NULL. */
const char *an_category_name(enum an_category c);
/** Label for a person ("load imbalance"); never NULL. */
const char *an_category_label(enum an_category c);
/** One-sentence remedy a person can act on; never NULL. */
const char *an_category_remedy(enum an_category c);
/** Writes the cause's culprit processes (world ranks) as "0, 3, 5" into
 *  buf (n bytes), ending ", ..." when the list was cut (nprocs_total >
 *  nprocs, or buf full); returns buf. */
char *an_cause_procs_text(const struct an_cause *c, char *buf, size_t n);

#endif
