/* profile_table.c — the check every table record of a profile section
 * shares (INTERVALS and WORK in profile_io.c, OMP in profile_omp.c): a head
 * whose first field is the entry count, then that many entries.  Its own
 * file so that the decoder and the readers of single record types both use
 * it without calling each other in a circle (formats.no_cycles). */
#include "profile_io_internal.h"
#include "sc_err.h"

#include <string.h>

int prf_table_record(const char *name, int dup, size_t at, uint32_t payload, const void *pl, size_t head,
                     size_t elem, char *err, size_t errlen)
{
    if (dup)
        return sc_fail(err, errlen, "duplicate %s record at byte %zu", name, at);
    if (payload < head)
        return sc_fail(err, errlen, "%s record at byte %zu is %u bytes, shorter than its %zu-byte head", name,
                       at, payload, head);
    uint32_t count;
    memcpy(&count, pl, sizeof count);
    if ((uint64_t)count * elem != payload - head)
        return sc_fail(err, errlen, "%s record at byte %zu: %u entries but %zu bytes after the head", name, at,
                       count, (size_t)payload - head);
    return 0;
}
