// cg_main.cpp — builds a 3-D 7-point Laplacian in CSR form and solves with
// mini::cg_solve (cg.hpp); inline_attr.py checks where the samples and the
// MPI time of the solver land.  With an argument, rank 0 multiplies three
// times per iteration (a load imbalance in the functor's loop), and the
// residual is checked by cg_extra.cpp (built without the pass).
#include "cg.hpp"

#include <cstdio>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int m = 64;
    mini::Csr A;
    A.n = m * m * m;
    A.row.push_back(0);
    for (int z = 0; z < m; ++z)
        for (int y = 0; y < m; ++y)
            for (int x = 0; x < m; ++x) {
                int i = (z * m + y) * m + x;
                const int d[7] = {0, -1, 1, -m, m, -m * m, m * m};
                for (int k = 0; k < 7; ++k) {
                    int j = i + d[k];
                    if (j < 0 || j >= A.n)
                        continue;
                    A.col.push_back(j);
                    A.val.push_back(k == 0 ? 6.0 + 1e-3 * rank : -1.0);
                }
                A.row.push_back((int)A.col.size());
            }
    std::vector<double> b(A.n, 1.0), x(A.n, 0.0);
    mini::matvec_std<mini::Csr, std::vector<double>> op;
    op.reps = argc > 1 && rank == 0 ? 3 : 1;
    // The set-up's skew between the processes (one descheduled while it builds
    // A on a loaded machine) waits here, not in the solver's first dot.
    MPI_Barrier(MPI_COMM_WORLD);
    int iters = mini::cg_solve(A, b, x, op, 300);
    double res = argc > 1 ? mini::check_residual(A, x, b, 40) : 0;
    if (rank == 0)
        std::printf("%d iterations, x[0] = %g, residual %g\n", iters, x[0], res);
    MPI_Finalize();
    return 0;
}
