/* model.h — scaling models of one quantity across process counts: the
 * performance-model normal form t(p) = c0 + c1 * p^i * log2(p)^j chosen by
 * leave-one-out cross-validation, the log-log slope, and ideal scaling. */
#ifndef SCALANA_ANALYZER_MODEL_H
#define SCALANA_ANALYZER_MODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How much a model can be trusted (scalana_model_quality_name gives the words). */
enum scalana_model_quality {
    SCALANA_MODEL_CROSS_VALIDATED = 0,     /* >= 5 distinct counts: full hypothesis set, LOO CV */
    SCALANA_MODEL_INSUFFICIENT_POINTS = 1, /* 2..4 distinct counts: constant, 1/p, p, log2 p */
    SCALANA_MODEL_SINGLE_POINT = 2         /* one distinct count: the constant t */
};

/** Fewest distinct process counts for which the full hypothesis set is
 *  chosen by leave-one-out cross-validation (each fold then still fits two
 *  coefficients to at least four points, so a fold is over-determined). */
#define SCALANA_MODEL_MIN_CV_POINTS 5

/** A fitted model t(p) = c0 + c1 * p^i * log2(p)^j (units of t: those of the
 *  input, seconds in the analyzer; p: processes).  The constant model has
 *  c1 = 0, i = 0, j = 0.
 *  smape: symmetric mean absolute percentage error in percent (0..200);
 *    out-of-sample (leave-one-out predictions) for CROSS_VALIDATED,
 *    in-sample otherwise (for SINGLE_POINT: the repetitions against their
 *    mean, 0 for one point).
 *  quality: enum scalana_model_quality.
 *  loglog_slope: least-squares slope of ln t against ln p (the original
 *    ScalAna criterion: -1 is ideal strong scaling, 0 constant); valid only
 *    when has_slope (>= 2 distinct p and every t > 0). */
struct scalana_model {
    double c0, c1, i;
    int j;
    double smape;
    int quality; /* enum scalana_model_quality */
    double loglog_slope;
    int has_slope;
};

/** Least-squares slope of ln t against ln p over n points: *slope and 1,
 *  or 0 (*slope untouched) when some t is not > 0 or the p are all equal. */
int scalana_loglog_slope(const double *p, const double *t, size_t n, double *slope);

/** Fits the model to n points (p[k], t[k]).  Points may come in any order
 *  and p may repeat (repetitions are used as they are; pass medians to give
 *  each count one point).
 *  Hypotheses: i in {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 5/4, 4/3, 3/2, 5/3, 7/4,
 *  2, 9/4, 7/3, 5/2, 8/3, 11/4, 3} and their negatives, j in {0, 1, 2}, plus
 *  the constant; c0, c1 by least squares for each.
 *  >= 5 distinct p: the lowest leave-one-out SMAPE wins, with two guards.
 *  A simpler hypothesis (the constant first, then by |i|, then j, then
 *  i > 0 before i < 0) is kept unless a more complex one lowers the SMAPE
 *  by more than 1e-9 relative.  The constant is kept unless the best model
 *  at least halves the constant's SMAPE (the growth is otherwise within the
 *  scatter; model.c says how 2 was chosen), a rule applied only while the
 *  constant's SMAPE is <= 25 %.
 *  2..4 distinct p: only constant, 1/p, p and log2 p, by in-sample SMAPE
 *  with the same guards; with exactly 2 counts every two-coefficient model
 *  fits exactly, so the direction decides: falling -> 1/p, rising -> p when
 *  the log-log slope is >= 0.5, else log2 p; equal -> constant.
 *  1 distinct p: the constant (mean of t).
 *  Cost O(111 n): leave-one-out predictions come from the full fit's
 *  residuals and leverages, without refits.
 *  Returns 0, or -1 (out untouched) when n == 0, a pointer is NULL, any p
 *  is not finite and > 0, any t is not finite, or memory (2n doubles) runs
 *  out. */
int scalana_model_fit(const double *p, const double *t, size_t n, struct scalana_model *out);

/** scalana_model_fit, then the constant (mean of t) replaces the model when
 *  the model's values at the measured p all lie within rel_noise * mean of
 *  the mean: a change no larger than the scatter of repetitions is not a
 *  trend.  rel_noise: relative noise of one point, e.g. the largest
 *  (max - min) / median over the repetitions of the counts
 *  (scalana_spread.rel_spread); <= 0 disables the check.  Same returns. */
int scalana_model_fit_noisy(const double *p, const double *t, size_t n, double rel_noise,
                            struct scalana_model *out);

/** Value of the model at p processes; NaN when p <= 0 or m is NULL. */
double scalana_model_eval(const struct scalana_model *m, double p);

/** Writes the model as text into buf (at most n bytes, always terminated),
 *  e.g. "0.12 + 3.40e-03 * p^(1/2) * log2(p)", "2.5", "10 * p^(-1)",
 *  "1 + 1.00e-03 * p^2", "5 + 2 * log2(p)^2" (an intercept below 1e-9 of the
 *  smallest |t| is fitted as 0 and left out). 
 *  Coefficients: %.3g for 0.01 <= |c| < 10000, else %.2e. */
void scalana_model_formula(const struct scalana_model *m, char *buf, size_t n);

/** "cross-validated", "insufficient points", "single point", or "unknown". */
const char *scalana_model_quality_name(int quality);

/** Ideal strong-scaling time at p processes: t_pmin * pmin / p (the work
 *  measured at the smallest count pmin, divided evenly).  NaN when p <= 0. */
double scalana_ideal_strong(double t_pmin, double pmin, double p);

/** Ideal weak-scaling time: t_pmin whatever p (work per process constant). */
double scalana_ideal_weak(double t_pmin, double pmin, double p);

#ifdef __cplusplus
}
#endif
#endif
