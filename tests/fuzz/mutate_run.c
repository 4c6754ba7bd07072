/* mutate_run.c — semantic mutations of a run directory for robustness tests
 * of scalana-analyze: every rank section is decoded, a few fields get values
 * that pass the decoder's structural checks but are nonsense (peers outside
 * the world, unknown MPI codes, zero periods, huge times, communicators whose
 * members do not exist, computation intervals with extreme times...),
 * re-encoded and written back in the same files.
 *   mutate_run IN_DIR OUT_DIR SEED [MUTATIONS_PER_RANK]
 * Deterministic for a seed.  run.json is copied, and mutated for some seeds. */
#include "scalana/profile_format.h"
#include "scalana/run_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng;

static uint64_t next(void)
{
    rng += 0x9e3779b97f4a7c15ull;
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n) { return n ? (uint32_t)(next() % n) : 0; }

static void die(const char *what)
{
    fprintf(stderr, "mutate_run: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* An interesting 64-bit value. */
static uint64_t wild64(void)
{
    static const uint64_t v[] = {0, 1, UINT64_MAX, UINT64_MAX / 2, (uint64_t)INT64_MAX + 1,
                                 1000000000000000000ull, 3};
    return below(3) ? v[below(sizeof v / sizeof *v)] : next();
}

static uint32_t wild32(uint32_t world)
{
    const uint32_t v[] = {0, 1, world, world + 1, world - 1, UINT32_MAX, UINT32_MAX - 1,
                          INT32_MAX, 1u << 31};
    return below(3) ? v[below(sizeof v / sizeof *v)] : (uint32_t)next();
}

static char *strings_copy;
static struct prf_interval mut_iv[8];

/* One mutation of d (its arrays are owned by the decoder and writable). */
static void mutate(struct prf_rank_data *d, uint32_t world)
{
    switch (below(17)) {
    case 16: {
        /* computation intervals between random contexts with extreme times
         * (mostly consistent, so that the decoder accepts them) */
        uint32_t n = 1 + below(8);
        for (uint32_t k = 0; k < n; k++) {
            struct prf_interval *v = &mut_iv[k];
            memset(v, 0, sizeof *v);
            v->prev_context = d->mpi_count && below(4) ? below(d->mpi_count) : PRF_NONE;
            v->next_context = d->mpi_count && below(4) ? below(d->mpi_count) : PRF_NONE;
            v->thread = wild32(world);
            v->count = 1 + below(3) * wild64() / 2;
            v->wall_ns = wild64();
            v->wall_max_ns = below(2) ? v->wall_ns : v->wall_ns / 2;
            v->wall_min_ns = below(2) ? v->wall_max_ns : 0;
            v->wall_sq_ns2 = below(2) ? (double)v->wall_ns * (double)v->wall_ns : 1e300;
            v->cpu_count = below(2) ? v->count : 0;
            v->cpu_ns = wild64();
            v->cpu_wall_ns = below(2) ? v->wall_ns : 0;
            v->cpu_samples = wild64();
        }
        d->has_intervals = 1;
        d->interval_info = (struct prf_interval_table){n, below(4), wild64(), wild64(), wild64()};
        d->intervals = mut_iv, d->interval_count = n;
        break;
    }
    case 0:
        if (d->peer_count) d->peers[below(d->peer_count)].peer = (int32_t)wild32(world);
        break;
    case 1:
        if (d->peer_count) {
            struct prf_peer *p = &d->peers[below(d->peer_count)];
            p->comm_id = wild64(), p->tag = (int32_t)wild32(world), p->flags = wild32(world);
        }
        break;
    case 2:
        if (d->mpi_count) d->mpi[below(d->mpi_count)].op = below(2) ? below(512) : wild32(world);
        break;
    case 3:
        if (d->mpi_count) {
            struct prf_mpi_context *m = &d->mpi[below(d->mpi_count)];
            m->time_ns = wild64(), m->max_time_ns = wild64(), m->min_time_ns = wild64();
            m->calls = wild64();
        }
        break;
    case 4:
        if (d->mpi_count) d->mpi[below(d->mpi_count)].comm_id = wild64();
        break;
    case 5:
        if (d->cct_count) {
            struct prf_cct_node *c = &d->cct[below(d->cct_count)];
            c->address = wild64();
            if (c->kind != PRF_CCT_ROOT && below(2))
                c->kind = below(2) ? PRF_CCT_OVERFLOW : PRF_CCT_PC;
        }
        break;
    case 6:
        if (d->cct_count) d->cct[below(d->cct_count)].module = PRF_NONE;
        break;
    case 7:
        if (d->sample_count) {
            struct prf_sample *s = &d->samples[below(d->sample_count)];
            s->thread = wild32(world), s->flags = wild32(world);
            s->count = wild64(), s->weight = wild64();
        }
        break;
    case 8:
        d->info.sample_period_ns = wild64();
        break;
    case 9:
        d->info.wall_ns = wild64(), d->info.cpu_user_ns = wild64(), d->info.mpi_time_ns = wild64();
        break;
    case 10:
        d->info.usable_cores = wild32(world), d->info.ranks_on_host = wild32(world);
        d->info.thread_count = wild32(world);
        break;
    case 11:
        d->info.world_size = wild32(world);
        break;
    case 12:
        for (uint32_t i = 0; i < d->comm_count; i++) {
            d->comms[i].size = wild32(world), d->comms[i].local_rank = wild32(world);
            d->comms[i].remote_size = below(2) ? 0 : wild32(world);
        }
        break;
    case 13:
        if (d->comm_members && d->comm_count && d->comms[0].member_count)
            d->comm_members[below(d->comms[0].member_count)] = wild32(world);
        break;
    case 14:
        for (uint32_t i = 0; i < d->thread_count; i++)
            d->threads[i].index = wild32(world), d->threads[i].creator = PRF_NONE;
        break;
    case 15:
        /* the strings: a module path or build-id that names nothing */
        if (strings_copy && d->strings_bytes > 2) {
            size_t at = 1 + below((uint32_t)d->strings_bytes - 2);
            if (strings_copy[at])
                strings_copy[at] = (char)('a' + below(26));
        }
        break;
    }
}

static int copy_json(const char *in, const char *out, uint32_t seed)
{
    char src[4096], dst[4096];
    snprintf(src, sizeof src, "%s/%s", in, SCALANA_RUN_INFO_FILE);
    snprintf(dst, sizeof dst, "%s/%s", out, SCALANA_RUN_INFO_FILE);
    FILE *f = fopen(src, "rb");
    if (!f)
        return 0; /* no run.json: nothing to copy */
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (seed % 5 == 0) {
        /* change the process count or the build-id */
        char *p = strstr(buf, seed % 10 == 0 ? "\"processes\": " : "\"build_id\": \"");
        if (p) {
            p = strchr(p, ':') + 2;
            if (*p == '"')
                p[1] = p[1] == '0' ? '1' : '0';
            else
                *p = (char)('1' + seed % 9);
        }
    }
    FILE *o = fopen(dst, "wb");
    if (!o || fwrite(buf, 1, n, o) != n || fclose(o) != 0)
        die(dst);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: mutate_run IN_DIR OUT_DIR SEED [MUTATIONS_PER_RANK]\n");
        return 2;
    }
    const char *in = argv[1], *out = argv[2];
    uint32_t seed = (uint32_t)strtoul(argv[3], NULL, 10);
    int per_rank = argc == 5 ? atoi(argv[4]) : 2;
    rng = seed * 0x2545f4914f6cdd1dull + 1;
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        die(out);
    char err[512];
    char **paths;
    int nf = prf_run_list_files(in, &paths, err, sizeof err);
    if (nf < 0) {
        fprintf(stderr, "mutate_run: %s\n", err);
        return 2;
    }
    for (int fi = 0; fi < nf; fi++) {
        struct prf_file f;
        if (prf_file_open(paths[fi], &f, err, sizeof err) != 0) {
            fprintf(stderr, "mutate_run: %s\n", err);
            return 2;
        }
        uint32_t count = f.header.rank_count, world = f.header.world_size;
        unsigned char **secs = calloc(count, sizeof *secs);
        size_t *sizes = calloc(count, sizeof *sizes);
        if (!secs || !sizes)
            die("calloc");
        for (uint32_t i = 0; i < count; i++) {
            struct prf_rank_data d;
            int rc = prf_file_read_rank(&f, i, &d, err, sizeof err);
            if (rc <= 0)
                continue;
            if (below(50) == 0) { /* this rank goes missing */
                prf_rank_free(&d);
                continue;
            }
            strings_copy = malloc(d.strings_bytes ? d.strings_bytes : 1);
            if (!strings_copy)
                die("malloc");
            memcpy(strings_copy, d.strings, d.strings_bytes);
            d.strings = strings_copy;
            int k = per_rank > 0 ? 1 + (int)below((uint32_t)per_rank) : 0;
            for (int m = 0; m < k; m++)
                mutate(&d, world);
            if (prf_encode_rank(&d, &secs[i], &sizes[i]) != 0)
                die("prf_encode_rank");
            free(strings_copy);
            strings_copy = NULL;
            prf_rank_free(&d);
        }
        const char *base = strrchr(paths[fi], '/');
        char dst[4096];
        snprintf(dst, sizeof dst, "%s/%s", out, base ? base + 1 : paths[fi]);
        if (prf_file_write(dst, f.header.first_rank, count, world, f.header.exe_hash,
                           (const unsigned char *const *)secs, sizes) != 0)
            die(dst);
        for (uint32_t i = 0; i < count; i++)
            free(secs[i]);
        free(secs), free(sizes);
        prf_file_close(&f);
        free(paths[fi]);
    }
    free(paths);
    return copy_json(in, out, seed);
}
