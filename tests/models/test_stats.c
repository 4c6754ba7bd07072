/* test_stats.c — the analyzer's statistics: medians and spread, streaming
 * imbalance, robust outliers, the exact Poisson test and sample minimums.
 * Reference p-values were computed exactly with Python fractions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "models/stats.h"

#define NEAR(a, b, rel) assert_true(fabs((a) - (b)) <= (rel) * fabs(b))

static uint64_t lcg_state;
static double noise(void) /* uniform in [-1, 1], deterministic */
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_median(void **state)
{
    (void)state;
    double odd[] = {5, 1, 4, 2, 3};
    double even[] = {4, 1, 3, 2};
    assert_true(scalana_median(odd, 5) == 3);
    assert_true(scalana_median(even, 4) == 2.5);
    assert_true(odd[0] == 5 && even[0] == 4); /* untouched */
    double one = 7;
    assert_true(scalana_median(&one, 1) == 7);
    assert_true(isnan(scalana_median(odd, 0)));
    double dup[] = {2, 2, 2, 1, 2, 3};
    assert_true(scalana_median(dup, 6) == 2);
    /* Larger arrays (heap copy) against sorting, random and adversarial orders. */
    lcg_state = 7;
    for (size_t n = 60; n <= 1001; n += 157) {
        double *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s);
        assert_non_null(v);
        assert_non_null(s);
        for (size_t k = 0; k < n; k++)
            v[k] = (k % 3 == 0) ? (double)(n - k) : floor(noise() * 50);
        for (size_t k = 0; k < n; k++)
            s[k] = v[k];
        qsort(s, n, sizeof *s, cmp);
        double want = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
        assert_true(scalana_median(v, n) == want);
        assert_true(scalana_median_inplace(v, n) == want);
        free(v);
        free(s);
    }
}

static void test_spread(void **state)
{
    (void)state;
    double reps[] = {10.0, 10.5, 9.5};
    struct scalana_spread s;
    assert_int_equal(scalana_spread(reps, 3, &s), 0);
    assert_true(s.median == 10 && s.min == 9.5 && s.max == 10.5 && s.n == 3);
    NEAR(s.rel_spread, 0.1, 1e-12);
    assert_int_equal(scalana_spread(reps, 1, &s), 0);
    assert_true(s.rel_spread == 0);
    double z[] = {0, 0, 1};
    assert_int_equal(scalana_spread(z, 3, &s), 0);
    assert_true(isinf(s.rel_spread));
    assert_int_equal(scalana_spread(reps, 0, &s), -1);
}

static void test_accumulator_and_imbalance(void **state)
{
    (void)state;
    struct scalana_accum a, b, all;
    scalana_accum_init(&a);
    scalana_accum_init(&b);
    scalana_accum_init(&all);
    assert_true(isnan(scalana_imbalance(&a)));
    assert_true(scalana_imbalance_cost(&a) == 0);
    /* 1000 balanced processes, rank 613 twice as slow. */
    double v[1000];
    lcg_state = 3;
    for (uint32_t r = 0; r < 1000; r++) {
        v[r] = 1.0 + 0.01 * noise();
        if (r == 613)
            v[r] = 2.0;
        scalana_accum_add(r < 400 ? &a : &b, v[r], r);
        scalana_accum_add(&all, v[r], r);
    }
    scalana_accum_add(&all, NAN, 5); /* ignored */
    scalana_accum_merge(&a, &b);
    assert_int_equal(a.n, 1000);
    assert_int_equal(all.n, 1000);
    assert_int_equal(a.argmax, 613);
    assert_int_equal(all.argmax, 613);
    assert_int_equal(a.argmin, all.argmin);
    NEAR(scalana_accum_mean(&a), scalana_accum_mean(&all), 1e-12);
    NEAR(scalana_accum_stddev(&a), scalana_accum_stddev(&all), 1e-9);
    /* against the two-pass definition */
    double mean = 0, ss = 0;
    for (int r = 0; r < 1000; r++)
        mean += v[r];
    mean /= 1000;
    for (int r = 0; r < 1000; r++)
        ss += (v[r] - mean) * (v[r] - mean);
    NEAR(scalana_accum_stddev(&all), sqrt(ss / 999), 1e-9);
    NEAR(scalana_imbalance(&all), 2.0 / mean, 1e-12);
    NEAR(scalana_imbalance_cost(&all), 2.0 - mean, 1e-12);

    struct scalana_accum c;
    double flat[4] = {3, 3, 3, 3};
    assert_true(scalana_imbalance_of(flat, 4, &c) == 1.0);
    double zeros[3] = {0, 0, 0};
    assert_true(scalana_imbalance_of(zeros, 3, &c) == 1.0);
    double neg[2] = {-1, 1};
    assert_true(isinf(scalana_imbalance_of(neg, 2, &c)));
    scalana_accum_init(&b);
    scalana_accum_merge(&b, &all); /* into empty */
    assert_int_equal(b.argmax, 613);
}

static void test_mad_and_outliers(void **state)
{
    (void)state;
    double v[] = {1, 2, 3, 4, 100, 5, 6};
    double med;
    assert_true(scalana_mad(v, 7, &med) == 2);
    assert_true(med == 4);
    size_t idx[8];
    double z[10];
    assert_int_equal(scalana_robust_outliers(v, 7, SCALANA_OUTLIER_Z, SCALANA_OUTLIER_BOTH, idx, 8, z), 1);
    assert_int_equal(idx[0], 4);
    NEAR(z[4], 0.6745 * 96 / 2, 1e-12);
    assert_int_equal(scalana_robust_outliers(v, 7, 3.5, SCALANA_OUTLIER_LOW, idx, 8, NULL), 0);

    /* 4096 processes with 1 % noise, three planted slow ones, one fast. */
    enum { N = 4096 };
    static double w[N];
    lcg_state = 11;
    for (size_t r = 0; r < N; r++)
        w[r] = 10 * (1 + 0.01 * noise());
    w[17] = w[2000] = w[4095] = 12;
    w[99] = 7;
    assert_int_equal(scalana_robust_outliers(w, N, 3.5, SCALANA_OUTLIER_HIGH, idx, 8, NULL), 3);
    assert_int_equal(idx[0], 17);
    assert_int_equal(idx[1], 2000);
    assert_int_equal(idx[2], 4095);
    assert_int_equal(scalana_robust_outliers(w, N, 3.5, SCALANA_OUTLIER_BOTH, idx, 2, NULL), 4);
    assert_int_equal(idx[0], 17);
    assert_int_equal(idx[1], 99);

    /* MAD == 0 (most values equal): the mean absolute deviation takes over. */
    double most[10] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 9};
    assert_int_equal(scalana_robust_outliers(most, 10, 3.5, SCALANA_OUTLIER_BOTH, idx, 8, z), 1);
    assert_int_equal(idx[0], 9);
    NEAR(z[9], 4 / (1.253314 * 0.4), 1e-12);
    double same[5] = {2, 2, 2, 2, 2};
    assert_int_equal(scalana_robust_outliers(same, 5, 3.5, SCALANA_OUTLIER_BOTH, idx, 8, z), 0);
    assert_true(z[0] == 0);
    assert_int_equal(scalana_robust_outliers(v, 2, 3.5, SCALANA_OUTLIER_BOTH, idx, 8, NULL), 0);
}

static void test_poisson_exact(void **state)
{
    (void)state;
    /* Binomial(40, 1/2): 2 P(X >= 30) */
    NEAR(scalana_poisson_test(30, 1, 10, 1, SCALANA_TWO_SIDED), 0.0022214337732293643, 1e-9);
    NEAR(scalana_poisson_test(1000, 1, 900, 1, SCALANA_GREATER), 0.011554422554450536, 1e-9);
    NEAR(scalana_poisson_test(1000, 1, 900, 1, SCALANA_TWO_SIDED), 2 * 0.011554422554450536, 1e-9);
    /* unequal exposures: p = 1/3 */
    NEAR(scalana_poisson_test(5, 1, 20, 2, SCALANA_TWO_SIDED), 0.22390548168553256, 1e-9);
    NEAR(scalana_poisson_test(5, 2.5, 20, 5, SCALANA_TWO_SIDED), 0.22390548168553256, 1e-9);
    /* p = 1/4: upper and lower tails */
    NEAR(scalana_poisson_test(12, 1, 8, 3, SCALANA_GREATER), 0.000935391579332645, 1e-9);
    NEAR(scalana_poisson_test(3, 1, 17, 3, SCALANA_LESS), 0.22515604766431352, 1e-9);
    /* a far tail stays accurate (no normal approximation) */
    NEAR(scalana_poisson_test(5500, 1, 4500, 1, SCALANA_TWO_SIDED), 1.5510640568246042e-23, 1e-6);
    /* equal rates, large counts: not significant */
    assert_true(scalana_poisson_test(100000000, 1, 99990000, 1, SCALANA_TWO_SIDED) > 0.4);
    assert_true(scalana_poisson_test(10, 1, 10, 1, SCALANA_TWO_SIDED) == 1);
    assert_true(scalana_poisson_test(0, 1, 0, 1, SCALANA_TWO_SIDED) == 1);
    assert_true(scalana_poisson_test(0, 1, 50, 1, SCALANA_LESS) < 1e-14);
    assert_true(scalana_poisson_test(50, 1, 0, 1, SCALANA_LESS) == 1);
    assert_true(isnan(scalana_poisson_test(1, 0, 1, 1, SCALANA_TWO_SIDED)));
    assert_true(isnan(scalana_poisson_test(1, 1, 1, INFINITY, SCALANA_TWO_SIDED)));
}

static void test_quantile_and_minimums(void **state)
{
    (void)state;
    NEAR(scalana_normal_quantile(0.975), 1.959963984540054, 1e-14);
    NEAR(scalana_normal_quantile(0.9), 1.2815515655446004, 1e-14);
    NEAR(scalana_normal_quantile(0.025), -1.959963984540054, 1e-14);
    NEAR(scalana_normal_quantile(1e-10), -6.361340902404056, 1e-12);
    assert_true(scalana_normal_quantile(0.5) == 0);
    assert_true(isnan(scalana_normal_quantile(0)));
    assert_true(isnan(scalana_normal_quantile(1)));
    assert_int_equal(scalana_min_samples(0.2, 0.95), 97);
    assert_int_equal(scalana_min_samples(0.2, 0.95), SCALANA_MIN_SAMPLES);
    assert_int_equal(scalana_min_samples(0.1, 0.95), 385);
    assert_true(scalana_min_samples(0, 0.95) == UINT64_MAX);
    assert_true(scalana_min_samples(0.1, 1) == UINT64_MAX);
    /* too few samples never flag, however lopsided */
    assert_int_equal(scalana_counts_differ(40, 1, 0, 1, SCALANA_TWO_SIDED, SCALANA_ALPHA, 97), 0);
    assert_int_equal(scalana_counts_differ(140, 1, 60, 1, SCALANA_GREATER, SCALANA_ALPHA, 97), 1);
    assert_int_equal(scalana_counts_differ(105, 1, 95, 1, SCALANA_GREATER, SCALANA_ALPHA, 97), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_accumulator_and_imbalance),
        cmocka_unit_test(test_mad_and_outliers),
        cmocka_unit_test(test_poisson_exact),
        cmocka_unit_test(test_quantile_and_minimums),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
