// load_imbalance_cxx.cpp — the C++ variant of load_imbalance.c: load imbalance
// before a collective, written with a class, a std::vector and a lambda.
// Strong scaling: 2.4 CPU seconds of relaxation (at scale 1) split over the
// processes; with --defect=on the ranks r with r % 4 == 3 or r == p-1 (p > 1) own
// three times their share and the others wait for them in MPI_Allreduce.
#include "common/example.h"

#include <vector>

namespace {

constexpr int kIterations = 20;      // iterations, each ending in an MPI_Allreduce
constexpr double kTotalWork = 2.4;   // CPU seconds of relaxation over all ranks
constexpr double kHeavyFactor = 3.0; // a heavy rank's work / its fair share

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

bool is_heavy(int rank, int size) { return size > 1 && (rank % 4 == 3 || rank == size - 1); }

// CPU model (ex_model_saving): each iteration is one phase of relaxation.
double work(int rank, int size, int defect, int, const void *ctx)
{
    double share = *static_cast<const double *>(ctx);
    return defect && is_heavy(rank, size) ? kHeavyFactor * share : share;
}

}  // namespace

int main(int argc, char **argv)
{
    ex_run run;
    ex_init(&run, &argc, &argv, "load_imbalance_cxx");
    auto heavy_here = [&run]() { return run.defect && is_heavy(run.rank, run.size); };
    bool heavy = heavy_here();
    double share = run.scale * kTotalWork / run.size / kIterations;
    Domain domain(heavy ? kHeavyFactor * share : share);
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   // the planted statement, two lines down
    for (int it = 0; it < kIterations; it++) {
        spent += domain.relax();
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT,
                       "Domain::relax", nullptr };
    ex_result res = { heavy, spent - share * kIterations, (kHeavyFactor - 1.0) * share * kIterations,
                      ex_model_saving(run.size, ex_cores(), kIterations, 1, work, &share), -1.0 };
    ex_report(&run, &truth, &res);
    MPI_Finalize();
    return 0;
}
