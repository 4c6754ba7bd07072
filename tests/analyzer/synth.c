/* synth.c — writes synthetic, consistent run directories of itself (run.json
 * + one profile file) for scenarios with a known answer: balanced, imbalance,
 * serial, late_sender, late_receiver, nonscalable, growing_comm, weak (balanced
 * weak scaling), kheavy (3 of every 8 processes do twice the work), short2x
 * (rank 0 does twice the work of a ~1 s run, 200 Hz samples), latency (an
 * 8-byte Allreduce whose own time grows with p; latency_contended: the same
 * on an oversubscribed machine),
 * two (a serial section and a smaller imbalance).  Its own functions stand for
 * the application, so scalana-analyze resolves real DWARF of this binary.
 *   synth OUT_DIR SCENARIO PROCESSES [SEED] */
#include "read/symbolize.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>

#define OP_SEND 100
#define OP_RECV 120
#define OP_ALLREDUCE 203

struct sites {
    uint64_t ra_compute, pc_compute;     /* app_main -> solver_compute */
    uint64_t ra_extra, pc_extra;         /* app_main -> solver_extra (the planted loop) */
    uint64_t ra_allreduce, ra_send, ra_recv;
};

static volatile uint64_t sink;
__attribute__((noinline)) static uint64_t here(void) { return (uint64_t)(uintptr_t)__builtin_return_address(0); }
__attribute__((noinline)) static void solver_compute(struct sites *s)
{
    s->ra_compute = (uint64_t)(uintptr_t)__builtin_return_address(0);
    for (int i = 0; i < 3; i++) sink += (uint64_t)i;
    s->pc_compute = here();
    sink++;
}
__attribute__((noinline)) static void solver_extra(struct sites *s)
{
    s->ra_extra = (uint64_t)(uintptr_t)__builtin_return_address(0);
    for (int i = 0; i < 5; i++) sink += (uint64_t)i * 3;
    s->pc_extra = here();
    sink++;
}
__attribute__((noinline)) static void fake_allreduce(struct sites *s) { s->ra_allreduce = (uint64_t)(uintptr_t)__builtin_return_address(0); sink++; }
__attribute__((noinline)) static void fake_send(struct sites *s) { s->ra_send = (uint64_t)(uintptr_t)__builtin_return_address(0); sink++; }
__attribute__((noinline)) static void fake_recv(struct sites *s) { s->ra_recv = (uint64_t)(uintptr_t)__builtin_return_address(0); sink++; }
__attribute__((noinline)) static void app_main(struct sites *s)
{
    solver_extra(s);
    fake_send(s);
    fake_recv(s);
    solver_compute(s);
    fake_allreduce(s);
    sink++;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
/* Poisson count with mean m (normal approximation above 30). */
static uint64_t poisson(double m)
{
    if (m <= 0) return 0;
    if (m > 30) {
        double u1 = urand() + 1e-12, u2 = urand();
        double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
        double x = m + sqrt(m) * z;
        return x < 0 ? 0 : (uint64_t)llround(x);
    }
    double L = exp(-m), p = 1;
    uint64_t k = 0;
    do { k++; p *= urand(); } while (p > L);
    return k - 1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: synth OUT_DIR SCENARIO PROCESSES [SEED]\n");
        return 2;
    }
    const char *out = argv[1], *sc = argv[2];
    uint32_t P = (uint32_t)atoi(argv[3]);
    if (argc > 4) rng ^= (uint64_t)atoll(argv[4]) * 0x9e3779b97f4a7c15ull;
    struct sites s;
    memset(&s, 0, sizeof s);
    app_main(&s);
    Dl_info dl;
    if (!dladdr((void *)(uintptr_t)s.ra_compute, &dl)) return 1;
    uint64_t base = (uint64_t)(uintptr_t)dl.dli_fbase;
    char exe[PATH_MAX];
    if (!realpath("/proc/self/exe", exe)) return 1;
    char bid[128] = "";
    an_elf_build_id(exe, bid, sizeof bid);
    mkdir(out, 0777);

    /* short2x: a ~1 s run at the runtime's default 200 Hz */
    const double period = !strcmp(sc, "short2x") ? 0.005 : 0.001, T = 8.0; /* total computation, strong scaling */
    /* latency_contended: 4 cores for all ranks */
    uint32_t cores = !strcmp(sc, "latency_contended") ? (P < 4 ? P : 4) : P;
    double *compute = calloc(P, sizeof *compute), *extra = calloc(P, sizeof *extra);
    double *ar = calloc(P, sizeof *ar), *recv = calloc(P, sizeof *recv), *send = calloc(P, sizeof *send);
    double ar_base = 0.002 * log2(P + 1.0);
    for (uint32_t r = 0; r < P; r++) {
        compute[r] = !strcmp(sc, "weak") ? 1.0 : T / P; /* weak: the work per process is constant */
        if (!strcmp(sc, "imbalance") && r == 0) extra[r] = 0.6 * T / P;
        if (!strcmp(sc, "serial") && r == 0) extra[r] = 1.0;
        if (!strcmp(sc, "late_sender") && r % 2 == 0) extra[r] = 0.4 * T / P;
        if (!strcmp(sc, "late_receiver") && r % 2 == 1) extra[r] = 0.4 * T / P;
        if (!strcmp(sc, "nonscalable")) extra[r] = 0.02 * P;
        if (!strcmp(sc, "growing_comm")) ar_base = 0.05 * P;
        /* 3 of every 8 processes (ranks 1, 2, 5 mod 8) have twice the work of the others */
        if (!strcmp(sc, "kheavy") && (r % 8 == 1 || r % 8 == 2 || r % 8 == 5)) compute[r] *= 2;
        /* a 1 s run: 0.1 s of the solver per process (0.2 s on rank 0), 0.6 s elsewhere */
        if (!strcmp(sc, "short2x")) compute[r] = r == 0 ? 0.2 : 0.1, extra[r] = 0.6;
        /* its own time (the fastest process's) grows like p^2, 8x faster than the crowding */
        if (!strcmp(sc, "latency") || !strcmp(sc, "latency_contended")) ar_base = 0.005 * P * P;
        if (!strcmp(sc, "two")) {
            if (r % 4 == 1) compute[r] *= 2;   /* imbalance: saves T/P x 1 */
            if (r == 0) extra[r] = 0.5;       /* serial section, constant in p */
        }
    }
    /* point-to-point: even ranks send to the next odd rank, which waits for the late sender */
    int p2p = !strcmp(sc, "late_sender") || !strcmp(sc, "late_receiver");
    for (uint32_t r = 0; r < P; r++) {
        /* a blocking (rendezvous) send waits for a late receiver, a receive for a late sender */
        if (p2p && r % 2 == 1) recv[r] = 0.001 + fmax(0, extra[r - 1] - extra[r]);
        if (p2p && r % 2 == 0) send[r] = 0.001 + (r + 1 < P ? fmax(0, extra[r + 1] - extra[r]) : 0);
    }
    double tmax = 0;
    for (uint32_t r = 0; r < P; r++) tmax = fmax(tmax, compute[r] + extra[r] + recv[r] + send[r]);
    for (uint32_t r = 0; r < P; r++) ar[r] = ar_base + (tmax - (compute[r] + extra[r] + recv[r] + send[r]));

    unsigned char **sections = calloc(P, sizeof *sections);
    size_t *sizes = calloc(P, sizeof *sizes);
    const char strings[] = "\0/proc/self/exe-placeholder\0";
    (void)strings;
    for (uint32_t r = 0; r < P; r++) {
        char strtab[PATH_MAX + 256];
        size_t sl = 0;
        strtab[sl++] = 0;
        uint32_t s_path = (uint32_t)sl;
        sl += (size_t)sprintf(strtab + sl, "%s", exe) + 1;
        uint32_t s_bid = (uint32_t)sl;
        sl += (size_t)sprintf(strtab + sl, "%s", bid) + 1;
        uint32_t s_host = (uint32_t)sl;
        sl += (size_t)sprintf(strtab + sl, "synthhost") + 1;
        struct prf_module mod = {s_path, s_bid, base};
        struct prf_cct_node cct[9] = {
            {PRF_NONE, PRF_NONE, 0, PRF_CCT_ROOT, 0},
            {0, 0, s.ra_compute - base, PRF_CCT_CALLSITE, 0},
            {1, 0, s.pc_compute - base, PRF_CCT_PC, 0},
            {0, 0, s.ra_extra - base, PRF_CCT_CALLSITE, 0},
            {3, 0, s.pc_extra - base, PRF_CCT_PC, 0},
            {0, 0, s.ra_allreduce - base, PRF_CCT_CALLSITE, 0},
            {0, 0, s.ra_send - base, PRF_CCT_CALLSITE, 0},
            {0, 0, s.ra_recv - base, PRF_CCT_CALLSITE, 0},
            {0, 0, 0, 0, 0}};
        uint32_t ncct = 8;
        struct prf_sample smp[3];
        uint32_t ns = 0;
        uint64_t k1 = poisson(compute[r] / period), k2 = poisson(extra[r] / period);
        if (k1) smp[ns++] = (struct prf_sample){2, 0, 0, 0, k1, k1};
        if (k2) smp[ns++] = (struct prf_sample){4, 0, 0, 0, k2, k2};
        struct prf_mpi_context mpi[3];
        uint32_t nm = 0;
        uint64_t iters = 100;
        /* the shortest call: half a call's share of the base time; on the contended
         * machine a lucky call of 1 us, as measured there */
        uint64_t min_ns = !strcmp(sc, "latency_contended") ? 1000 : (uint64_t)(ar_base / iters * 1e9 * 0.5);
        mpi[nm] = (struct prf_mpi_context){nm, 5, OP_ALLREDUCE, 0, 1, iters, 8 * iters, 8 * iters,
                                           (uint64_t)(ar[r] * 1e9), 0, min_ns};
        nm++;
        struct prf_peer peers[2];
        uint32_t np = 0;
        if (p2p && r % 2 == 0 && r + 1 < P) {
            mpi[nm] = (struct prf_mpi_context){nm, 6, OP_SEND, 0, 1, iters, 1024 * iters, 0,
                                               (uint64_t)(send[r] * 1e9), 0, 5000};
            peers[np++] = (struct prf_peer){nm, (int32_t)r + 1, 7, PRF_PEER_SEND, 1, iters, 1024 * iters,
                                            (uint64_t)(send[r] * 1e9), 0, 0};
            nm++;
        }
        if (p2p && r % 2 == 1) {
            mpi[nm] = (struct prf_mpi_context){nm, 7, OP_RECV, 0, 1, iters, 0, 1024 * iters,
                                               (uint64_t)(recv[r] * 1e9), 0, 5000};
            peers[np++] = (struct prf_peer){nm, (int32_t)r - 1, 7, PRF_PEER_RECV, 1, iters, 1024 * iters,
                                            (uint64_t)(recv[r] * 1e9), iters, (uint64_t)(recv[r] * 1e9)};
            nm++;
        }
        struct prf_comm comm = {1, P, 0, r, PRF_COMM_WORLD, 0, 0};
        struct prf_rank_data d;
        memset(&d, 0, sizeof d);
        d.info.world_rank = r, d.info.world_size = P, d.info.pid = 1000 + r;
        d.info.flags = PRF_RANK_FINALIZED, d.info.hostname = s_host;
        d.info.usable_cores = cores, d.info.ranks_on_host = P, d.info.sampler = PRF_SAMPLER_CPUTIME;
        d.info.sample_period_ns = (uint64_t)(period * 1e9);
        double wall = compute[r] + extra[r] + ar[r] + recv[r] + send[r];
        d.info.wall_ns = (uint64_t)(wall * 1e9);
        /* MPI libraries poll while they wait: CPU time runs with wall time */
        d.info.cpu_user_ns = (uint64_t)(wall * 0.98 * 1e9);
        d.info.samples_taken = k1 + k2, d.info.samples_weight = k1 + k2;
        d.info.mpi_time_ns = (uint64_t)((ar[r] + recv[r] + send[r]) * 1e9);
        d.info.thread_count = 1;
        d.strings = strtab, d.strings_bytes = sl;
        d.modules = &mod, d.module_count = 1;
        d.cct = cct, d.cct_count = ncct;
        d.samples = smp, d.sample_count = ns;
        d.mpi = mpi, d.mpi_count = nm;
        d.peers = peers, d.peer_count = np;
        uint32_t first = 0;
        d.comms = &comm, d.comm_count = 1, d.comm_members = NULL, d.comm_member_first = &first;
        if (prf_encode_rank(&d, &sections[r], &sizes[r]) != 0) return 1;
    }
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/profile-%06u-%06u.sclp", out, 0u, P - 1);
    /* the executable's hash, as the runtime writes it: FNV-1a 64 of the build-id hex string */
    uint64_t exe_hash = bid[0] ? psg_fnv1a64(bid, strlen(bid), PSG_FNV_SEED) : 0;
    if (prf_file_write(path, 0, P, P, exe_hash, (const unsigned char *const *)sections, sizes) != 0) {
        perror(path);
        return 1;
    }
    struct scalana_run_info info;
    memset(&info, 0, sizeof info);
    info.version = SCALANA_RUN_INFO_VERSION;
    char *av[] = {exe};
    info.argv = av, info.argc = 1;
    info.processes = P;
    uint32_t *ranks = calloc(P, sizeof *ranks);
    for (uint32_t r = 0; r < P; r++) ranks[r] = r;
    struct scalana_run_host host = {"synthhost", cores, P, ranks};
    info.hosts = &host, info.host_count = 1, info.usable_cores = cores;
    info.sampler = "cputime", info.sample_period_ns = (uint64_t)(period * 1e9);
    info.mpi_library = "openmpi", info.mpi_version = "synthetic";
    info.executable = exe, info.build_id = bid, info.scalana_version = "synth", info.written_by = "finalize";
    char name[64];
    snprintf(name, sizeof name, "profile-%06u-%06u.sclp", 0u, P - 1);
    char *pf[] = {name};
    info.profile_files = pf, info.profile_file_count = 1;
    snprintf(path, sizeof path, "%s/run.json", out);
    FILE *f = fopen(path, "w");
    if (!f || scalana_run_info_write(f, &info) != 0) return 1;
    fclose(f);
    for (uint32_t r = 0; r < P; r++) free(sections[r]);
    free(sections), free(sizes), free(ranks);
    free(compute), free(extra), free(ar), free(recv), free(send);
    return 0;
}
