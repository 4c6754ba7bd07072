/* fuzz_common.h — helpers shared by the libFuzzer targets of tests/fuzz:
 * touching every decoded byte (so ASan sees out-of-bounds pointers) and
 * checking that error messages are terminated. */
#ifndef SCALANA_FUZZ_COMMON_H
#define SCALANA_FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

/* A sink the optimiser cannot remove. */
static volatile size_t fuzz_sink;

static inline void fuzz_touch_str(const char *s)
{
    if (s)
        fuzz_sink += strlen(s);
}

static inline void fuzz_touch(const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t s = 0;
    for (size_t i = 0; b && i < n; i++)
        s += b[i];
    fuzz_sink += s;
}

/* A reader's err buffer must hold a terminated string after a failure. */
static inline void fuzz_check_err(const char *err, size_t cap)
{
    if (!memchr(err, '\0', cap))
        abort();
    fuzz_touch_str(err);
}

#endif
