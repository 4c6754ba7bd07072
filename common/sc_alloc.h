/* sc_alloc.h — the one allocation helper of the offline tools.
 *
 * Two kinds of callers: the analyzer's passes, which cannot go on without
 * the memory and stop the program (sc_xmalloc and friends: "<program>: out of
 * memory" on stderr, then abort()), and the readers and writers, which report
 * the failure to their caller (sc_grow returns -1).  Header-only (static
 * inline) like sc_hash.h, so that every library can use it without linking
 * more. */
#ifndef SCALANA_SC_ALLOC_H
#define SCALANA_SC_ALLOC_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Says "<program>: out of memory" on stderr and aborts. */
static inline void sc_oom(void)
{
#ifdef _GNU_SOURCE
    fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
#else
    fputs("out of memory\n", stderr);
#endif
    abort();
}

/** malloc(n) that never returns NULL (n may be 0: one byte is allocated). */
static inline void *sc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) sc_oom();
    return p;
}

/** calloc(n, size) that never returns NULL (n or size may be 0). */
static inline void *sc_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) sc_oom();
    return p;
}

/** realloc(p, n) that never returns NULL (n may be 0). */
static inline void *sc_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) sc_oom();
    return q;
}

/** strdup(s) that never returns NULL; NULL is copied as "". */
static inline char *sc_xstrdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    return memcpy(sc_xmalloc(n), s ? s : "", n);
}

/** Grows the array *p of *cap elements of elem bytes to hold at least need
 *  (doubling from 16).  Returns 0, or -1 when out of memory or the size
 *  overflows; *p and *cap are then unchanged. */
static inline int sc_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > (size_t)-1 / 2) return -1;
        c *= 2;
    }
    if (elem && c > (size_t)-1 / elem) return -1;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

#endif
