/* profile_io_internal.h — what the profile decoder (profile_io.c) shares with
 * the readers of single record types in their own files (profile_omp.c).
 * Not installed; not part of the format's definition (profile_format.h). */
#ifndef SCALANA_PROFILE_IO_INTERNAL_H
#define SCALANA_PROFILE_IO_INTERNAL_H

#include "scalana/profile_format.h"

/** Checks (profile_table.c) a record that is a head whose first field is a uint32 entry
 *  count, then that many entries of elem bytes (INTERVALS, WORK, OMP):
 *  0 when well formed and the first of its type (dup 0), else -1 with the
 *  reason, naming the record and its byte offset at, in err. */
int prf_table_record(const char *name, int dup, size_t at, uint32_t payload, const void *pl, size_t head,
                     size_t elem, char *err, size_t errlen);

/** PRF_REC_OMP at byte at (payload bytes at pl, inside the decoder's copy of
 *  the section): out's has_omp, omp_info, omp, omp_count.  0, or -1 with the
 *  reason in err (duplicate, truncated, entries not a whole number, unknown
 *  interface). */
int prf_decode_omp(struct prf_rank_data *out, size_t at, uint32_t payload, void *pl, char *err,
                   size_t errlen);
/** After all records: every OMP entry names an existing CCT node and a
 *  consistent team size.  0, or -1 with the entry in err. */
int prf_validate_omp(const struct prf_rank_data *d, char *err, size_t errlen);

#endif
