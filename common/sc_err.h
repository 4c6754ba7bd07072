/* sc_err.h — how the readers and writers of the formats library fail: a
 * message in the caller's buffer and -1 (header-only like sc_alloc.h). */
#ifndef SCALANA_SC_ERR_H
#define SCALANA_SC_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/** Formats the message into err[errlen] (nothing when err is NULL or errlen
 *  0; truncated to fit) and returns -1, so that a parser can
 *  `return sc_fail(err, errlen, "...", ...)`. */
__attribute__((format(printf, 3, 4))) static inline int sc_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
