/* gpu_api_class.c — which CUDA runtime/driver API calls the collector intercepts,
 * decided from the names CUPTI gives them, so new API versions (_v13000,
 * _ptsz) are covered without a table of callback ids. */
#include "gpu_internal.h"

#include <ctype.h>
#include <string.h>

/* Strips a trailing "_ptsz", "_ptds" or "_v<digits>" from s (length *n); 1 if stripped. */
static int strip_suffix(const char *s, size_t *n)
{
    size_t len = *n;
    if (len > 5 && (memcmp(s + len - 5, "_ptsz", 5) == 0 || memcmp(s + len - 5, "_ptds", 5) == 0)) {
        *n = len - 5;
        return 1;
    }
    size_t i = len;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i < len && i >= 2 && s[i - 1] == 'v' && s[i - 2] == '_') {
        *n = i - 2;
        return 1;
    }
    return 0;
}

static int starts(const char *s, size_t n, const char *prefix)
{
    size_t p = strlen(prefix);
    return n >= p && memcmp(s, prefix, p) == 0;
}

static int equals(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

static int contains(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (memcmp(s + i, word, w) == 0)
            return 1;
    return 0;
}

enum gpu_api_class gpu_api_classify(const char *cupti_name, char *base, size_t base_len)
{
    if (base && base_len)
        base[0] = '\0';
    if (!cupti_name)
        return GPU_API_OTHER;
    const char *s = cupti_name;
    while (*s == '_')
        s++;
    size_t n = strlen(s);
    while (strip_suffix(s, &n))
        ;
    if (base && base_len) {
        size_t c = n < base_len - 1 ? n : base_len - 1;
        memcpy(base, s, c);
        base[c] = '\0';
    }
    int runtime = starts(s, n, "cuda");
    if (!runtime && !starts(s, n, "cu"))
        return GPU_API_OTHER;
    const char *rest = s + (runtime ? 4 : 2);
    size_t rn = n - (runtime ? 4 : 2);

    if ((starts(rest, rn, "Launch") && !contains(rest, rn, "HostFunc")) ||
        equals(rest, rn, "GraphLaunch"))
        return GPU_API_LAUNCH;
    if (starts(rest, rn, "Memcpy")) {
        if (contains(rest, rn, "Node") || contains(rest, rn, "Attribute"))
            return GPU_API_OTHER;
        return contains(rest, rn, "Async") ? GPU_API_COPY_ASYNC : GPU_API_COPY_BLOCKING;
    }
    if (starts(rest, rn, "Memset"))
        return GPU_API_MEMSET;
    if (runtime ? (equals(rest, rn, "DeviceSynchronize") || equals(rest, rn, "ThreadSynchronize") ||
                   equals(rest, rn, "StreamSynchronize") || equals(rest, rn, "EventSynchronize"))
                : (equals(rest, rn, "CtxSynchronize") || equals(rest, rn, "StreamSynchronize") ||
                   equals(rest, rn, "EventSynchronize")))
        return GPU_API_SYNC;
    return GPU_API_OTHER;
}
