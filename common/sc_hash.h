/* sc_hash.h — the one hash table of the offline tools (analyzer, binstruct,
 * formats, viewer): an open-addressing index over an array the caller owns.
 *
 * The table stores element ids (uint32_t, usually the index into the caller's
 * array) and 32 bits of each element's hash; it never sees keys.  A lookup
 * walks the candidates whose stored hash bits match and the caller compares
 * its own key, so one table serves strings, pointers and composite keys, and
 * growing it needs no callback (the stored hash bits place the ids again).
 * Linear probing, capacity a power of two, at most half full.
 *
 *     for (uint32_t id = sc_hash_first(&t, h, &it); id != SC_HASH_NONE; id = sc_hash_next(&t, &it))
 *         if (same_key(&array[id], key)) return id;
 *     ... append to array as id n ...; if (sc_hash_add(&t, h, n)) -> out of memory
 *
 * A zeroed struct sc_hash is an empty table.  Header-only (static inline) so
 * that the formats library, which the runtime and the pass also link, needs
 * nothing more; not async-signal-safe (it calls malloc). */
#ifndef SCALANA_SC_HASH_H
#define SCALANA_SC_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC_HASH_NONE UINT32_MAX /* no element; never a valid id */

struct sc_hash {
    uint64_t *slot; /* 0: empty; else hash bits << 32 | (id + 1) */
    size_t cap;     /* 0 or a power of two */
    size_t n;       /* ids stored */
};

/* Where a lookup stands between sc_hash_first and sc_hash_next. */
struct sc_hash_it {
    size_t pos;
    uint32_t bits;
};

/** Mixes a 64-bit key into a hash whose low bits all depend on every key bit
 *  (the finalizer of MurmurHash3 / SplitMix64): keys such as pointers, indices
 *  or (parent, key) pairs can be passed as they are. */
static inline uint64_t sc_hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/** FNV-1a 64 of n bytes, starting from seed (pass SC_FNV_OFFSET for the
 *  standard FNV-1a). */
#define SC_FNV_OFFSET 0xcbf29ce484222325ull
static inline uint64_t sc_fnv1a64(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/** The hash bits a table keeps of hash h. */
static inline uint32_t sc_hash_bits_(uint64_t h) { return (uint32_t)sc_hash_mix64(h); }

/** Empties the table and frees its slots. */
static inline void sc_hash_free(struct sc_hash *t)
{
    free(t->slot);
    t->slot = NULL, t->cap = 0, t->n = 0;
}

/** Forgets every id but keeps the slots (for a table reused per query). */
static inline void sc_hash_clear(struct sc_hash *t)
{
    if (t->slot) memset(t->slot, 0, t->cap * sizeof *t->slot);
    t->n = 0;
}

/* Places slot value s in a (large enough) slot array of capacity cap. */
static inline void sc_hash_place_(uint64_t *slot, size_t cap, uint64_t s)
{
    size_t j = (size_t)(uint32_t)(s >> 32) & (cap - 1);
    while (slot[j]) j = (j + 1) & (cap - 1);
    slot[j] = s;
}

/** Makes room for n ids in all without growing again (load at most 1/2).
 *  Returns 0, or -1 when out of memory or n is too large (the table is then
 *  unchanged). */
static inline int sc_hash_reserve(struct sc_hash *t, size_t n)
{
    if (n <= t->cap / 2) return 0;
    if (n > ((size_t)1 << 31)) return -1; /* ids and hash bits are 32-bit */
    size_t cap = t->cap ? t->cap : 16;
    while (cap / 2 < n) cap *= 2;
    uint64_t *s = calloc(cap, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i]) sc_hash_place_(s, cap, t->slot[i]);
    free(t->slot);
    t->slot = s, t->cap = cap;
    return 0;
}

/** Adds id (not SC_HASH_NONE) under hash h, growing the table as needed.  It
 *  does not look for an equal key first: the caller has (sc_hash_first).
 *  Returns 0, or -1 when out of memory (the table is then unchanged). */
static inline int sc_hash_add(struct sc_hash *t, uint64_t h, uint32_t id)
{
    if (id == SC_HASH_NONE || sc_hash_reserve(t, t->n + 1)) return -1;
    sc_hash_place_(t->slot, t->cap, (uint64_t)sc_hash_bits_(h) << 32 | ((uint64_t)id + 1));
    t->n++;
    return 0;
}

/** The next id whose hash bits match the lookup's, or SC_HASH_NONE. */
static inline uint32_t sc_hash_next(const struct sc_hash *t, struct sc_hash_it *it)
{
    if (!t->cap) return SC_HASH_NONE;
    for (;;) {
        uint64_t s = t->slot[it->pos];
        if (!s) return SC_HASH_NONE;
        it->pos = (it->pos + 1) & (t->cap - 1);
        if ((uint32_t)(s >> 32) == it->bits) return (uint32_t)s - 1;
    }
}

/** Starts a lookup of hash h: the first id stored under hash bits equal to h's,
 *  or SC_HASH_NONE.  Ids with other keys but the same bits may follow: the
 *  caller compares keys and calls sc_hash_next for the next candidate. */
static inline uint32_t sc_hash_first(const struct sc_hash *t, uint64_t h, struct sc_hash_it *it)
{
    it->bits = sc_hash_bits_(h);
    it->pos = t->cap ? (size_t)it->bits & (t->cap - 1) : 0;
    return sc_hash_next(t, it);
}

#endif
