/* stats.h — the statistics behind the analyzer's judgements: medians and
 * spread of repetitions, imbalance across processes (streaming), robust
 * outliers, and a significance test for sample counts. */
#ifndef SCALANA_ANALYZER_STATS_H
#define SCALANA_ANALYZER_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Repetitions ---------------------------------------------------------- */

/** Median of v[0..n) (mean of the two middle values for even n), without
 *  changing v.  NaN when n == 0 or v is NULL.  Allocates n doubles when
 *  n > 64 (NaN if that fails). */
double scalana_median(const double *v, size_t n);

/** Median of v[0..n), reordering v (quickselect, O(n), no allocation).
 *  NaN when n == 0. */
double scalana_median_inplace(double *v, size_t n);

/** Spread of repetitions of one measurement. */
struct scalana_spread {
    double median, min, max;
    double rel_spread; /* (max - min) / median; 0 when n < 2, INFINITY when median == 0 < max - min */
    size_t n;
};

/** Fills out for v[0..n).  Returns 0, or -1 when n == 0 or a pointer is NULL. */
int scalana_spread(const double *v, size_t n, struct scalana_spread *out);

/* ---- Imbalance across processes (one streaming pass) ---------------------- */

/** Running summary of one value per process: add processes one at a time
 *  (no array kept), so a vertex's statistics over 16 384 ranks cost O(1)
 *  memory.  Zero-initialise (or scalana_accum_init) before use. */
struct scalana_accum {
    size_t n;
    double sum;
    double min, max;
    uint32_t argmin, argmax; /* process (world rank) of min and max; first one on ties */
    double mean_, m2_;       /* Welford's running mean and sum of squared deviations */
};

void scalana_accum_init(struct scalana_accum *a);
/** Adds value x of process rank.  NaN values are ignored. */
void scalana_accum_add(struct scalana_accum *a, double x, uint32_t rank);
/** Merges b into a (Chan et al. parallel variance update). */
void scalana_accum_merge(struct scalana_accum *a, const struct scalana_accum *b);
/** Mean (NaN when empty). */
double scalana_accum_mean(const struct scalana_accum *a);
/** Sample standard deviation (0 when n < 2). */
double scalana_accum_stddev(const struct scalana_accum *a);

/** Load-imbalance factor max / mean of a: 1 for perfect balance; 1 when
 *  every value is 0; NaN when empty; INFINITY when mean <= 0 < max. */
double scalana_imbalance(const struct scalana_accum *a);

/** Imbalance of an array: fills a (ranks are the indices) and returns
 *  scalana_imbalance. */
double scalana_imbalance_of(const double *v, size_t n, struct scalana_accum *a);

/** Time the imbalance adds: max - mean, the time the slowest process spends
 *  beyond the average (0 when empty).  For a wait at a collective the
 *  analyzer uses t_i - min_j t_j per process instead. */
double scalana_imbalance_cost(const struct scalana_accum *a);

/* ---- Robust outliers ------------------------------------------------------ */

/** Default threshold on the modified z-score: Iglewicz & Hoaglin, "How to
 *  Detect and Handle Outliers", ASQC Basic References in Quality Control 16
 *  (1993): |M_i| > 3.5 labels x_i a potential outlier. */
#define SCALANA_OUTLIER_Z 3.5

/** Median absolute deviation of v[0..n) from its median (unscaled); the
 *  median goes to *median_out when not NULL.  NaN when n == 0. */
double scalana_mad(const double *v, size_t n, double *median_out);

/** Which side counts as outlying. */
enum scalana_outlier_side { SCALANA_OUTLIER_HIGH = 1, SCALANA_OUTLIER_LOW = 2,
                            SCALANA_OUTLIER_BOTH = 3 };

/** Modified z-scores M_i = 0.6745 (x_i - median) / MAD (Iglewicz & Hoaglin
 *  1993; 0.6745 = Phi^-1(0.75) makes MAD consistent with sigma for normal
 *  data).  When MAD == 0 (more than half the values equal) the mean absolute
 *  deviation is used instead, M_i = (x_i - median) / (1.253314 * MeanAD)
 *  (1.253314 = sqrt(pi/2), the same normal consistency); when that is 0 too
 *  all values are equal and nothing is an outlier.
 *  Writes up to max_idx indices of outliers (|M_i| > threshold on the chosen
 *  side) into idx (may be NULL when max_idx == 0) in index order, and each
 *  M_i into z when z is not NULL (n entries).  Returns the number of
 *  outliers (may exceed max_idx), or 0 when n < 3.  Allocates n doubles;
 *  returns 0 (and z untouched) if that fails. */
size_t scalana_robust_outliers(const double *v, size_t n, double threshold, int side,
                               size_t *idx, size_t max_idx, double *z);
/** The divisor of x - median in the modified z-score above: MAD / 0.6745,
 *  or 1.253314 x the mean absolute deviation when MAD is 0 (0 when both are:
 *  nothing is an outlier).  For callers that find the median and the MAD by
 *  other means (the parallel analyzer's distributed selection). */
double scalana_robust_scale(double mad, double mean_abs_dev);
/** Whether x is an outlier on `side` (enum scalana_outlier_side) for the
 *  modified z-score M = (x - median) / scale (0 when scale is 0): |M| >
 *  threshold on that side; *m gets M when m is not NULL. */
int scalana_robust_is_outlier(double x, double median, double scale, double threshold, int side, double *m);

/* ---- Sample counts -------------------------------------------------------- */

/** Alternatives of scalana_poisson_test. */
enum scalana_alternative { SCALANA_TWO_SIDED = 0,
                           SCALANA_GREATER = 1, /* rate 1 > rate 2 */
                           SCALANA_LESS = 2 };  /* rate 1 < rate 2 */

/** p-value of the comparison of two Poisson counts with exposures: k1 events
 *  in exposure e1 against k2 in e2 (exposure: anything proportional to the
 *  expected count under equal rates, e.g. CPU seconds, sampling periods, or
 *  processes x wall time), H0: k1/e1 and k2/e2 estimate the same rate.
 *  Exact conditional test (Przyborowski & Wilenski, Biometrika 31, 1940;
 *  compared in Gu, Ng, Tang & Schucany, "Testing the ratio of two Poisson
 *  rates", Biometrical Journal 50(2), 2008): given k1 + k2 = N, k1 is
 *  Binomial(N, e1/(e1+e2)) under H0; the tail is computed exactly through the
 *  regularised incomplete beta function, so no normal approximation is
 *  involved at any N.  Two-sided: min(1, 2 * smaller tail).  Returns 1 when
 *  k1 + k2 == 0 (no evidence), NaN when an exposure is not finite and > 0. */
double scalana_poisson_test(uint64_t k1, double e1, uint64_t k2, double e2, int alternative);

/** Significance level used by the analyzer's sample comparisons unless a
 *  flag overrides it: 0.01 (a 1 % chance per comparison of flagging noise;
 *  with hundreds of vertices per run a conventional 0.05 flags several
 *  vertices of a balanced program by chance). */
#define SCALANA_ALPHA 0.01

/** Quantile function of the standard normal distribution (Wichura, AS 241,
 *  Applied Statistics 37(3), 1988; about 1e-16 relative accuracy).  NaN
 *  outside (0, 1). */
double scalana_normal_quantile(double prob);

/** Smallest Poisson count whose relative error is at most rel_error with
 *  the given two-sided confidence: n >= (z / rel_error)^2 with
 *  z = Phi^-1(1 - (1 - confidence)/2), since a count N has standard deviation
 *  sqrt(N).  E.g. 20 % at 95 % -> 97; 10 % at 95 % -> 385.  Returns
 *  UINT64_MAX for rel_error <= 0 or confidence outside (0, 1). */
uint64_t scalana_min_samples(double rel_error, double confidence);

/** Default minimum sample count before a vertex's sampled CPU time can flag
 *  anything on its own: scalana_min_samples(0.2, 0.95) = 97, i.e. the time
 *  is known to within 20 % at 95 % confidence (a sampled time is judged
 *  against thresholds of 10-30 % of growth or imbalance).  Overridable. */
#define SCALANA_MIN_SAMPLES 97u

/** Whether a sample-based difference may flag anything: both the counts
 *  total at least min_count and scalana_poisson_test(..., alternative) is
 *  below alpha.  Returns 1 or 0. */
int scalana_counts_differ(uint64_t k1, double e1, uint64_t k2, double e2, int alternative,
                          double alpha, uint64_t min_count);

#ifdef __cplusplus
}
#endif
#endif
