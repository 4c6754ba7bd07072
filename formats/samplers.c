/* samplers.c — lookup of the sample sources listed in samplers.def. */
#include "scalana/samplers.h"
#include "scalana/profile_format.h"

#include <stdio.h>
#include <string.h>

static const struct {
    uint32_t id;
    const char *word;
    enum scalana_clock clock;
    const char *arg;
} samplers[] = {
#define SCALANA_SAMPLER(id, NAME, word, clock, arg) {id, word, clock, arg},
#include "scalana/samplers.def"
#undef SCALANA_SAMPLER
};
#define NSAMPLERS (sizeof samplers / sizeof *samplers)

/* the codes of samplers.def are the enum's (profile_format.h builds it from the same lines) */
#define SCALANA_SAMPLER(id, NAME, word, clock, arg) \
    _Static_assert(PRF_SAMPLER_##NAME == (id), "samplers.def: " word " has two codes");
#include "scalana/samplers.def"
#undef SCALANA_SAMPLER

static int find(uint32_t id)
{
    for (size_t i = 0; i < NSAMPLERS; i++)
        if (samplers[i].id == id) return (int)i;
    return -1;
}

const char *scalana_sampler_word(uint32_t id)
{
    int i = find(id);
    return i < 0 ? NULL : samplers[i].word;
}

int scalana_sampler_of_word(const char *s, const char **arg)
{
    if (arg) *arg = "";
    if (!s) return -1;
    for (size_t i = 0; i < NSAMPLERS; i++) {
        size_t n = strlen(samplers[i].word);
        if (strncmp(s, samplers[i].word, n) != 0) continue;
        if (s[n] == '\0' && !samplers[i].arg) return (int)samplers[i].id;
        if (s[n] == ':' && s[n + 1] && samplers[i].arg) {
            if (arg) *arg = s + n + 1;
            return (int)samplers[i].id;
        }
    }
    return -1;
}

const char *scalana_sampler_arg(uint32_t id)
{
    int i = find(id);
    return i < 0 ? NULL : samplers[i].arg;
}

enum scalana_clock scalana_sampler_clock(uint32_t id)
{
    int i = find(id);
    return i < 0 ? SCALANA_CLOCK_NONE : samplers[i].clock;
}

int scalana_sampler_cpu_clock(uint32_t id) { return scalana_sampler_clock(id) == SCALANA_CLOCK_CPU; }

char *scalana_sampler_words(char *buf, size_t cap, const char *sep, const char *last)
{
    size_t used = 0;
    if (cap) buf[0] = '\0';
    for (size_t i = 0; i < NSAMPLERS && used < cap; i++) {
        const char *before = i == 0 ? "" : i + 1 == NSAMPLERS ? last : sep;
        int n = snprintf(buf + used, cap - used, "%s%s%s%s", before, samplers[i].word,
                         samplers[i].arg ? ":" : "", samplers[i].arg ? samplers[i].arg : "");
        if (n < 0) break;
        used += (size_t)n;
    }
    return buf;
}
