// load_imbalance_cxx.cpp — the C++ variant of load_imbalance.c: load imbalance
// before a collective, written with a class, a std::vector and a lambda.
// Strong scaling: 2.4 CPU seconds of relaxation (at scale 1) split over the
// processes; with --defect=on the ranks r with r % 4 == 3 or r == p-1 (p > 1) own
// three times the cells of every other rank (its excess is extra work: with the defect off it owns what the others own) and the
// others wait for them in MPI_Allreduce.
#include "common/example.h"

#include <vector>

namespace {

constexpr int kIterations = 20;      // iterations, each ending in an MPI_Allreduce
constexpr double kTotalWork = 2.4;   // CPU seconds of relaxation over all ranks
constexpr double kHeavyParts = 3.0;  // a heavy rank's cells / a light rank's

class Domain {
public:
    Domain(double seconds_per_iteration) : seconds_(seconds_per_iteration), cells_(1024, 1.0) {}
    double relax();                   // one iteration of relaxation; CPU seconds spent
private:
    double seconds_;
    std::vector<double> cells_;
};

// The planted loop is the while loop, lines FUNC+4 and FUNC+5.
enum { PLANTED_FUNC = __LINE__ + 1, PLANTED_FIRST = PLANTED_FUNC + 4, PLANTED_LAST = PLANTED_FUNC + 5 };
double Domain::relax()   // CPU seconds of relaxation work
{
    volatile double acc = cells_[0];
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds_)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}

int is_heavy(int rank, int size) { return size > 1 && (rank % 4 == 3 || rank == size - 1); }

// CPU seconds of one iteration (ex_model_saving: one phase); ctx: the total per iteration.
double work(int rank, int size, int defect, int, const void *ctx)
{
    return *static_cast<const double *>(ctx) * ex_parts(defect && is_heavy(rank, size), kHeavyParts) /
           size;
}

}  // namespace

int main(int argc, char **argv)
{
    ex_run run;
    ex_init(&run, &argc, &argv, "load_imbalance_cxx");
    auto heavy_here = [&run]() { return run.defect && is_heavy(run.rank, run.size); };
    bool heavy = heavy_here();
    double per_iteration = run.scale * kTotalWork / kIterations;
    double mine = work(run.rank, run.size, run.defect, 0, &per_iteration);
    double fair = per_iteration / run.size;
    Domain domain(mine);
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   // the planted statement, two lines down
    for (int it = 0; it < kIterations; it++) {
        spent += domain.relax();
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                       "Domain::relax", nullptr };
    // Extra CPU seconds against the defect-off program, which gives each rank fair.
    double heavy_extra = (work(run.size - 1, run.size, 1, 0, &per_iteration) - fair) * kIterations;
    ex_result res = { heavy, heavy ? spent * (1.0 - fair / mine) : 0.0, heavy_extra, -1.0, -1.0, -1.0 };
    EX_MODEL_SAVINGS(&res, run.size, kIterations, 1, work, &per_iteration);
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
