/* test_model.c — scaling models: exact recovery of known normal-form models,
 * the small hypothesis set, noise robustness, formulas and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "models/model.h"

static const double P6[6] = {64, 128, 256, 512, 1024, 2048};

/* Deterministic uniform noise in [-1, 1] (64-bit LCG, Knuth MMIX constants),
 * so the noise tests give the same draws with every libc. */
static uint64_t lcg_state;
static double noise(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

static void fill(double *t, const double *p, size_t n, double c0, double c1, double i, int j)
{
    for (size_t k = 0; k < n; k++)
        t[k] = c0 + c1 * pow(p[k], i) * pow(log2(p[k]), j);
}

static void assert_model(const struct scalana_model *m, double c0, double c1, double i, int j)
{
    assert_true(fabs(m->i - i) < 1e-12);
    assert_int_equal(m->j, j);
    assert_true(fabs(m->c0 - c0) <= 1e-6 * fmax(1, fabs(c0)));
    assert_true(fabs(m->c1 - c1) <= 1e-6 * fabs(c1));
}

static void test_sqrt_log_five_and_six_points(void **state)
{
    (void)state;
    double t[6];
    fill(t, P6, 6, 2, 0.5, 0.5, 1);
    for (size_t n = 5; n <= 6; n++) {
        struct scalana_model m;
        assert_int_equal(scalana_model_fit(P6, t, n, &m), 0);
        assert_model(&m, 2, 0.5, 0.5, 1);
        assert_int_equal(m.quality, SCALANA_MODEL_CROSS_VALIDATED);
        assert_true(m.smape < 1e-6);
        char buf[128];
        scalana_model_formula(&m, buf, sizeof buf);
        assert_string_equal(buf, "2 + 0.5 * p^(1/2) * log2(p)");
        assert_string_equal(scalana_model_quality_name(m.quality), "cross-validated");
    }
}

static void test_inverse_p(void **state)
{
    (void)state;
    double t[6];
    fill(t, P6, 6, 0, 10, -1, 0);
    struct scalana_model m;
    assert_int_equal(scalana_model_fit(P6, t, 6, &m), 0);
    assert_model(&m, 0, 10, -1, 0);
    assert_true(m.has_slope);
    assert_true(fabs(m.loglog_slope + 1) < 1e-9);
    char buf[64];
    scalana_model_formula(&m, buf, sizeof buf);
    assert_string_equal(buf, "10 * p^(-1)");
    /* The ideal strong scaling of the same quantity is the same curve. */
    assert_true(fabs(scalana_ideal_strong(t[0], 64, 2048) - t[5]) < 1e-12);
}

static void test_constant(void **state)
{
    (void)state;
    double t[6] = {3, 3, 3, 3, 3, 3};
    struct scalana_model m;
    assert_int_equal(scalana_model_fit(P6, t, 6, &m), 0);
    assert_true(m.c1 == 0 && m.i == 0 && m.j == 0);
    assert_true(fabs(m.c0 - 3) < 1e-12);
    assert_true(fabs(m.loglog_slope) < 1e-12);
    char buf[64];
    scalana_model_formula(&m, buf, sizeof buf);
    assert_string_equal(buf, "3");
    assert_true(scalana_model_eval(&m, 1e6) == 3);
}

/* Every exponent family recovers exactly from 6 noise-free points. */
static void test_all_hypotheses_recover(void **state)
{
    (void)state;
    static const double is[] = {0,     0.25,  1. / 3, 0.5, 2. / 3, 0.75,   1,
                                1.25,  4. / 3, 1.5,   5. / 3, 1.75, 2,      2.25,
                                7. / 3, 2.5,  8. / 3, 2.75, 3};
    double p[6] = {16, 64, 256, 1024, 4096, 16384};
    for (size_t e = 0; e < sizeof is / sizeof is[0]; e++) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            for (int j = 0; j <= 2; j++) {
                double i = sign * is[e];
                if (is[e] == 0 && (j == 0 || sign < 0))
                    continue;
                double t[6];
                double c1 = 1.0 / (pow(16384, i) * pow(14, j)); /* term ~1 at the top */
                fill(t, p, 6, 1.5, c1 * 3, i, j);
                struct scalana_model m;
                assert_int_equal(scalana_model_fit(p, t, 6, &m), 0);
                if (fabs(m.i - i) > 1e-12 || m.j != j)
                    fail_msg("i=%g j=%d fitted as i=%g j=%d", i, j, m.i, m.j);
                assert_true(fabs(m.c0 - 1.5) < 1e-6);
                for (size_t k = 0; k < 6; k++)
                    assert_true(fabs(scalana_model_eval(&m, p[k]) - t[k]) < 1e-7 * fabs(t[k]));
            }
        }
    }
}

static void test_points_in_any_order_and_repeated(void **state)
{
    (void)state;
    double p[7] = {1024, 64, 2048, 128, 512, 256, 64};
    double t[7];
    fill(t, p, 7, 1, 2e-3, 1, 0);
    struct scalana_model m;
    assert_int_equal(scalana_model_fit(p, t, 7, &m), 0);
    assert_model(&m, 1, 2e-3, 1, 0);
    char buf[64];
    scalana_model_formula(&m, buf, sizeof buf);
    assert_string_equal(buf, "1 + 2.00e-03 * p");
}

static void test_single_point(void **state)
{
    (void)state;
    double p[3] = {64, 64, 64}, t[3] = {1, 2, 3};
    struct scalana_model m;
    assert_int_equal(scalana_model_fit(p, t, 1, &m), 0);
    assert_int_equal(m.quality, SCALANA_MODEL_SINGLE_POINT);
    assert_true(m.c0 == 1 && m.c1 == 0 && !m.has_slope);
    assert_string_equal(scalana_model_quality_name(m.quality), "single point");
    /* Repetitions at one count are still one point: their mean. */
    assert_int_equal(scalana_model_fit(p, t, 3, &m), 0);
    assert_int_equal(m.quality, SCALANA_MODEL_SINGLE_POINT);
    assert_true(fabs(m.c0 - 2) < 1e-12);
}

static void test_insufficient_points(void **state)
{
    (void)state;
    struct scalana_model m;
    double t[4];
    /* Two points: falling -> 1/p, steep rise -> p, mild rise -> log2 p. */
    fill(t, P6, 2, 0, 10, -1, 0);
    assert_int_equal(scalana_model_fit(P6, t, 2, &m), 0);
    assert_int_equal(m.quality, SCALANA_MODEL_INSUFFICIENT_POINTS);
    assert_string_equal(scalana_model_quality_name(m.quality), "insufficient points");
    assert_model(&m, 0, 10, -1, 0);
    fill(t, P6, 2, 0, 1, 1, 0);
    assert_int_equal(scalana_model_fit(P6, t, 2, &m), 0);
    assert_model(&m, 0, 1, 1, 0);
    fill(t, P6, 2, 10, 1, 0, 1);
    assert_int_equal(scalana_model_fit(P6, t, 2, &m), 0);
    assert_model(&m, 10, 1, 0, 1);
    /* Three and four points choose within the small set by least squares. */
    fill(t, P6, 4, 1, 2, 0, 1);
    assert_int_equal(scalana_model_fit(P6, t, 3, &m), 0);
    assert_int_equal(m.quality, SCALANA_MODEL_INSUFFICIENT_POINTS);
    assert_model(&m, 1, 2, 0, 1);
    fill(t, P6, 4, 0.5, 100, -1, 0);
    assert_int_equal(scalana_model_fit(P6, t, 4, &m), 0);
    assert_model(&m, 0.5, 100, -1, 0);
    double c[4] = {7, 7, 7, 7};
    assert_int_equal(scalana_model_fit(P6, c, 4, &m), 0);
    assert_true(m.c1 == 0 && m.c0 == 7);
    /* Outside the small set the family is not recovered, but the quality says so. */
    fill(t, P6, 4, 1, 1, 2, 0);
    assert_int_equal(scalana_model_fit(P6, t, 4, &m), 0);
    assert_int_equal(m.quality, SCALANA_MODEL_INSUFFICIENT_POINTS);
    assert_true(m.i == 1 && m.j == 0);
}

/* Noise: constants stay constant, trends stay trends, the fitted curve stays
 * close to the truth.  Rates measured with this generator; the asserted
 * bounds leave a wide margin. */
static void test_noise_robustness(void **state)
{
    (void)state;
    lcg_state = 42;
    int constant_kept = 0, trend_found = 0, family_found = 0, close = 0;
    const int draws = 300;
    for (int r = 0; r < draws; r++) {
        double t[6];
        struct scalana_model m;
        for (size_t k = 0; k < 6; k++)
            t[k] = 3 * (1 + 0.05 * noise());
        assert_int_equal(scalana_model_fit(P6, t, 6, &m), 0);
        constant_kept += m.c1 == 0;

        for (size_t k = 0; k < 6; k++)
            t[k] = (1 + 0.02 * log2(P6[k])) * (1 + 0.01 * noise());
        assert_int_equal(scalana_model_fit(P6, t, 6, &m), 0);
        /* rising: a negative exponent with c1 < 0 (saturating growth) counts */
        trend_found += m.c1 != 0 && scalana_model_eval(&m, 2048) > scalana_model_eval(&m, 64);

        for (size_t k = 0; k < 6; k++)
            t[k] = (2 + 0.5 * sqrt(P6[k]) * log2(P6[k])) * (1 + 0.02 * noise());
        assert_int_equal(scalana_model_fit(P6, t, 6, &m), 0);
        family_found += fabs(m.i - 0.5) < 0.3 && m.c1 > 0;
        /* extrapolation one doubling beyond the data within 15 % */
        double truth = 2 + 0.5 * sqrt(4096) * 12;
        close += fabs(scalana_model_eval(&m, 4096) - truth) < 0.15 * truth;
    }
    assert_true(constant_kept >= draws * 80 / 100);
    assert_true(trend_found >= draws * 95 / 100);
    assert_true(family_found >= draws * 90 / 100);
    assert_true(close >= draws * 90 / 100);
}

static void test_noisy_variant_uses_repetition_spread(void **state)
{
    (void)state;
    /* A 1 % drift with 4 % repetition scatter is no trend... */
    double t[6];
    fill(t, P6, 6, 1, 0.01 / 11, 0, 1);
    struct scalana_model m;
    assert_int_equal(scalana_model_fit_noisy(P6, t, 6, 0.04, &m), 0);
    assert_true(m.c1 == 0);
    /* ...but is one when repetitions agree to 0.1 %. */
    assert_int_equal(scalana_model_fit_noisy(P6, t, 6, 0.001, &m), 0);
    assert_true(m.c1 > 0 && m.j == 1);
}

static void test_bad_input(void **state)
{
    (void)state;
    struct scalana_model m = {.c0 = 42};
    double p[5] = {1, 2, 4, 8, 16}, t[5] = {1, 1, 1, 1, 1};
    assert_int_equal(scalana_model_fit(p, t, 0, &m), -1);
    assert_int_equal(scalana_model_fit(NULL, t, 5, &m), -1);
    assert_int_equal(scalana_model_fit(p, NULL, 5, &m), -1);
    assert_int_equal(scalana_model_fit(p, t, 5, NULL), -1);
    t[2] = NAN;
    assert_int_equal(scalana_model_fit(p, t, 5, &m), -1);
    t[2] = INFINITY;
    assert_int_equal(scalana_model_fit(p, t, 5, &m), -1);
    t[2] = 1;
    p[3] = 0;
    assert_int_equal(scalana_model_fit(p, t, 5, &m), -1);
    p[3] = NAN;
    assert_int_equal(scalana_model_fit(p, t, 5, &m), -1);
    assert_true(m.c0 == 42); /* untouched */
    p[3] = 8;
    /* p = 1 makes log2(p) = 0: still fits; zero times have no slope. */
    double z[5] = {0, 0, 0, 0, 0};
    assert_int_equal(scalana_model_fit(p, z, 5, &m), 0);
    assert_true(m.c0 == 0 && m.c1 == 0 && !m.has_slope);
    assert_true(isnan(scalana_model_eval(&m, 0)));
    assert_true(isnan(scalana_model_eval(NULL, 4)));
    assert_string_equal(scalana_model_quality_name(99), "unknown");
    char small[4];
    m.c0 = 123456.789;
    m.c1 = 1;
    m.i = 0.5;
    scalana_model_formula(&m, small, sizeof small);
    assert_int_equal(strlen(small), 3);
}

/* Any finite input, however extreme (times from 1e-300 to 1e300, either
 * sign, zeros, p = 1 where log2 p = 0, repeated counts), gives a finite
 * model and a formula. */
static void test_extreme_inputs_stay_finite(void **state)
{
    (void)state;
    lcg_state = 9;
    for (int r = 0; r < 20000; r++) {
        size_t n = 1 + (size_t)r % 9;
        double p[9], t[9];
        for (size_t k = 0; k < n; k++) {
            p[k] = noise() < -0.4 ? 1 : pow(10, 3.5 + 3.5 * noise());
            t[k] = (noise() < 0 ? -1 : 1) * pow(10, 300 * noise());
            if (noise() < -0.8)
                t[k] = 0;
            if (noise() < -0.9)
                p[k] = p[0];
        }
        struct scalana_model m;
        assert_int_equal(scalana_model_fit(p, t, n, &m), 0);
        assert_true(isfinite(m.c0) && isfinite(m.c1) && isfinite(m.i) && isfinite(m.smape));
        assert_true(!m.has_slope || isfinite(m.loglog_slope));
        char buf[128];
        scalana_model_formula(&m, buf, sizeof buf);
        assert_true(buf[0] != '\0');
    }
}

static void test_ideal(void **state)
{
    (void)state;
    assert_true(scalana_ideal_strong(8, 64, 256) == 2);
    assert_true(scalana_ideal_strong(8, 64, 64) == 8);
    assert_true(isnan(scalana_ideal_strong(8, 64, 0)));
    assert_true(scalana_ideal_weak(8, 64, 16384) == 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqrt_log_five_and_six_points),
        cmocka_unit_test(test_inverse_p),
        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_all_hypotheses_recover),
        cmocka_unit_test(test_points_in_any_order_and_repeated),
        cmocka_unit_test(test_single_point),
        cmocka_unit_test(test_insufficient_points),
        cmocka_unit_test(test_noise_robustness),
        cmocka_unit_test(test_noisy_variant_uses_repetition_spread),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_extreme_inputs_stay_finite),
        cmocka_unit_test(test_ideal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
