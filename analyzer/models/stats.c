/* stats.c — medians, spread, streaming imbalance, robust z-scores and the
 * exact conditional Poisson test behind the analyzer's judgements (stats.h). */
#include "models/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- Medians ---------------------------------------------------------------- */

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* k-th smallest of v[0..n) (Wirth's selection, "Algorithms + Data
 * Structures = Programs", 1976); reorders v so that v[k] holds it and
 * v[0..k) are <= it. */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double x = v[kk];
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < x) i++;
            while (x < v[j]) j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk) l = i;
        if (kk < i) m = j;
    }
    return v[k];
}

double scalana_median_inplace(double *v, size_t n)
{
    if (!v || n == 0)
        return NAN;
    double hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    /* the lower middle is the largest of v[0 .. n/2) */
    double lo = v[0];
    for (size_t k = 1; k < n / 2; k++)
        if (v[k] > lo)
            lo = v[k];
    return 0.5 * (lo + hi);
}

double scalana_median(const double *v, size_t n)
{
    if (!v || n == 0)
        return NAN;
    double small[64];
    double *w = n <= 64 ? small : malloc(n * sizeof *w);
    if (!w)
        return NAN;
    memcpy(w, v, n * sizeof *w);
    double m = scalana_median_inplace(w, n);
    if (w != small)
        free(w);
    return m;
}

int scalana_spread(const double *v, size_t n, struct scalana_spread *out)
{
    if (!v || !out || n == 0)
        return -1;
    struct scalana_spread s = {.median = scalana_median(v, n), .min = v[0], .max = v[0], .n = n};
    for (size_t k = 1; k < n; k++) {
        if (v[k] < s.min) s.min = v[k];
        if (v[k] > s.max) s.max = v[k];
    }
    double range = s.max - s.min;
    if (n < 2 || range == 0)
        s.rel_spread = 0;
    else if (s.median == 0)
        s.rel_spread = INFINITY;
    else
        s.rel_spread = range / fabs(s.median);
    *out = s;
    return 0;
}

/* ---- Streaming accumulator ----------------------------------------------------- */

void scalana_accum_init(struct scalana_accum *a)
{
    memset(a, 0, sizeof *a);
}

void scalana_accum_add(struct scalana_accum *a, double x, uint32_t rank)
{
    if (isnan(x))
        return;
    if (a->n == 0 || x < a->min) {
        a->min = x;
        a->argmin = rank;
    }
    if (a->n == 0 || x > a->max) {
        a->max = x;
        a->argmax = rank;
    }
    a->n++;
    a->sum += x;
    double d = x - a->mean_;
    a->mean_ += d / (double)a->n;
    a->m2_ += d * (x - a->mean_);
}

void scalana_accum_merge(struct scalana_accum *a, const struct scalana_accum *b)
{
    if (b->n == 0)
        return;
    if (a->n == 0) {
        *a = *b;
        return;
    }
    if (b->min < a->min) {
        a->min = b->min;
        a->argmin = b->argmin;
    }
    if (b->max > a->max) {
        a->max = b->max;
        a->argmax = b->argmax;
    }
    double na = (double)a->n, nb = (double)b->n, n = na + nb;
    double d = b->mean_ - a->mean_;
    a->mean_ += d * nb / n;
    a->m2_ += b->m2_ + d * d * na * nb / n;
    a->n += b->n;
    a->sum += b->sum;
}

double scalana_accum_mean(const struct scalana_accum *a)
{
    return a->n ? a->sum / (double)a->n : NAN;
}

double scalana_accum_stddev(const struct scalana_accum *a)
{
    return a->n < 2 ? 0.0 : sqrt(a->m2_ / (double)(a->n - 1));
}

double scalana_imbalance(const struct scalana_accum *a)
{
    if (a->n == 0)
        return NAN;
    double mean = scalana_accum_mean(a);
    if (a->max == 0 && a->min == 0)
        return 1.0;
    if (!(mean > 0))
        return a->max > 0 ? INFINITY : 1.0;
    return a->max / mean;
}

double scalana_imbalance_of(const double *v, size_t n, struct scalana_accum *a)
{
    scalana_accum_init(a);
    for (size_t k = 0; k < n; k++)
        scalana_accum_add(a, v[k], (uint32_t)k);
    return scalana_imbalance(a);
}

double scalana_imbalance_cost(const struct scalana_accum *a)
{
    return a->n ? a->max - scalana_accum_mean(a) : 0.0;
}

/* ---- Robust outliers ------------------------------------------------------------ */

double scalana_mad(const double *v, size_t n, double *median_out)
{
    if (!v || n == 0)
        return NAN;
    double *w = malloc(n * sizeof *w);
    if (!w)
        return NAN;
    memcpy(w, v, n * sizeof *w);
    double med = scalana_median_inplace(w, n);
    for (size_t k = 0; k < n; k++)
        w[k] = fabs(v[k] - med);
    double mad = scalana_median_inplace(w, n);
    free(w);
    if (median_out)
        *median_out = med;
    return mad;
}

size_t scalana_robust_outliers(const double *v, size_t n, double threshold, int side,
                               size_t *idx, size_t max_idx, double *z)
{
    if (!v || n < 3)
        return 0;
    double med;
    double mad = scalana_mad(v, n, &med);
    if (isnan(mad))
        return 0;
    double mean_ad = 0;
    if (!(mad > 0)) {
        for (size_t k = 0; k < n; k++)
            mean_ad += fabs(v[k] - med);
        mean_ad /= (double)n;
    }
    double scale = scalana_robust_scale(mad, mean_ad); /* divides x - median to give M */
    size_t found = 0;
    for (size_t k = 0; k < n; k++) {
        double m;
        int out = scalana_robust_is_outlier(v[k], med, scale, threshold, side, &m);
        if (z)
            z[k] = m;
        if (out) {
            if (idx && found < max_idx)
                idx[found] = k;
            found++;
        }
    }
    return found;
}

double scalana_robust_scale(double mad, double mean_abs_dev)
{
    return mad > 0 ? mad / 0.6745 : 1.253314 * mean_abs_dev;
}

int scalana_robust_is_outlier(double x, double median, double scale, double threshold, int side, double *m)
{
    double z = scale > 0 ? (x - median) / scale : 0.0;
    if (m)
        *m = z;
    return ((side & SCALANA_OUTLIER_HIGH) && z > threshold) || ((side & SCALANA_OUTLIER_LOW) && z < -threshold);
}

/* ---- Poisson counts ------------------------------------------------------------- */

/* Continued fraction of the incomplete beta function (modified Lentz; Press
 * et al., Numerical Recipes, 3rd ed., §6.4).  Converges in O(sqrt(max(a,b)))
 * steps; the cap allows that for any count a profile can hold. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    long maxit = 200 + (long)(10 * sqrt(fmax(a, b)));
    for (long m = 1; m <= maxit; m++) {
        double m2 = 2.0 * (double)m;
        double aa = (double)m * (b - (double)m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + (double)m) * (qab + (double)m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < eps)
            break;
    }
    return h;
}

/* Regularised incomplete beta I_x(a, b), a, b > 0. */
static double beta_reg(double a, double b, double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    double bt = exp(lbt);
    if (x < (a + 1) / (a + b + 2))
        return bt * beta_cf(a, b, x) / a;
    return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

/* P(X >= k) and P(X <= k) for X ~ Binomial(n, p). */
static double binom_upper(uint64_t k, uint64_t n, double p)
{
    if (k == 0) return 1;
    if (k > n) return 0;
    return beta_reg((double)k, (double)(n - k + 1), p);
}

static double binom_lower(uint64_t k, uint64_t n, double p)
{
    if (k >= n) return 1;
    return beta_reg((double)(n - k), (double)k + 1, 1 - p);
}

double scalana_poisson_test(uint64_t k1, double e1, uint64_t k2, double e2, int alternative)
{
    if (!isfinite(e1) || !isfinite(e2) || !(e1 > 0) || !(e2 > 0))
        return NAN;
    uint64_t n = k1 + k2;
    if (n == 0)
        return 1.0;
    double p = e1 / (e1 + e2);
    double pv;
    switch (alternative) {
    case SCALANA_GREATER: pv = binom_upper(k1, n, p); break;
    case SCALANA_LESS: pv = binom_lower(k1, n, p); break;
    default: {
        double lo = binom_lower(k1, n, p), hi = binom_upper(k1, n, p);
        pv = 2 * fmin(lo, hi);
        break;
    }
    }
    if (pv > 1) pv = 1;
    if (pv < 0) pv = 0;
    return pv;
}

double scalana_normal_quantile(double prob)
{
    if (!(prob > 0 && prob < 1))
        return NAN;
    double q = prob - 0.5, r, val;
    if (fabs(q) <= 0.425) {
        r = 0.180625 - q * q;
        return q *
               (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r +
                     67265.770927008700853) * r + 45921.953931549871457) * r +
                   13731.693765509461125) * r + 1971.5909503065514427) * r +
                 133.14166789178437745) * r + 3.387132872796366608) /
               (((((((r * 5226.495278852545925 + 28729.085735721942674) * r +
                     39307.89580009271061) * r + 21213.794301586595867) * r +
                   5394.1960214247511077) * r + 687.1870074920579083) * r +
                 42.313330701600911252) * r + 1.0);
    }
    r = q < 0 ? prob : 1 - prob;
    r = sqrt(-log(r));
    if (r <= 5) {
        r -= 1.6;
        val = (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r +
                    0.24178072517745061177) * r + 1.27045825245236838258) * r +
                  3.64784832476320460504) * r + 5.7694972214606914055) * r +
                4.6303378461565452959) * r + 1.42343711074968357734) /
              (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r +
                    0.0151986665636164571966) * r + 0.14810397642748007459) * r +
                  0.68976733498510000455) * r + 1.6763848301838038494) * r +
                2.05319162663775882187) * r + 1.0);
    } else {
        r -= 5;
        val = (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r +
                    0.0012426609473880784386) * r + 0.026532189526576123093) * r +
                  0.29656057182850489123) * r + 1.7848265399172913358) * r +
                5.4637849111641143699) * r + 6.6579046435011037772) /
              (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r +
                    1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r +
                  0.0148753612908506148525) * r + 0.13692988092273580531) * r +
                0.59983220655588793769) * r + 1.0);
    }
    return q < 0 ? -val : val;
}

uint64_t scalana_min_samples(double rel_error, double confidence)
{
    if (!(rel_error > 0) || !(confidence > 0 && confidence < 1))
        return UINT64_MAX;
    double z = scalana_normal_quantile(1 - (1 - confidence) / 2);
    double n = ceil((z / rel_error) * (z / rel_error));
    if (!(n < 1.8e19))
        return UINT64_MAX;
    return n < 1 ? 1 : (uint64_t)n;
}

int scalana_counts_differ(uint64_t k1, double e1, uint64_t k2, double e2, int alternative,
                          double alpha, uint64_t min_count)
{
    if (k1 + k2 < min_count)
        return 0;
    double pv = scalana_poisson_test(k1, e1, k2, e2, alternative);
    return pv < alpha;
}
