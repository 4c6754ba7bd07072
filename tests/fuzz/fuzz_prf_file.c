/* fuzz_prf_file.c — libFuzzer target for prf_file_open + prf_file_read_rank
 * on a whole profile file (kept in a memfd, opened through /proc/self/fd).
 * Unless byte 0 of the header's reserved field is 0xff, the index entries'
 * CRCs are recomputed before writing, so mutations reach the section decoder
 * instead of stopping at the checksum; 0xff exercises the checksum path. */
#include "fuzz_common.h"
#include "scalana/profile_format.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_RANKS_READ 256 /* bound the work per input */

static int memfd = -1;
static char path[64];

static void fix_crcs(unsigned char *b, size_t n)
{
    if (n < sizeof(struct prf_file_header))
        return;
    struct prf_file_header h;
    memcpy(&h, b, sizeof h);
    if (h.reserved[0] == 0xff)
        return;
    for (uint64_t i = 0; i < h.rank_count && i < MAX_RANKS_READ; i++) {
        size_t at = sizeof h + (size_t)i * sizeof(struct prf_index_entry);
        if (at + sizeof(struct prf_index_entry) > n)
            break;
        struct prf_index_entry e;
        memcpy(&e, b + at, sizeof e);
        if (e.bytes && e.offset <= n && e.bytes <= n - e.offset) {
            e.crc32 = prf_crc32(b + e.offset, e.bytes);
            memcpy(b + at, &e, sizeof e);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("scalana-fuzz-profile", 0);
        if (memfd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    fix_crcs(copy, size);
    if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, copy, size, 0) != (ssize_t)size))
        abort();
    free(copy);

    struct prf_file f;
    char err[512];
    memset(err, 0x5a, sizeof err);
    if (prf_file_open(path, &f, err, sizeof err) != 0) {
        fuzz_check_err(err, sizeof err);
        return 0;
    }
    fuzz_touch(f.index, (size_t)f.header.rank_count * sizeof *f.index);
    fuzz_touch_str(f.path);
    for (uint32_t i = 0; i < f.header.rank_count && i < MAX_RANKS_READ; i++) {
        struct prf_rank_data d;
        memset(err, 0x5a, sizeof err);
        int rc = prf_file_read_rank(&f, i, &d, err, sizeof err);
        if (rc < 0) {
            fuzz_check_err(err, sizeof err);
            continue;
        }
        if (rc == 1) {
            fuzz_touch(d.strings, d.strings_bytes);
            fuzz_touch(d.cct, (size_t)d.cct_count * sizeof *d.cct);
            prf_rank_free(&d);
        }
    }
    /* out-of-range index is an error, not a crash */
    struct prf_rank_data d;
    if (prf_file_read_rank(&f, f.header.rank_count, &d, err, sizeof err) != -1)
        abort();
    prf_file_close(&f);
    return 0;
}
