/* test_options.c — SCALANA_SIGNAL as a name, a real-time offset or a
 * number; garbage and unusable signals fall back to SIGPROF with a warning
 * (rt_options.c, rt_warn.c). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rt_core.h"

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

int main(void)
{
    rt_g.world_rank = 1; /* warnings are printed by world rank 0 only: keep the output clean */
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_names), cmocka_unit_test(test_garbage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
