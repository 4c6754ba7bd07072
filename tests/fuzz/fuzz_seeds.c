/* fuzz_seeds.c — writes the seed corpora of the fuzz targets with the
 * formats' own writers: fuzz_seeds OUT_DIR creates OUT_DIR/{prf_rank,
 * prf_file,psg,psg_elf,run_info}/ with small valid inputs using every record
 * kind (psg_elf: a minimal ELF64 relocatable file holding a PSG section),
 * then reads every seed back with the readers: a seed the readers refuse
 * would only fuzz the error paths, so that fails the build. */
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

static const char *out_dir;

static void die(const char *what)
{
    fprintf(stderr, "fuzz_seeds: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void mkdir_p(const char *sub)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", out_dir, sub);
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        die(out_dir);
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        die(p);
}

static void put(const char *sub, const char *name, const void *b, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s/%s", out_dir, sub, name);
    FILE *f = fopen(p, "wb");
    if (!f || (n && fwrite(b, 1, n, f) != n) || fclose(f) != 0)
        die(p);
}

/* A rank with one record of every kind; minimal when full == 0. */
static unsigned char *make_rank(uint32_t rank, uint32_t world, int full, size_t *n)
{
    static const char strings[] = "\0node01\0/usr/bin/app\0abcdef0123\0MPI_COMM_WORLD\0"
                                  "kernel\0phase1\0sampler\0timer failed";
    /* offsets:          0 1      8             21         32               47     54 61 69 */
    struct prf_rank_data d;
    memset(&d, 0, sizeof d);
    d.info.world_rank = rank;
    d.info.world_size = world;
    d.info.pid = 1000 + rank;
    d.info.flags = PRF_RANK_FINALIZED;
    d.info.hostname = 1;
    d.info.usable_cores = 2;
    d.info.ranks_on_host = world;
    d.info.sampler = PRF_SAMPLER_CPUTIME;
    d.info.sample_period_ns = 1000000;
    d.info.wall_ns = 2000000000;
    d.info.cpu_user_ns = 1500000000;
    d.info.samples_taken = d.info.samples_weight = 1500;
    d.info.mpi_time_ns = 300000000;
    d.info.thread_count = 2;
    d.strings = strings;
    d.strings_bytes = sizeof strings;
    struct prf_module mod[2] = {{8, 21, 0x400000}, {0, 0, 0x7f0000000000}};
    struct prf_cct_node cct[6] = {
        {PRF_NONE, PRF_NONE, 0, PRF_CCT_ROOT, 0}, {0, 0, 0x1234, PRF_CCT_CALLSITE, 0},
        {1, 0, 0x2000, PRF_CCT_PC, 0},           {1, 0, 0x2100, PRF_CCT_CALLSITE, 0},
        {PRF_NONE, PRF_NONE, 1, PRF_CCT_ROOT, 0}, {4, 1, 0x99, PRF_CCT_OVERFLOW, 0}};
    struct prf_sample smp[3] = {{2, 0, 0, 0, 1400, 1400}, {3, 0, PRF_SAMPLE_IN_MPI, 0, 90, 92},
                                {5, 1, 0, 0, 8, 8}};
    struct prf_mpi_context mpi[2] = {
        {0, 3, 1, 0, 1, 100, 800, 800, 250000000, 5000000, 1000},
        {1, 3, 2, PRF_MPI_NONBLOCKING, 1, 50, 4000, 0, 50000000, 2000000, 500}};
    struct prf_peer peer[2] = {
        {1, (int32_t)((rank + 1) % world), 7, PRF_PEER_SEND, 1, 50, 4000, 10000, 0, 0},
        {1, PRF_ANY_RANK, 7, PRF_PEER_RECV, 1, 50, 4000, 40000000, 12, 3000000}};
    struct prf_comm comm[2] = {{1, world, 0, rank, PRF_COMM_WORLD, rank == 0 ? world : 0, 32},
                               {2, 1, 0, 0, PRF_COMM_SELF, 1, 0}};
    uint32_t members[64 + 1];
    uint32_t first[2] = {0, rank == 0 ? world : 0};
    for (uint32_t i = 0; i < world && i < 64; i++)
        members[i] = i;
    members[rank == 0 ? world : 0] = rank;
    struct prf_gpu_activity gpu[1] = {{1, PRF_GPU_KERNEL, 47, 0, 10, 5000000, 0, 600000}};
    struct prf_phase ph[1] = {{54, 1, 1, 1000000000}};
    struct prf_thread th[2] = {{0, PRF_THREAD_MAIN, PRF_NONE, 0, 1000, 1400},
                               {1, PRF_THREAD_APP, 1, 0, 1001, 8}};
    struct prf_runtime_error er[1] = {{61, 69}};
    /* start -> ctx 0, ctx 0 -> ctx 1 (CPU clock and samples), ctx 1 -> end on thread 1 */
    struct prf_interval iv[3] = {
        {PRF_NONE, 0, 0, 0, 1, 5000, 5000, 5000, 2.5e7, 0, 0, 0, 0},
        {0, 1, 0, 0, 50, 1000000000, 10000000, 30000000, 2.1e16, 900000000, 40, 800000000, 15},
        {1, PRF_NONE, 1, 0, 1, 700, 700, 700, 4.9e5, 0, 0, 0, 1}};
    if (full) {
        d.has_intervals = 1;
        d.interval_info = (struct prf_interval_table){3, PRF_IV_CPU_AUTO, 200000, 2, 0};
        d.intervals = iv, d.interval_count = 3;
        d.modules = mod, d.module_count = 2;
        d.cct = cct, d.cct_count = 6;
        d.samples = smp, d.sample_count = 3;
        d.mpi = mpi, d.mpi_count = 2;
        d.peers = peer, d.peer_count = 2;
        d.comms = comm, d.comm_count = 2;
        d.comm_members = members, d.comm_member_first = first;
        d.gpu = gpu, d.gpu_count = 1;
        d.phases = ph, d.phase_count = 1;
        d.threads = th, d.thread_count = 2;
        d.errors = er, d.error_count = 1;
    }
    unsigned char *b;
    if (prf_encode_rank(&d, &b, n) != 0)
        die("prf_encode_rank");
    return b;
}

static void seeds_profiles(void)
{
    mkdir_p("prf_rank");
    mkdir_p("prf_file");
    size_t n0, n1, n2;
    unsigned char *r0 = make_rank(0, 4, 1, &n0), *r1 = make_rank(1, 4, 0, &n1),
                  *r3 = make_rank(3, 4, 1, &n2);
    put("prf_rank", "full", r0, n0);
    put("prf_rank", "minimal", r1, n1);
    put("prf_rank", "nonzero-rank", r3, n2);
    /* ranks 0..3, rank 2 missing */
    const unsigned char *secs[4] = {r0, r1, NULL, r3};
    size_t sizes[4] = {n0, n1, 0, n2};
    char p[4096];
    snprintf(p, sizeof p, "%s/prf_file/four-ranks-one-missing", out_dir);
    if (prf_file_write(p, 0, 4, 4, 0x1234567890abcdefull, secs, sizes) != 0)
        die(p);
    snprintf(p, sizeof p, "%s/prf_file/one-rank", out_dir);
    const unsigned char *one[1] = {r3};
    if (prf_file_write(p, 3, 1, 4, 0, one, &n2) != 0)
        die(p);
    free(r0), free(r1), free(r3);
}

static unsigned char *make_unit(const char *name, int big, size_t *n)
{
    struct psg_builder *b = psg_builder_new(name, "clang version 19", PSG_LANG_C,
                                            PSG_UNIT_HAS_DEBUG_INFO | PSG_UNIT_OPTIMIZED, 3);
    if (!b)
        die("psg_builder_new");
    struct psg_vertex v;
    memset(&v, 0, sizeof v);
    v.file = name;
    v.function = "main";
    v.display_name = "main";
    v.kind = PSG_FUNCTION;
    v.parent = PSG_NO_PARENT;
    v.first_line = 10, v.last_line = 40;
    v.flags = PSG_V_REACHES_MPI;
    v.stable_id = psg_fnv1a64("main", 4, PSG_FNV_SEED);
    uint32_t fn = psg_builder_add(b, &v);
    v.parent = fn, v.kind = PSG_LOOP, v.first_line = 12, v.last_line = 30, v.loop_depth = 0;
    v.stable_id++;
    uint32_t loop = psg_builder_add(b, &v);
    v.parent = loop, v.loop_depth = 1;
    static const uint16_t kinds[] = {PSG_COMPUTE, PSG_BRANCH, PSG_CALL, PSG_CALL_INDIRECT,
                                     PSG_CALL_RECURSIVE, PSG_MPI, PSG_GPU};
    for (unsigned k = 0; k < (big ? 7u : 2u); k++) {
        v.kind = kinds[k];
        v.first_line = v.last_line = 13 + k;
        v.column = 5;
        v.callee = kinds[k] == PSG_MPI ? "MPI_Allreduce" : kinds[k] == PSG_GPU ? "cudaMemcpy"
                   : kinds[k] >= PSG_CALL ? "work" : NULL;
        v.op = kinds[k] == PSG_MPI ? 1 : kinds[k] == PSG_GPU ? PSG_GPU_MEMCPY : 0;
        v.flags = kinds[k] == PSG_COMPUTE ? PSG_V_FOLDED : 0;
        v.stable_id++;
        if (psg_builder_add(b, &v) == UINT32_MAX)
            die("psg_builder_add");
    }
    v.parent = PSG_NO_PARENT, v.kind = PSG_FUNCTION, v.function = v.display_name = "work";
    v.callee = NULL, v.op = 0, v.first_line = 50, v.last_line = 60, v.loop_depth = 0;
    v.stable_id++;
    psg_builder_add(b, &v);
    unsigned char *out;
    if (psg_builder_finish(b, &out, n) != 0)
        die("psg_builder_finish");
    psg_builder_free(b);
    return out;
}

/* A minimal little-endian ELF64 relocatable file: sections NULL,
 * .scalana_psg (the given bytes, non-allocated) and .shstrtab. */
static void put_min_elf(const char *name, const unsigned char *psg, size_t n)
{
    static const char shstr[] = "\0" SCALANA_PSG_SECTION "\0.shstrtab";
    size_t psg_off = sizeof(Elf64_Ehdr), str_off = psg_off + n;
    size_t sh_off = (str_off + sizeof shstr + 7) & ~(size_t)7;
    size_t total = sh_off + 3 * sizeof(Elf64_Shdr);
    unsigned char *b = calloc(1, total);
    if (!b)
        die("calloc");
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_REL;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_shoff = sh_off;
    eh.e_ehsize = sizeof eh;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 3;
    eh.e_shstrndx = 2;
    memcpy(b, &eh, sizeof eh);
    memcpy(b + psg_off, psg, n);
    memcpy(b + str_off, shstr, sizeof shstr);
    Elf64_Shdr sh[3];
    memset(sh, 0, sizeof sh);
    sh[1].sh_name = 1;
    sh[1].sh_type = SHT_PROGBITS;
    sh[1].sh_offset = psg_off;
    sh[1].sh_size = n;
    sh[1].sh_addralign = 8;
    sh[2].sh_name = 1 + sizeof SCALANA_PSG_SECTION;
    sh[2].sh_type = SHT_STRTAB;
    sh[2].sh_offset = str_off;
    sh[2].sh_size = sizeof shstr;
    sh[2].sh_addralign = 1;
    memcpy(b + sh_off, sh, sizeof sh);
    put("psg_elf", name, b, total);
    free(b);
}

static void seeds_psg(void)
{
    mkdir_p("psg");
    mkdir_p("psg_elf");
    size_t n1, n2;
    unsigned char *u1 = make_unit("/src/a.c", 1, &n1), *u2 = make_unit("/src/b.c", 0, &n2);
    put("psg", "one-unit", u1, n1);
    /* two units with linker padding (zeros up to an 8-byte boundary and one more word) */
    size_t n = n1 + 8 + n2;
    unsigned char *both = calloc(1, n);
    if (!both)
        die("calloc");
    memcpy(both, u1, n1);
    memcpy(both + n1 + 8, u2, n2);
    put("psg", "two-units-padded", both, n);
    put_min_elf("one-unit.o", u1, n1);
    put_min_elf("two-units.o", both, n);
    put_min_elf("edge-empty-section.o", both, 0);
    free(both), free(u1), free(u2);
}

static void seeds_run_info(void)
{
    mkdir_p("run_info");
    char *argv[] = {"./app", "-n", "100", "quote\"and\\slash"};
    uint32_t ranks0[2] = {0, 1}, ranks1[2] = {2, 3};
    struct scalana_run_host hosts[2] = {{"node01", 2, 2, ranks0}, {"node02", 2, 2, ranks1}};
    char *files[1] = {"profile-000000-000003.sclp"};
    struct scalana_run_info r = {
        .version = SCALANA_RUN_INFO_VERSION, .argv = argv, .argc = 4,
        .launcher = "mpirun -np 4 ./app", .processes = 4, .hosts = hosts, .host_count = 2,
        .usable_cores = 4, .sampler = "cputime", .sample_period_ns = 1000000,
        .start_realtime_ns = 1700000000000000000ull, .end_realtime_ns = 1700000010000000000ull,
        .mpi_library = "openmpi", .mpi_version = "Open MPI v4.1.4", .executable = "/usr/bin/app",
        .build_id = "abcdef0123", .scalana_version = "0.1.0", .written_by = "finalize",
        .profile_files = files, .profile_file_count = 1};
    char p[4096];
    snprintf(p, sizeof p, "%s/run_info/full.json", out_dir);
    FILE *f = fopen(p, "w");
    if (!f || scalana_run_info_write(f, &r) != 0 || fclose(f) != 0)
        die(p);
    struct scalana_run_info m = {.version = SCALANA_RUN_INFO_VERSION, .processes = 1,
                                 .executable = "/a", .build_id = "", .written_by = "exit"};
    snprintf(p, sizeof p, "%s/run_info/minimal.json", out_dir);
    f = fopen(p, "w");
    if (!f || scalana_run_info_write(f, &m) != 0 || fclose(f) != 0)
        die(p);
}

/* ---- read-back --------------------------------------------------------------- */

static int check_dir(const char *sub, int (*check)(const char *path, char *err, size_t n))
{
    char d[4096];
    snprintf(d, sizeof d, "%s/%s", out_dir, sub);
    DIR *dir = opendir(d);
    if (!dir)
        die(d);
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        /* "edge-" seeds are corner cases the readers may refuse */
        if (e->d_name[0] == '.' || strncmp(e->d_name, "edge-", 5) == 0)
            continue;
        char p[8192], err[512] = "";
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        if (check(p, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_seeds: seed %s does not read back: %s\n", p, err);
            bad = 1;
        }
    }
    closedir(dir);
    return bad;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    unsigned char *b = malloc(len > 0 ? (size_t)len : 1);
    if (!b || (len > 0 && fread(b, 1, (size_t)len, f) != (size_t)len))
        die(path);
    fclose(f);
    *n = (size_t)len;
    return b;
}

static int check_rank(const char *path, char *err, size_t n)
{
    size_t len;
    unsigned char *b = slurp(path, &len);
    struct prf_rank_data d;
    int rc = prf_decode_rank(b, len, &d, err, n);
    if (rc == 0)
        prf_rank_free(&d);
    free(b);
    return rc;
}

static int check_file(const char *path, char *err, size_t n)
{
    struct prf_file f;
    if (prf_file_open(path, &f, err, n) != 0)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < f.header.rank_count && rc == 0; i++) {
        struct prf_rank_data d;
        int r = prf_file_read_rank(&f, i, &d, err, n);
        if (r < 0)
            rc = -1;
        else if (r == 1)
            prf_rank_free(&d);
    }
    prf_file_close(&f);
    return rc;
}

static int check_psg(const char *path, char *err, size_t n)
{
    size_t len;
    unsigned char *b = slurp(path, &len);
    struct psg_graph g;
    int rc = psg_parse(b, len, &g, err, n);
    if (rc == 0)
        psg_graph_free(&g);
    free(b);
    return rc;
}

static int check_elf(const char *path, char *err, size_t n)
{
    struct psg_graph g;
    int rc = psg_read_elf(path, &g, err, n);
    if (rc >= 0)
        psg_graph_free(&g);
    return rc == 1 ? 0 : -1;
}

static int check_run_info(const char *path, char *err, size_t n)
{
    /* the reader wants DIR/run.json: copy the seed into a scratch directory */
    char dir[4096], rj[4200];
    snprintf(dir, sizeof dir, "%s/.run_info_check", out_dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        die(dir);
    snprintf(rj, sizeof rj, "%s/%s", dir, SCALANA_RUN_INFO_FILE);
    size_t len;
    unsigned char *b = slurp(path, &len);
    FILE *f = fopen(rj, "wb");
    if (!f || fwrite(b, 1, len, f) != len || fclose(f) != 0)
        die(rj);
    free(b);
    struct scalana_run_info r;
    int rc = scalana_run_info_read(dir, &r, err, n);
    if (rc == 0)
        scalana_run_info_free(&r);
    remove(rj);
    rmdir(dir);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds OUT_DIR\n");
        return 2;
    }
    out_dir = argv[1];
    seeds_profiles();
    seeds_psg();
    seeds_run_info();
    int bad = check_dir("prf_rank", check_rank) | check_dir("prf_file", check_file) |
              check_dir("psg", check_psg) | check_dir("psg_elf", check_elf) |
              check_dir("run_info", check_run_info);
    return bad;
}
