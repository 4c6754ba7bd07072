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

enum { PLANTED_FIRST = __LINE__ + 1 };
double Domain::relax()   // the planted loop: CPU seconds of work
{
    volatile double acc = cells_[0];
    double start = ex_cpu_seconds();
    while (ex_cpu_seconds() - start < seconds_)
        for (int i = 0; i < EX_INNER; i++) acc += i * 1e-9;
    return ex_cpu_seconds() - start;
}
enum { PLANTED_LAST = __LINE__ - 1 };

}  // namespace

int main(int argc, char **argv)
{
    ex_run run;
    ex_init(&run, &argc, &argv, "load_imbalance_cxx");
    auto is_heavy = [&run](int r) { return run.size > 1 && (r % 4 == 3 || r == run.size - 1); };
    bool heavy = run.defect && is_heavy(run.rank);
    double share = run.scale * kTotalWork / run.size / kIterations;
    Domain domain(heavy ? kHeavyFactor * share : share);
    double spent = 0.0, residual = 0.0;

    enum { STMT = __LINE__ + 2 };   // the planted statement, two lines down
    for (int it = 0; it < kIterations; it++) {
        spent += domain.relax();
        MPI_Allreduce(&spent, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    ex_truth truth = { "load_imbalance", __FILE__, PLANTED_FIRST, PLANTED_LAST, STMT, STMT };
    ex_report(&run, &truth, heavy, spent - share * kIterations,
              (kHeavyFactor - 1.0) * share * kIterations);
    MPI_Finalize();
    return 0;
}
