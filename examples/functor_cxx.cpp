// functor_cxx.cpp — planted defect: load imbalance in the loop of a C++ function
// object template, applied through a function template and built at -O3.
// Strong scaling: 1.6 CPU seconds of row relaxation (at scale 1), plus a balanced
// boundary smoothing (0.2 CPU seconds in all) in a lambda.  With --defect=on rank 0
// (p > 1) owns three times the rows of every other rank (its excess is extra work: with the defect off it owns what the others own)
// and the others wait in MPI_Allreduce.  At -O3 the functor, the template that applies it
// and the lambda are all inlined into main: only the row loop in
// RowSweep<double>::operator() is the cause.
#include "common/example.h"

#include <cstddef>
#include <vector>

namespace {

constexpr int kIterations = 20;      // iterations, each ending in an MPI_Allreduce
constexpr double kTotalWork = 1.6;   // CPU seconds of row relaxation over all ranks
constexpr double kBoundaryWork = 0.2;  // CPU seconds of boundary smoothing over all ranks
constexpr int kRowParts = 4;         // rows per part: a light rank owns 1 part
constexpr double kHeavyParts = 3.0;  // the heavy rank's parts

// Relaxes every row of a block; row_seconds of CPU work per row.  The planted
// loop is the row loop, lines SWEEP+4 to SWEEP+9 (SWEEP: the operator() line).
enum { SWEEP = __LINE__ + 5, PLANTED_FIRST = SWEEP + 4, PLANTED_LAST = SWEEP + 9 };
template <typename Real>
struct RowSweep {
    Real weight;
    double row_seconds;
    double operator()(std::vector<Real> &rows) const
    {
        volatile Real acc = weight;
        double start = ex_cpu_seconds();
        for (std::size_t r = 0; r < rows.size(); r++) {
            double t0 = ex_cpu_seconds();
            while (ex_cpu_seconds() - t0 < row_seconds)
                for (int i = 0; i < EX_INNER / 10; i++) acc = acc + Real(i) * Real(1e-9);
            rows[r] = acc;
        }
        return ex_cpu_seconds() - start;
    }
};

// Applies a kernel to a block, as a generic solver would.
template <typename Kernel, typename Block>
double apply_kernel(const Kernel &kernel, Block &block)
{
    return kernel(block);
}

int is_heavy(int rank, int size) { return size > 1 && rank == 0; }

struct Params {
    double rows_seconds, boundary_seconds;   // per iteration: all ranks' rows, each rank's boundary
};

// CPU seconds of one iteration (ex_model_saving: one phase), boundary plus rows.
double work(int rank, int size, int defect, int, const void *ctx)
{
    const Params *pr = static_cast<const Params *>(ctx);
    return pr->boundary_seconds + pr->rows_seconds * ex_parts(defect && is_heavy(rank, size), kHeavyParts) /
                                      size;
}

}  // namespace

int main(int argc, char **argv)
{
    ex_run run;
    ex_init(&run, &argc, &argv, "functor_cxx");
    bool heavy = run.defect && is_heavy(run.rank, run.size);
    Params pr = { run.scale * kTotalWork / kIterations, run.scale * kBoundaryWork / run.size / kIterations };
    double parts = ex_parts(run.defect && is_heavy(run.rank, run.size), kHeavyParts);
    std::vector<double> rows(static_cast<std::size_t>(kRowParts * parts));
    double row_seconds = pr.rows_seconds /
                         (kRowParts * run.size);
    RowSweep<double> sweep = { 0.5, row_seconds };
    auto smooth_boundary = [&pr]() {   // balanced: the same amount on every rank
        volatile double acc = 0.0;
        double start = ex_cpu_seconds();
        while (ex_cpu_seconds() - start < pr.boundary_seconds)
            for (int i = 0; i < EX_INNER; i++) acc = acc + i * 3e-9;
    };
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 3 };   // the statement that applies the functor, three lines down
    for (int it = 0; it < kIterations; it++) {
        smooth_boundary();
        spent += apply_kernel(sweep, rows);
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    // Extra CPU seconds against the defect-off program (the rows split evenly).
    double fair = pr.rows_seconds / run.size, mine = rows.size() * row_seconds;
    double heavy_extra = (work(0, run.size, 1, 0, &pr) - pr.boundary_seconds - fair) * kIterations;
    ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                       "RowSweep<double>::operator()", "RowSweep apply_kernel" };
    ex_result res = { heavy, heavy ? spent * (1.0 - fair / mine) : 0.0, heavy_extra, -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, kIterations, 1, work, &pr);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
