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

static char *tmpname(const char *base)
{
    static char buf[4096];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, sizeof buf, "%s/%s-%d", dir, base, (int)getpid());
    return buf;
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
        cmocka_unit_test(file_with_missing_rank), cmocka_unit_test(prefix_offsets),
        cmocka_unit_test(crc_matches_zlib)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
