/* profile_omp.c — the reader of PRF_REC_OMP (OpenMP regions measured through
 * OMPT, include/scalana/profile_format.h): the decoder (profile_io.c) hands
 * it the record's bytes, and it checks the entries once all records are in. */
#include "profile_io_internal.h"
#include "sc_err.h"

#include <string.h>

_Static_assert(sizeof(struct prf_omp_table) == 32, "prf_omp_table");
_Static_assert(sizeof(struct prf_omp_region) == 88, "prf_omp_region");

int prf_decode_omp(struct prf_rank_data *out, size_t at, uint32_t payload, void *pl, char *err,
                   size_t errlen)
{
    struct prf_omp_table t;
    if (prf_table_record("OMP", out->has_omp, at, payload, pl, sizeof t, sizeof(struct prf_omp_region), err,
                         errlen))
        return -1;
    memcpy(&t, pl, sizeof t);
    if (t.interface != PRF_OMP_OMPT)
        return sc_fail(err, errlen, "OMP record at byte %zu has unknown interface %u", at, t.interface);
    out->has_omp = 1;
    out->omp_info = t;
    out->omp = t.count ? (struct prf_omp_region *)(void *)((unsigned char *)pl + sizeof t) : NULL;
    out->omp_count = t.count;
    return 0;
}

int prf_validate_omp(const struct prf_rank_data *d, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < d->omp_count; i++) {
        const struct prf_omp_region *r = &d->omp[i];
        if (r->node >= d->cct_count)
            return sc_fail(err, errlen, "OMP region %u names CCT node %u of %u", i, r->node, d->cct_count);
        if (r->regions == 0 || r->team_min == 0 || r->team_min > r->team_max || r->forks > r->regions)
            return sc_fail(err, errlen, "OMP region %u is inconsistent (%llu instances, %llu started, team "
                           "%u..%u)", i, (unsigned long long)r->regions, (unsigned long long)r->forks,
                           r->team_min, r->team_max);
    }
    return 0;
}
