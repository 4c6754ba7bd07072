// cg_extra.cpp — built without the PSG pass (as a library of the program
// would be): its functions have no FUNCTION vertex, so they become dynamic
// vertices named from DWARF linkage names (_ZN4mini12_GLOBAL__N_1...), which
// every person-facing output must show demangled (inline_attr.py cxx_names).
#include "cg.hpp"

namespace mini {
namespace {
double residual_norm(const Csr &A, const std::vector<double> &x, const std::vector<double> &b)
{
    double s = 0;
    for (int r = 0; r < A.n; ++r) {
        double ax = 0;
        for (int k = A.row[r]; k < A.row[r + 1]; ++k)
            ax += A.val[k] * x[A.col[k]];
        s += (b[r] - ax) * (b[r] - ax);
    }
    return s;
}
} // namespace

double check_residual(const Csr &A, const std::vector<double> &x, const std::vector<double> &b, int reps)
{
    double s = 0;
    for (int i = 0; i < reps; ++i)
        s += residual_norm(A, x, b);
    return s / reps;
}
} // namespace mini
