/* fuzz_prf_rank.c — libFuzzer target for prf_decode_rank (one profile rank
 * section).  Checks: no memory error on any input; every array and string a
 * successful decode hands out is readable in full; a decoded section encodes
 * again and that decodes too (round trip). */
#include "fuzz_common.h"
#include "scalana/profile_format.h"

#include <stdint.h>

static void touch_rank(const struct prf_rank_data *d)
{
    fuzz_touch(&d->info, sizeof d->info);
    fuzz_touch(d->strings, d->strings_bytes);
    fuzz_touch(d->modules, (size_t)d->module_count * sizeof *d->modules);
    for (uint32_t i = 0; i < d->module_count; i++) {
        fuzz_touch_str(prf_string(d, d->modules[i].path));
        fuzz_touch_str(prf_string(d, d->modules[i].build_id));
    }
    fuzz_touch(d->cct, (size_t)d->cct_count * sizeof *d->cct);
    fuzz_touch(d->samples, (size_t)d->sample_count * sizeof *d->samples);
    fuzz_touch(d->mpi, (size_t)d->mpi_count * sizeof *d->mpi);
    fuzz_touch(d->peers, (size_t)d->peer_count * sizeof *d->peers);
    fuzz_touch(d->comms, (size_t)d->comm_count * sizeof *d->comms);
    for (uint32_t i = 0; i < d->comm_count; i++) {
        fuzz_touch_str(prf_string(d, d->comms[i].name));
        /* the contract: member_count members from comm_member_first[i] */
        fuzz_touch(d->comm_members + d->comm_member_first[i],
                   (size_t)d->comms[i].member_count * sizeof(uint32_t));
    }
    fuzz_touch(d->gpu, (size_t)d->gpu_count * sizeof *d->gpu);
    for (uint32_t i = 0; i < d->gpu_count; i++)
        fuzz_touch_str(prf_string(d, d->gpu[i].name));
    fuzz_touch(d->phases, (size_t)d->phase_count * sizeof *d->phases);
    for (uint32_t i = 0; i < d->phase_count; i++)
        fuzz_touch_str(prf_string(d, d->phases[i].name));
    fuzz_touch(d->threads, (size_t)d->thread_count * sizeof *d->threads);
    fuzz_touch(d->errors, (size_t)d->error_count * sizeof *d->errors);
    for (uint32_t i = 0; i < d->error_count; i++) {
        fuzz_touch_str(prf_string(d, d->errors[i].part));
        fuzz_touch_str(prf_string(d, d->errors[i].message));
    }
    fuzz_touch_str(prf_string(d, d->info.hostname));
    fuzz_touch_str(prf_string(d, UINT32_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct prf_rank_data d;
    char err[256];
    memset(err, 0x5a, sizeof err);
    if (prf_decode_rank(data, size, &d, err, sizeof err) != 0) {
        fuzz_check_err(err, sizeof err);
        return 0;
    }
    touch_rank(&d);
    unsigned char *buf = NULL;
    size_t n = 0;
    if (prf_encode_rank(&d, &buf, &n) == 0) {
        struct prf_rank_data e;
        if (prf_decode_rank(buf, n, &e, err, sizeof err) != 0)
            abort(); /* what decodes must survive a round trip */
        if (e.cct_count != d.cct_count || e.sample_count != d.sample_count ||
            e.mpi_count != d.mpi_count || e.comm_count != d.comm_count)
            abort();
        prf_rank_free(&e);
        free(buf);
    }
    prf_rank_free(&d);
    return 0;
}
