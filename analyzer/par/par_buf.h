/* par_buf.h — the byte buffers of the parallel analyzer's messages
 * (par_combine.c, par_serve.c): appended in native byte order (both ends
 * are the same build) and read back with bounds checks that set bad
 * instead of reading past the end.  Not a public API. */
#ifndef SCALANA_PAR_BUF_H
#define SCALANA_PAR_BUF_H

#include "core/graph.h"
#include "core/types.h"
#include "sc_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct wbuf { char *p; uint64_t n, cap; };
struct rbuf { const char *p; uint64_t n, off; int bad; };

static inline void put(struct wbuf *b, const void *x, size_t n)
{
    if (b->n + n > b->cap) {
        uint64_t c = b->cap ? b->cap : 1 << 16;
        while (c < b->n + n) c *= 2;
        b->p = sc_xrealloc(b->p, c), b->cap = c;
    }
    if (n) memcpy(b->p + b->n, x, n);
    b->n += n;
}
static inline void put_u32(struct wbuf *b, uint32_t v) { put(b, &v, sizeof v); }
static inline void put_u64(struct wbuf *b, uint64_t v) { put(b, &v, sizeof v); }
static inline void put_f64(struct wbuf *b, double v) { put(b, &v, sizeof v); }
static inline void put_str(struct wbuf *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    put_u32(b, n);
    put(b, s ? s : "", n);
}

static inline void get(struct rbuf *b, void *x, size_t n)
{
    if (b->bad || b->off + n > b->n) {
        b->bad = 1;
        memset(x, 0, n);
        return;
    }
    if (n) memcpy(x, b->p + b->off, n);
    b->off += n;
}
static inline uint32_t get_u32(struct rbuf *b) { uint32_t v; get(b, &v, sizeof v); return v; }
static inline uint64_t get_u64(struct rbuf *b) { uint64_t v; get(b, &v, sizeof v); return v; }
static inline double get_f64(struct rbuf *b) { double v; get(b, &v, sizeof v); return v; }
/* Whether n more items of size sz can be in b (a count read from a message). */
static inline int fits(const struct rbuf *b, uint64_t n, size_t sz)
{
    return !b->bad && (sz == 0 || n <= (b->n - b->off) / sz);
}
/* A string interned in pool. */
static inline const char *get_str(struct rbuf *b, struct an_strpool *pool)
{
    uint32_t n = get_u32(b);
    if (b->bad || b->off + n > b->n) {
        b->bad = 1;
        return "";
    }
    char *s = sc_xmalloc((size_t)n + 1);
    memcpy(s, b->p + b->off, n);
    s[n] = 0;
    b->off += n;
    const char *r = an_intern(pool, s);
    free(s);
    return r;
}

#endif
