// cg.hpp — the miniFE pattern: a conjugate-gradient template in a header, in
// a namespace, whose loop calls a matrix-vector functor, a dot product with
// MPI_Allreduce inside and a lambda; -O3 inlines all of them into main.
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace mini {

struct Csr {
    int n = 0;
    std::vector<int> row, col;
    std::vector<double> val;
};

template <typename V> double dot(const V &x, const V &y)
{
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) // @dot-loop
        s += x[i] * y[i];
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); // @dot-mpi
    return s;
}

template <typename M, typename V> struct matvec_std {
    int reps = 1; // more than 1: a process that multiplies again (load imbalance)
    void operator()(const M &A, const V &x, V &y) const
    {
        for (int rep = 0; rep < reps; ++rep)
            for (int r = 0; r < A.n; ++r) { // @matvec-loop
                double sum = 0;
                for (int k = A.row[r]; k < A.row[r + 1]; ++k)
                    sum += A.val[k] * x[A.col[k]];
                y[r] = sum;
            }
    }
};

double check_residual(const Csr &A, const std::vector<double> &x, const std::vector<double> &b, int reps);

template <typename M, typename V, typename Op>
int cg_solve(const M &A, const V &b, V &x, Op matvec, int max_iter)
{
    V r = b, p = b, Ap(b.size());
    auto axpy = [](V &y, const V &v, double a) { // @axpy-def
        for (std::size_t i = 0; i < y.size(); ++i) // @axpy-loop
            y[i] += a * v[i];
    };
    double rr = dot(r, r);
    int k = 0;
    for (k = 0; k < max_iter && rr > 1e-30; ++k) { // @cg-loop
        matvec(A, p, Ap);                          // @cg-matvec
        double pAp = dot(Ap, p);                   // @cg-dot
        double alpha = rr / pAp;
        axpy(x, p, alpha);
        axpy(r, Ap, -alpha);
        double rr_new = dot(r, r);
        for (std::size_t i = 0; i < p.size(); ++i) // @cg-update
            p[i] = r[i] + (rr_new / rr) * p[i];
        rr = rr_new;
    }
    return k;
}

} // namespace mini
