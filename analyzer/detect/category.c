/* category.c — what a person reads of a cause: the names, labels and remedies
 * of the root-cause categories (include/scalana/categories.def, the one list)
 * and a cause's culprit processes as text; the report, the judges and the
 * detectors use them, so they stand apart from the detectors' toolkit. */
#include "detect/category.h"

#include <stdio.h>

const char *an_category_name(enum an_category c)
{
    static const char *const n[] = {
#define SCALANA_CATEGORY(e, name, label, remedy) name,
#include "scalana/categories.def"
#undef SCALANA_CATEGORY
    };
    return (unsigned)c < sizeof n / sizeof *n ? n[c] : n[0];
}

const char *an_category_label(enum an_category c)
{
    static const char *const n[] = {
#define SCALANA_CATEGORY(e, name, label, remedy) label,
#include "scalana/categories.def"
#undef SCALANA_CATEGORY
    };
    return (unsigned)c < sizeof n / sizeof *n ? n[c] : n[0];
}

const char *an_category_remedy(enum an_category c)
{
    static const char *const n[] = {
#define SCALANA_CATEGORY(e, name, label, remedy) remedy,
#include "scalana/categories.def"
#undef SCALANA_CATEGORY
    };
    return (unsigned)c < sizeof n / sizeof *n ? n[c] : n[0];
}

char *an_cause_procs_text(const struct an_cause *c, char *buf, size_t n)
{
    size_t k = 0;
    if (n) buf[0] = 0;
    for (uint32_t i = 0; i < c->nprocs && k + 16 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%u", i ? ", " : "", c->procs[i]);
    if (c->nprocs_total > c->nprocs && k + 8 < n) snprintf(buf + k, n - k, ", ...");
    return buf;
}
