/* test_options.c — SCALANA_SIGNAL as a name, a real-time offset or a
 * number; garbage and unusable signals fall back to SIGPROF with a warning;
 * the other SCALANA_* values clamped or replaced with a warning; SCALANA=off
 * (rt_options.c, rt_warn.c). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/rt_core.h"

static int signal_of(const char *value)
{
    setenv("SCALANA_SIGNAL", value, 1);
    rt_opt.signo = -1;
    rt_options_read();
    return rt_opt.signo;
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(signal_of("SIGPROF"), SIGPROF);
    assert_int_equal(signal_of("PROF"), SIGPROF);
    assert_int_equal(signal_of("sigprof"), SIGPROF);
    assert_int_equal(signal_of("SIGALRM"), SIGALRM);
    assert_int_equal(signal_of("VTALRM"), SIGVTALRM);
    assert_int_equal(signal_of("SIGUSR2"), SIGUSR2);
    assert_int_equal(signal_of("SIGXCPU"), SIGXCPU); /* any name the system knows */
    assert_int_equal(signal_of("SIGRTMIN"), SIGRTMIN);
    assert_int_equal(signal_of("SIGRTMIN+3"), SIGRTMIN + 3);
    assert_int_equal(signal_of("RTMIN+3"), SIGRTMIN + 3);
    assert_int_equal(signal_of("SIGRTMAX"), SIGRTMAX);
    assert_int_equal(signal_of("SIGRTMAX-2"), SIGRTMAX - 2);
    assert_int_equal(signal_of("12"), 12);
}

static void test_garbage(void **state)
{
    (void)state;
    static const char *bad[] = {"SIGFOO", "SIGRTMIN+x", "SIGRTMIN+", "SIGRTMIN-1", "SIGRTMAX+1",
                                "SIGRTMIN+999", "27x", "-5", "0", "999", "SIG27", "SIGKILL", "9",
                                "STOP", "SIGSEGV", "ABRT", " PROF"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t before, after;
        rt_warnings(&before);
        assert_int_equal(signal_of(bad[i]), SIGPROF);
        const char *const *w = rt_warnings(&after);
        /* one warning per distinct value (at most 8 kept) */
        if (before < 8) {
            assert_int_equal(after, before + 1);
            assert_non_null(strstr(w[after - 1], "SCALANA_SIGNAL="));
            assert_non_null(strstr(w[after - 1], bad[i]));
            assert_non_null(strstr(w[after - 1], "using SIGPROF"));
        }
    }
}

/* The last warning kept names var=value and the value used. */
static void assert_warned(const char *var_value, const char *used)
{
    uint32_t n;
    const char *const *w = rt_warnings(&n);
    assert_true(n > 0);
    assert_non_null(strstr(w[n - 1], var_value));
    assert_non_null(strstr(w[n - 1], used));
}

/* Every other SCALANA_* value: numbers clamped into their range, words and
 * garbage replaced by the default, one warning each (rt_options.c). */
static void test_values(void **state)
{
    (void)state;
    setenv("SCALANA_FREQ", "abc", 1);
    rt_options_read();
    assert_int_equal(rt_opt.freq, 200);
    assert_warned("SCALANA_FREQ=abc ", "using 200");
    setenv("SCALANA_FREQ", "0", 1);
    rt_options_read();
    assert_int_equal(rt_opt.freq, 1);
    assert_warned("SCALANA_FREQ=0 ", "using 1");
    setenv("SCALANA_FREQ", "500", 1);
    rt_options_read();
    assert_int_equal(rt_opt.freq, 500);
    unsetenv("SCALANA_FREQ");
    setenv("SCALANA_CCT_NODES", "-5", 1);
    rt_options_read();
    assert_int_equal(rt_opt.cct_nodes, 64);
    assert_int_equal(rt_options_cct_nodes(), 64); /* threads registered before the read agree */
    assert_warned("SCALANA_CCT_NODES=-5 ", "using 64");
    setenv("SCALANA_CCT_NODES", "99999999", 1);
    rt_options_read();
    assert_int_equal(rt_opt.cct_nodes, 1u << 24);
    assert_int_equal(rt_options_cct_nodes(), 1u << 24);
    unsetenv("SCALANA_CCT_NODES");
    setenv("SCALANA_QUIET", "yes", 1);
    setenv("SCALANA_INTERVAL_LONG_US", "5", 1);
    setenv("SCALANA_WAITALL_SPLIT", "off", 1);
    rt_options_read();
    assert_int_equal(rt_opt.quiet, 1);
    assert_int_equal(rt_opt.interval_long_ns, 5000);
    assert_int_equal(rt_opt.waitall_split, 0);
    unsetenv("SCALANA_QUIET");
    /* an on/off variable with another word: the warning lists what is accepted */
    setenv("SCALANA_WAITALL_SPLIT", "maybe", 1);
    rt_options_read();
    assert_int_equal(rt_opt.waitall_split, 1);
    assert_warned("SCALANA_WAITALL_SPLIT=maybe is not on or off (want 1, on, yes, true or 0, off, no, false)",
                  "using 1 (on)");
    setenv("SCALANA_WAITALL_SPLIT", "off", 1);
    unsetenv("SCALANA_INTERVAL_LONG_US");
    unsetenv("SCALANA_WAITALL_SPLIT");
    setenv("SCALANA_SAMPLER", "papi:", 1);
    rt_options_read();
    assert_int_equal(rt_opt.sampler, PRF_SAMPLER_TASKCLOCK);
    assert_warned("SCALANA_SAMPLER=papi: ", "using taskclock");
    unsetenv("SCALANA_SAMPLER");
    /* SCALANA=off and its spellings; anything else measures */
    static const char *off[] = {"off", "OFF", "0", "no", "false"}, *on[] = {"on", "1", "", "offf", "2"};
    for (size_t i = 0; i < 5; i++) {
        setenv("SCALANA", off[i], 1);
        assert_true(rt_options_off());
        setenv("SCALANA", on[i], 1);
        assert_false(rt_options_off());
    }
    unsetenv("SCALANA");
    assert_false(rt_options_off());
}

int main(void)
{
    rt_g.world_rank = 1; /* warnings are printed by world rank 0 only: keep the output clean */
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_values), cmocka_unit_test(test_names),
                                       cmocka_unit_test(test_garbage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
