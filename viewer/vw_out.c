/* vw_out.c — the viewer's output writer: one interface over a FILE or a memory
 * buffer, with a sticky error flag (as redis rio), plus HTML escaping. */
#include "vw_internal.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

void vw_out_init_mem(struct vw_out *o)
{
    memset(o, 0, sizeof *o);
}

void vw_out_init_file(struct vw_out *o, FILE *fp)
{
    memset(o, 0, sizeof *o);
    o->fp = fp;
}

void vw_out_free(struct vw_out *o)
{
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}

void vw_write(struct vw_out *o, const char *s, size_t n)
{
    if (o->failed || n == 0) return;
    if (o->fp) {
        if (fwrite(s, 1, n, o->fp) != n) o->failed = 1;
        return;
    }
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n + 1) cap *= 2;
        char *b = realloc(o->buf, cap);
        if (!b) { o->failed = 1; return; }
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

void vw_puts(struct vw_out *o, const char *s)
{
    if (s) vw_write(o, s, strlen(s));
}

void vw_printf(struct vw_out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) { o->failed = 1; return; }
    if ((size_t)n < sizeof small) { vw_write(o, small, (size_t)n); return; }
    char *big = malloc((size_t)n + 1);
    if (!big) { o->failed = 1; return; }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    vw_write(o, big, (size_t)n);
    free(big);
}

size_t vw_utf8_len(const unsigned char *s, size_t n)
{
    size_t k;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    else if (c >= 0xC2 && c <= 0xDF) k = 2;
    else if (c >= 0xE0 && c <= 0xEF) k = 3;
    else if (c >= 0xF0 && c <= 0xF4) k = 4;
    else return 0;
    if (k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (k == 3 && c == 0xE0 && s[1] < 0xA0) return 0;
    if (k == 3 && c == 0xED && s[1] >= 0xA0) return 0;   /* surrogates */
    if (k == 4 && c == 0xF0 && s[1] < 0x90) return 0;
    if (k == 4 && c == 0xF4 && s[1] >= 0x90) return 0;
    return k;
}

void vw_html_n(struct vw_out *o, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0, i = 0;
    while (i < n) {
        const char *rep = NULL;
        size_t k = 1;
        switch (p[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        case '\0': rep = ""; break;
        default:
            if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') rep = "\xEF\xBF\xBD";
            else if (p[i] >= 0x80) {
                k = vw_utf8_len(p + i, n - i);
                if (k == 0) { rep = "\xEF\xBF\xBD"; k = 1; }
            }
        }
        if (rep) {
            vw_write(o, s + i - run, run);
            run = 0;
            vw_puts(o, rep);
        } else {
            run += k;
        }
        i += k;
    }
    vw_write(o, s + n - run, run);
}

void vw_html(struct vw_out *o, const char *s)
{
    if (s) vw_html_n(o, s, strlen(s));
}

void vw_num_text(char *buf, size_t n, double v)
{
    if (!n) return;
    if (!isfinite(v)) { snprintf(buf, n, "–"); return; }
    double a = fabs(v);
    if (a < 1e15 && v == floor(v)) snprintf(buf, n, "%.0f", v);
    else if (a != 0 && (a < 1e-3 || a >= 1e6)) snprintf(buf, n, "%.3g", v);
    else if (a >= 100) snprintf(buf, n, "%.1f", v);
    else snprintf(buf, n, "%.4g", v);
}

void vw_num(struct vw_out *o, double v)
{
    char buf[64];
    vw_num_text(buf, sizeof buf, v);
    vw_puts(o, buf);
}

void vw_seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    for (char *p = err; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

int vw_save_file(const char *dir, const char *name, const char *data, size_t len, char *err, size_t errlen)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        vw_seterr(err, errlen, "output path too long: %s/%s", dir, name);
        return -1;
    }
    FILE *fp = fopen(path, "w");
    if (!fp) {
        vw_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    size_t w = fwrite(data, 1, len, fp);
    if (fclose(fp) != 0 || w != len) {
        vw_seterr(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int vw_out_save(struct vw_out *o, const char *dir, const char *name, char *err, size_t errlen)
{
    if (vw_out_error(o)) {
        vw_seterr(err, errlen, "out of memory writing %s", name);
        return -1;
    }
    return vw_save_file(dir, name, o->buf ? o->buf : "", o->len, err, errlen);
}
