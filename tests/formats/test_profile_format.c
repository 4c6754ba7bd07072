/* test_profile_format.c — rank section round trip, profile files with a range
 * of ranks and a missing rank, and clear refusal of truncated/corrupt files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scalana/profile_format.h"

static const char strings[] = "\0host-a\0/usr/bin/app\0abcdef0123\0world\0phase1\0sampler\0timer broke";
enum { S_HOST = 1, S_APP = 8, S_BID = 21, S_WORLD = 32, S_PHASE = 38, S_SAMPLER = 45, S_MSG = 53 };

static void fill(struct prf_rank_data *d, uint32_t rank, uint32_t world,
                 struct prf_module *mod, struct prf_cct_node *cct, struct prf_sample *smp,
                 struct prf_mpi_context *mpi, struct prf_peer *peer, struct prf_comm *comm,
                 uint32_t *members, uint32_t *first, struct prf_gpu_activity *gpu,
                 struct prf_phase *ph, struct prf_thread *th, struct prf_runtime_error *er)
{
    memset(d, 0, sizeof *d);
    d->info.world_rank = rank;
    d->info.world_size = world;
    d->info.hostname = S_HOST;
    d->info.sampler = PRF_SAMPLER_CPUTIME;
    d->info.sample_period_ns = 5000000;
    d->info.wall_ns = 1234567890123ull;
    d->info.samples_weight = 77;
    d->strings = strings;
    d->strings_bytes = sizeof strings;
    mod[0] = (struct prf_module){S_APP, S_BID, 0x400000};
    d->modules = mod, d->module_count = 1;
    cct[0] = (struct prf_cct_node){PRF_NONE, PRF_NONE, 0, PRF_CCT_ROOT, 0};
    cct[1] = (struct prf_cct_node){0, 0, 0x1234, PRF_CCT_CALLSITE, 0};
    cct[2] = (struct prf_cct_node){1, 0, 0x1300, PRF_CCT_PC, 0};
    d->cct = cct, d->cct_count = 3;
    smp[0] = (struct prf_sample){2, 0, 0, 0, 70, 77};
    smp[1] = (struct prf_sample){1, 0, PRF_SAMPLE_IN_MPI, 0, 5, 5};
    d->samples = smp, d->sample_count = 2;
    mpi[0] = (struct prf_mpi_context){0, 1, 7, 0, 0x1111, 10, 80, 80, 5000, 900, 100};
    d->mpi = mpi, d->mpi_count = 1;
    peer[0] = (struct prf_peer){0, (int32_t)((rank + 1) % world), 3, PRF_PEER_SEND, 0x1111,
                                10, 80, 4000, 2, 300};
    d->peers = peer, d->peer_count = 1;
    comm[0] = (struct prf_comm){0x1111, world, 0, rank, PRF_COMM_WORLD, rank == 0 ? world : 0,
                                S_WORLD};
    for (uint32_t i = 0; i < world; i++)
        members[i] = i;
    first[0] = 0;
    d->comms = comm, d->comm_count = 1, d->comm_members = members, d->comm_member_first = first;
    gpu[0] = (struct prf_gpu_activity){1, PRF_GPU_KERNEL, S_PHASE, 0, 3, 999, 0, 500};
    d->gpu = gpu, d->gpu_count = 1;
    ph[0] = (struct prf_phase){S_PHASE, 1, 4, 4444};
    d->phases = ph, d->phase_count = 1;
    th[0] = (struct prf_thread){0, PRF_THREAD_MAIN, PRF_NONE, 0, 4242, 75};
    d->threads = th, d->thread_count = 1;
    er[0] = (struct prf_runtime_error){S_SAMPLER, S_MSG};
    d->errors = er, d->error_count = 1;
}

#define DECL_STORAGE                                                                       \
    struct prf_module mod[1];                                                              \
    struct prf_cct_node cct[3];                                                            \
    struct prf_sample smp[2];                                                              \
    struct prf_mpi_context mpi[1];                                                         \
    struct prf_peer peer[1];                                                               \
    struct prf_comm comm[1];                                                               \
    uint32_t members[8], first[1];                                                         \
    struct prf_gpu_activity gpu[1];                                                        \
    struct prf_phase ph[1];                                                                \
    struct prf_thread th[1];                                                               \
    struct prf_runtime_error er[1]
#define FILL(d, r, w) fill(d, r, w, mod, cct, smp, mpi, peer, comm, members, first, gpu, ph, th, er)

static void section_roundtrip(void **state)
{
    (void)state;
    DECL_STORAGE;
    struct prf_rank_data d, e;
    FILL(&d, 0, 4);
    unsigned char *buf;
    size_t n;
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(n % 8, 0);
    char err[256];
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), 0);
    free(buf); /* decoded data must not point into the input */
    assert_int_equal(e.info.world_size, 4);
    assert_true(e.info.wall_ns == 1234567890123ull);
    assert_string_equal(prf_string(&e, e.info.hostname), "host-a");
    assert_string_equal(prf_string(&e, 99999), "");
    assert_int_equal(e.module_count, 1);
    assert_string_equal(prf_string(&e, e.modules[0].build_id), "abcdef0123");
    assert_int_equal(e.cct_count, 3);
    assert_int_equal(e.cct[2].parent, 1);
    assert_true(e.cct[1].address == 0x1234);
    assert_int_equal(e.sample_count, 2);
    assert_int_equal(e.samples[1].flags, PRF_SAMPLE_IN_MPI);
    assert_int_equal(e.mpi_count, 1);
    assert_true(e.mpi[0].bytes_sent == 80 && e.mpi[0].time_ns == 5000);
    assert_int_equal(e.peer_count, 1);
    assert_int_equal(e.peers[0].peer, 1);
    assert_int_equal(e.comm_count, 1);
    assert_int_equal(e.comms[0].member_count, 4);
    assert_int_equal(e.comm_members[e.comm_member_first[0] + 3], 3);
    assert_int_equal(e.gpu_count, 1);
    assert_true(e.gpu[0].time_ns == 999);
    assert_int_equal(e.phase_count, 1);
    assert_int_equal(e.thread_count, 1);
    assert_int_equal(e.error_count, 1);
    assert_string_equal(prf_string(&e, e.errors[0].message), "timer broke");
    prf_rank_free(&e);
}

static void section_refuses_bad_indices_and_truncation(void **state)
{
    (void)state;
    DECL_STORAGE;
    struct prf_rank_data d, e;
    FILL(&d, 1, 4);
    char err[256];
    unsigned char *buf;
    size_t n;
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    for (size_t cut = 0; cut < n; cut += 8) {
        assert_int_equal(prf_decode_rank(buf, cut, &e, err, sizeof err), -1);
        assert_true(strlen(err) > 0);
    }
    free(buf);
    smp[0].node = 3; /* out of range */
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "CCT node 3"));
    free(buf);
    smp[0].node = 2;
    cct[1].parent = 2; /* cycle */
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "parent"));
    free(buf);
}

/* ---- intervals (PRF_REC_INTERVALS) ------------------------------------------ */

static void fill_intervals(struct prf_rank_data *d, struct prf_interval *iv)
{
    d->has_intervals = 1;
    d->interval_info = (struct prf_interval_table){0, PRF_IV_CPU_AUTO, 100000, 3, 1};
    /* start -> ctx 0, ctx 0 -> ctx 0 (a loop), ctx 0 -> end */
    iv[0] = (struct prf_interval){PRF_NONE, 0, 0, 0, 1, 2000, 2000, 2000, 4e6, 0, 0, 0, 0};
    iv[1] = (struct prf_interval){0, 0, 0, 0, 9, 1800000000ull, 150000000ull, 250000000ull,
                                  3.7e17, 1700000000ull, 8, 1600000000ull, 20};
    iv[2] = (struct prf_interval){0, PRF_NONE, 0, 0, 1, 500, 500, 500, 2.5e5, 0, 0, 0, 0};
    d->intervals = iv, d->interval_count = 3;
}

/* Byte offset of the first record of type t in an encoded section, or (size_t)-1. */
static size_t find_record(const unsigned char *buf, size_t n, uint32_t t)
{
    size_t at = 0;
    while (at + sizeof(struct prf_record_header) <= n) {
        struct prf_record_header h;
        memcpy(&h, buf + at, sizeof h);
        if (h.type == t)
            return at;
        if (h.type == PRF_REC_END)
            break;
        at += sizeof h + ((h.payload_bytes + 7u) & ~7u);
    }
    return (size_t)-1;
}

static void intervals_roundtrip(void **state)
{
    (void)state;
    DECL_STORAGE;
    struct prf_interval iv[3];
    struct prf_rank_data d, e;
    FILL(&d, 0, 4);
    char err[256];
    unsigned char *buf;
    size_t n;
    /* without the record: decoded as "no intervals" (older profiles) */
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), 0);
    assert_int_equal(e.has_intervals, 0);
    assert_int_equal(e.interval_count, 0);
    assert_null(e.intervals);
    prf_rank_free(&e);
    free(buf);

    fill_intervals(&d, iv);
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), 0);
    free(buf);
    assert_int_equal(e.has_intervals, 1);
    assert_int_equal(e.interval_info.cpu_mode, PRF_IV_CPU_AUTO);
    assert_true(e.interval_info.long_ns == 100000 && e.interval_info.overflow == 3 &&
                e.interval_info.dropped == 1);
    assert_int_equal(e.interval_info.count, 3);
    assert_int_equal(e.interval_count, 3);
    assert_int_equal(e.intervals[0].prev_context, PRF_NONE);
    assert_int_equal(e.intervals[2].next_context, PRF_NONE);
    assert_true(e.intervals[1].count == 9 && e.intervals[1].wall_ns == 1800000000ull);
    assert_true(e.intervals[1].wall_min_ns == 150000000ull && e.intervals[1].wall_max_ns == 250000000ull);
    assert_true(e.intervals[1].wall_sq_ns2 == 3.7e17);
    assert_true(e.intervals[1].cpu_ns == 1700000000ull && e.intervals[1].cpu_count == 8);
    assert_true(e.intervals[1].cpu_wall_ns == 1600000000ull && e.intervals[1].cpu_samples == 20);
    prf_rank_free(&e);

    /* recorded but empty: still "has intervals" */
    d.interval_count = 0;
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), 0);
    assert_int_equal(e.has_intervals, 1);
    assert_int_equal(e.interval_count, 0);
    prf_rank_free(&e);
    free(buf);
}

/* Encodes d, lets edit() change the INTERVALS record's bytes (payload at p,
 * its header at h), and expects decoding to fail with `want` in the reason. */
static void expect_bad_intervals(struct prf_rank_data *d, void (*edit)(unsigned char *h, unsigned char *p),
                                 const char *want)
{
    unsigned char *buf;
    size_t n;
    assert_int_equal(prf_encode_rank(d, &buf, &n), 0);
    size_t at = find_record(buf, n, PRF_REC_INTERVALS);
    assert_true(at != (size_t)-1);
    edit(buf + at, buf + at + sizeof(struct prf_record_header));
    struct prf_rank_data e;
    char err[256] = "";
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("reason '%s' lacks '%s'", err, want);
    free(buf);
}

static void edit_count(unsigned char *h, unsigned char *p) { (void)h; uint32_t c = 4; memcpy(p, &c, 4); }
static void edit_huge_count(unsigned char *h, unsigned char *p) { (void)h; uint32_t c = 0x7fffffff; memcpy(p, &c, 4); }
static void edit_short(unsigned char *h, unsigned char *p)
{
    (void)p;
    uint32_t b = 16; /* shorter than the head */
    memcpy(h + 4, &b, 4);
}
static void edit_ctx(unsigned char *h, unsigned char *p)
{
    (void)h;
    uint32_t c = 7; /* next_context of entry 1: only 1 MPI context */
    memcpy(p + sizeof(struct prf_interval_table) + sizeof(struct prf_interval) + 4, &c, 4);
}
static void edit_minmax(unsigned char *h, unsigned char *p)
{
    (void)h;
    uint64_t v = 300000000ull; /* entry 1: min above max */
    memcpy(p + sizeof(struct prf_interval_table) + sizeof(struct prf_interval) +
           offsetof(struct prf_interval, wall_min_ns), &v, 8);
}
static void edit_zero(unsigned char *h, unsigned char *p)
{
    (void)h;
    uint64_t v = 0; /* entry 0: count 0 */
    memcpy(p + sizeof(struct prf_interval_table) + offsetof(struct prf_interval, count), &v, 8);
}
static void edit_nan(unsigned char *h, unsigned char *p)
{
    (void)h;
    double v = -1.0;
    memcpy(p + sizeof(struct prf_interval_table) + offsetof(struct prf_interval, wall_sq_ns2), &v, 8);
}
static void edit_mode(unsigned char *h, unsigned char *p) { (void)h; uint32_t m = 9; memcpy(p + 4, &m, 4); }

static void intervals_refused_when_corrupt(void **state)
{
    (void)state;
    DECL_STORAGE;
    struct prf_interval iv[3];
    struct prf_rank_data d, e;
    FILL(&d, 0, 4);
    fill_intervals(&d, iv);
    expect_bad_intervals(&d, edit_count, "4 entries but");
    expect_bad_intervals(&d, edit_huge_count, "entries but");
    expect_bad_intervals(&d, edit_short, "shorter than its");
    expect_bad_intervals(&d, edit_ctx, "names MPI contexts 0 -> 7 of 1");
    expect_bad_intervals(&d, edit_minmax, "interval 1 is inconsistent");
    expect_bad_intervals(&d, edit_zero, "interval 0 is inconsistent");
    expect_bad_intervals(&d, edit_nan, "interval 0 is inconsistent");
    expect_bad_intervals(&d, edit_mode, "unknown CPU mode 9");
    /* every truncation of a section with intervals is refused with a reason */
    unsigned char *buf;
    size_t n;
    char err[256];
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    for (size_t cut = 0; cut < n; cut += 4) {
        err[0] = 0;
        assert_int_equal(prf_decode_rank(buf, cut, &e, err, sizeof err), -1);
        assert_true(strlen(err) > 0);
    }
    /* a duplicated INTERVALS record */
    size_t at = find_record(buf, n, PRF_REC_INTERVALS), end = find_record(buf, n, PRF_REC_END);
    size_t rec = end - at;
    unsigned char *two = malloc(n + rec);
    memcpy(two, buf, end);
    memcpy(two + end, buf + at, rec);
    memcpy(two + end + rec, buf + end, n - end);
    assert_int_equal(prf_decode_rank(two, n + rec, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "duplicate INTERVALS"));
    free(two);
    free(buf);
}

static char *tmpname(const char *base)
{
    static char buf[4096];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, sizeof buf, "%s/%s-%d", dir, base, (int)getpid());
    return buf;
}

/* PRF_REC_OMP: two entries of one region (master and worker) round trip. */
static void fill_omp(struct prf_rank_data *d, struct prf_omp_region *om)
{
    om[0] = (struct prf_omp_region){1, 0, 4, 4, 10, 10, 5000000, 100, 2000000, 10, 0, 10, 4000};
    om[1] = (struct prf_omp_region){1, 1, 4, 4, 10, 0, 0, 3000000, 50, 10, 0, 10, 4000};
    d->has_omp = 1;
    d->omp_info = (struct prf_omp_table){2, PRF_OMP_OMPT, 2, 0, 0, 0};
    d->omp = om, d->omp_count = 2;
}

static void omp_roundtrip(void **state)
{
    (void)state;
    DECL_STORAGE;
    struct prf_omp_region om[2];
    struct prf_rank_data d, e;
    FILL(&d, 0, 4);
    fill_omp(&d, om);
    unsigned char *buf;
    size_t n;
    char err[256];
    assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), 0);
    assert_int_equal(e.has_omp, 1);
    assert_int_equal(e.omp_count, 2);
    assert_int_equal(e.omp_info.interface, PRF_OMP_OMPT);
    assert_memory_equal(e.omp, om, sizeof om);
    prf_rank_free(&e);
    /* a reader that does not know the record skips it: an unknown type decodes */
    size_t at = find_record(buf, n, PRF_REC_OMP);
    uint32_t other = 999;
    memcpy(buf + at, &other, 4);
    assert_int_equal(prf_decode_rank(buf, n, &e, err, sizeof err), 0);
    assert_int_equal(e.has_omp, 0);
    prf_rank_free(&e);
    free(buf);
}

/* A corrupt or truncated OMP record in a profile file whose checksum matches
 * (a faulty writer): the reader names the file, the rank, the record and why. */
static void omp_corrupt_names_file(void **state)
{
    (void)state;
    DECL_STORAGE;
    struct prf_omp_region om[2];
    struct prf_rank_data d, e;
    FILL(&d, 0, 1);
    fill_omp(&d, om);
    static const struct { size_t off; uint32_t value; const char *want; } bad[] = {
        {0, 3, "OMP record at byte"},                  /* count: 3 entries, 2 present */
        {4, 7, "unknown interface 7"},
        {32, 99, "OMP region 0 names CCT node 99 of 3"}, /* entry 0's node */
        {32 + 8, 0, "OMP region 0 is inconsistent"},     /* entry 0's team_min */
        {SIZE_MAX, 40, "OMP record at byte"},             /* payload_bytes: shorter than one entry */
    };
    const char *path = tmpname("omp.sclp");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unsigned char *buf;
        size_t n;
        assert_int_equal(prf_encode_rank(&d, &buf, &n), 0);
        size_t at = find_record(buf, n, PRF_REC_OMP);
        if (bad[k].off == SIZE_MAX)
            memcpy(buf + at + 4, &bad[k].value, 4);
        else
            memcpy(buf + at + sizeof(struct prf_record_header) + bad[k].off, &bad[k].value, 4);
        const unsigned char *secs[1] = {buf};
        assert_int_equal(prf_file_write(path, 0, 1, 1, 0, secs, &n), 0);
        struct prf_file f;
        char err[512] = "";
        assert_int_equal(prf_file_open(path, &f, err, sizeof err), 0);
        assert_int_equal(prf_file_read_rank(&f, 0, &e, err, sizeof err), -1);
        if (!strstr(err, path) || !strstr(err, "rank 0") || !strstr(err, bad[k].want))
            fail_msg("case %zu: reason '%s' lacks the file, the rank or '%s'", k, err, bad[k].want);
        prf_file_close(&f);
        free(buf);
    }
    remove(path);
}

static void file_with_missing_rank(void **state)
{
    (void)state;
    DECL_STORAGE;
    unsigned char *secs[4] = {0};
    size_t sizes[4] = {0};
    struct prf_rank_data d;
    for (uint32_t r = 0; r < 4; r++) {
        if (r == 2)
            continue; /* rank 2 never wrote */
        FILL(&d, r, 4);
        assert_int_equal(prf_encode_rank(&d, &secs[r], &sizes[r]), 0);
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", tmpname("run"));
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/profile-000000-000003.sclp", dir);
    assert_int_equal(prf_file_write(path, 0, 4, 4, 0xabcdef, (const unsigned char *const *)secs,
                                    sizes), 0);
    char **files;
    char err[512];
    assert_int_equal(prf_run_list_files(dir, &files, err, sizeof err), 1);
    assert_string_equal(files[0], path);
    free(files[0]), free(files);
    struct prf_file f;
    assert_int_equal(prf_file_open(path, &f, err, sizeof err), 0);
    assert_int_equal(f.header.rank_count, 4);
    assert_true(f.header.exe_hash == 0xabcdef);
    struct prf_rank_data e;
    for (uint32_t i = 0; i < 4; i++) {
        int rc = prf_file_read_rank(&f, i, &e, err, sizeof err);
        assert_int_equal(rc, i == 2 ? 0 : 1);
        if (rc == 1) {
            assert_int_equal(e.info.world_rank, i);
            assert_int_equal(e.peers[0].peer, (int)((i + 1) % 4));
            prf_rank_free(&e);
        }
    }
    prf_file_close(&f);

    /* a rank whose INTERVALS record is cut short (checksum recomputed, so only
     * the decoder can tell): an error naming the file, the rank and the record */
    {
        struct prf_interval iv[3];
        FILL(&d, 1, 4);
        fill_intervals(&d, iv);
        unsigned char *sec;
        size_t sn;
        assert_int_equal(prf_encode_rank(&d, &sec, &sn), 0);
        size_t at = find_record(sec, sn, PRF_REC_INTERVALS);
        uint32_t short_bytes = (uint32_t)(sizeof(struct prf_interval_table) + sizeof(struct prf_interval));
        memcpy(sec + at + 4, &short_bytes, 4); /* claims 1 entry's bytes, head says 3 */
        char p2[4300];
        snprintf(p2, sizeof p2, "%s/profile-000001-000001.sclp", dir);
        const unsigned char *one[1] = {sec};
        assert_int_equal(prf_file_write(p2, 1, 1, 4, 0, one, &sn), 0);
        struct prf_file f2;
        assert_int_equal(prf_file_open(p2, &f2, err, sizeof err), 0);
        assert_int_equal(prf_file_read_rank(&f2, 0, &e, err, sizeof err), -1);
        assert_non_null(strstr(err, p2));
        assert_non_null(strstr(err, "rank 1"));
        assert_non_null(strstr(err, "INTERVALS"));
        prf_file_close(&f2);
        free(sec);
        remove(p2);
    }

    /* flip one byte in rank 3's section: a checksum error naming file and rank */
    FILE *fp = fopen(path, "r+b");
    fseek(fp, -20, SEEK_END);
    fputc(0x5a, fp);
    fclose(fp);
    assert_int_equal(prf_file_open(path, &f, err, sizeof err), 0);
    assert_int_equal(prf_file_read_rank(&f, 3, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "rank 3"));
    assert_int_equal(prf_file_read_rank(&f, 0, &e, err, sizeof err), 1); /* others still read */
    prf_rank_free(&e);
    prf_file_close(&f);

    /* truncate: the last rank is reported truncated, the earlier ones still read */
    assert_int_equal(truncate(path, (off_t)(prf_file_prefix_bytes(4) + sizes[0] + sizes[1] + 10)), 0);
    assert_int_equal(prf_file_open(path, &f, err, sizeof err), 0);
    assert_int_equal(prf_file_read_rank(&f, 1, &e, err, sizeof err), 1);
    prf_rank_free(&e);
    assert_int_equal(prf_file_read_rank(&f, 3, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "truncated"));
    prf_file_close(&f);

    /* shorter than the header; and a foreign file */
    assert_int_equal(truncate(path, 10), 0);
    assert_int_equal(prf_file_open(path, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "truncated"));
    fp = fopen(path, "wb");
    for (int i = 0; i < 200; i++)
        fputs("not a profile ", fp);
    fclose(fp);
    assert_int_equal(prf_file_open(path, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad magic"));
    for (int r = 0; r < 4; r++)
        free(secs[r]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void prefix_offsets(void **state)
{
    (void)state;
    uint64_t sizes[3] = {100, 0, 40}, offs[3];
    uint32_t crcs[3] = {1, 0, 2};
    unsigned char buf[64 + 3 * 24];
    assert_int_equal(prf_file_prefix_bytes(3), sizeof buf);
    prf_file_prefix_build(buf, 5, 3, 8, 0, sizes, crcs, offs);
    assert_true(offs[0] == sizeof buf && offs[2] == sizeof buf + 100);
    struct prf_file_header h;
    memcpy(&h, buf, sizeof h);
    assert_true(h.file_bytes == sizeof buf + 140);
    assert_int_equal(h.first_rank, 5);
    struct prf_index_entry e;
    memcpy(&e, buf + 64 + 24, sizeof e);
    assert_true(e.bytes == 0 && e.offset == 0 && e.world_rank == 6);
}

static void crc_matches_zlib(void **state)
{
    (void)state;
    /* the standard check value of CRC-32 */
    assert_true(prf_crc32("123456789", 9) == 0xCBF43926u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(section_roundtrip),
        cmocka_unit_test(section_refuses_bad_indices_and_truncation),
        cmocka_unit_test(intervals_roundtrip), cmocka_unit_test(intervals_refused_when_corrupt),
        cmocka_unit_test(file_with_missing_rank), cmocka_unit_test(prefix_offsets),
        cmocka_unit_test(crc_matches_zlib), cmocka_unit_test(omp_roundtrip),
        cmocka_unit_test(omp_corrupt_names_file)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
