/* inlined_exchange.c — planted defect: load imbalance whose waits lie inside
 * inlined callees (the pattern of a CG solver such as miniFE's cg_solve).
 * Strong scaling on a 1-D chain: a balanced assembly (0.2 CPU seconds in all, at
 * scale 1), then 20 solver iterations, each: halo exchange (exchange_halo(): MPI
 * point-to-point), the operator applied row by row (matvec(): 1.6 CPU seconds in
 * all), a dot product (dot(): a local sum and MPI_Allreduce).  All three are
 * static inline helpers that clang -O2 inlines into main.  With --defect=on rank
 * p/2 (p > 1) owns three times the rows of every other rank (the excess is extra
 * work): the others wait in dot()'s
 * MPI_Allreduce and in the next halo exchange.  The cause is matvec()'s row loop,
 * not the assembly before the solver, not the callees that hold the waits. */
#include "common/example.h"

#define NITER 20              /* solver iterations */
#define TOTAL_WORK 1.6        /* CPU seconds of matvec rows over all ranks */
#define ASSEMBLY_WORK 0.2     /* CPU seconds of assembly over all ranks */
#define ROW_PARTS 4           /* rows per part: a light rank owns 1 part */
#define HEAVY_PARTS 3.0       /* the heavy rank's parts */
#define HALO 256              /* doubles per halo */

struct block {
    int rank, size;
    int nrows;                /* rows this rank owns */
    double row_seconds;       /* CPU seconds of one row of the operator */
    double x[ROW_PARTS * 4];
    double send[2 * HALO], recv[2 * HALO];
};

/* Balanced: every rank assembles its share of the operator. */
static double assemble(double seconds)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds)
        for (int i = 0; i < EX_INNER; i++) acc += i * 2e-9;
    return acc;
}

/* Halo exchange with both neighbours on the chain. */
static inline void exchange_halo(struct block *b)
{
    int left = b->rank > 0 ? b->rank - 1 : MPI_PROC_NULL;
    int right = b->rank < b->size - 1 ? b->rank + 1 : MPI_PROC_NULL;
    MPI_Request req[4];
    MPI_Irecv(b->recv, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(b->recv + HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(b->send, HALO, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(b->send + HALO, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

/* The operator, row by row; returns its CPU seconds.  The planted loop is the
 * row loop, lines MATVEC+4 to MATVEC+9. */
enum { MATVEC = __LINE__ + 1, PLANTED_FIRST = MATVEC + 4, PLANTED_LAST = MATVEC + 9 };
static inline double matvec(struct block *b)
{
    volatile double acc = 0.0;
    double start = ex_cpu_seconds();
    for (int r = 0; r < b->nrows; r++) {
        double t0 = ex_cpu_seconds();
        while (ex_cpu_seconds() - t0 < b->row_seconds)
            for (int i = 0; i < EX_INNER / 10; i++) acc += i * 1e-9;
        b->x[r] = acc * 1e-12;
    }
    return ex_cpu_seconds() - start;
}

/* Global dot product of x with itself. */
static inline double dot(const struct block *b)
{
    double local = 0.0, global = 0.0;
    for (int r = 0; r < b->nrows; r++) local += b->x[r] * b->x[r];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

static int is_heavy(int rank, int size) { return size > 1 && rank == size / 2; }

/* CPU seconds of matvec in one iteration (ex_model_saving: one phase; the assembly
 * is the same with the defect on and off); ctx: the total per iteration. */
static double work(int rank, int size, int defect, int phase, const void *ctx)
{
    (void)phase;
    return *(const double *)ctx * ex_parts(defect && is_heavy(rank, size), HEAVY_PARTS) /
           size;
}

int main(int argc, char **argv)
{
    struct ex_run run;
    ex_init(&run, &argc, &argv, "inlined_exchange");
    int heavy = run.defect && is_heavy(run.rank, run.size);
    static struct block b;
    b.rank = run.rank;
    b.size = run.size;
    double per_iteration = run.scale * TOTAL_WORK / NITER;
    b.nrows = (int)(ROW_PARTS * ex_parts(run.defect && is_heavy(run.rank, run.size), HEAVY_PARTS));
    b.row_seconds = per_iteration /
                    (ROW_PARTS * run.size);
    double spent = 0.0, rho = 0.0;

    b.send[0] = assemble(run.scale * ASSEMBLY_WORK / run.size);
    enum { STMT = __LINE__ + 3 };   /* the statement that runs matvec, three lines down */
    for (int it = 0; it < NITER; it++) {
        exchange_halo(&b);
        spent += matvec(&b);
        rho += dot(&b);
    }

    /* Extra CPU seconds against the defect-off program (the rows split evenly). */
    double fair = per_iteration / run.size, mine = b.nrows * b.row_seconds;
    double heavy_extra = (work(run.size / 2, run.size, 1, 0, &per_iteration) - fair) * NITER;
    struct ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                              "matvec", "exchange_halo matvec dot" };
    struct ex_result res = { heavy, heavy ? spent * (1.0 - fair / mine) : 0.0, heavy_extra,
                             -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, NITER, 1, work, &per_iteration);
    ex_report(&run, &truth, &res);
    if (rho < 0) printf("%g\n", rho);   /* keeps the dot products alive */
    MPI_Finalize();
    return 0;
}
