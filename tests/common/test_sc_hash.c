/* test_sc_hash.c — the offline tools' hash table (common/sc_hash.h) and
 * allocation helper (common/sc_alloc.h): every id found again after growth,
 * colliding hashes told apart by the caller's key, clearing, reservation,
 * refusal of the reserved id, and sc_grow's doubling and overflow check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_alloc.h"
#include "sc_hash.h"

/* The id stored under key among ids whose key is keys[id], or SC_HASH_NONE. */
static uint32_t find(const struct sc_hash *t, const uint64_t *keys, uint64_t h, uint64_t key)
{
    struct sc_hash_it it;
    for (uint32_t id = sc_hash_first(t, h, &it); id != SC_HASH_NONE; id = sc_hash_next(t, &it))
        if (keys[id] == key) return id;
    return SC_HASH_NONE;
}

static void t_empty(void **state)
{
    (void)state;
    struct sc_hash t;
    memset(&t, 0, sizeof t);
    struct sc_hash_it it;
    assert_int_equal(sc_hash_first(&t, 42, &it), SC_HASH_NONE);
    assert_int_equal(sc_hash_next(&t, &it), SC_HASH_NONE);
    sc_hash_clear(&t);
    sc_hash_free(&t);
    assert_null(t.slot);
    assert_int_equal(t.cap, 0);
}

/* 100000 keys through many doublings: each found under its own id, absent
 * keys not found, load never above one half. */
static void t_grow_and_find(void **state)
{
    (void)state;
    enum { N = 100000 };
    uint64_t *keys = sc_xmalloc(N * sizeof *keys);
    struct sc_hash t;
    memset(&t, 0, sizeof t);
    for (uint32_t i = 0; i < N; i++) {
        keys[i] = (uint64_t)i * 7919 + 3;
        assert_int_equal(find(&t, keys, keys[i], keys[i]), SC_HASH_NONE);
        assert_int_equal(sc_hash_add(&t, keys[i], i), 0);
        assert_true(t.n * 2 <= t.cap);
    }
    assert_int_equal(t.n, N);
    assert_int_equal(t.cap & (t.cap - 1), 0);
    for (uint32_t i = 0; i < N; i++) assert_int_equal(find(&t, keys, keys[i], keys[i]), i);
    for (uint64_t k = 1; k < 1000; k++) assert_int_equal(find(&t, keys, k * 7919 + 4, k * 7919 + 4), SC_HASH_NONE);
    sc_hash_free(&t);
    free(keys);
}

/* All keys under one hash value: the caller's comparison tells them apart,
 * and every one is a candidate of that hash. */
static void t_collisions(void **state)
{
    (void)state;
    uint64_t keys[64];
    struct sc_hash t;
    memset(&t, 0, sizeof t);
    for (uint32_t i = 0; i < 64; i++) {
        keys[i] = 1000 + i;
        assert_int_equal(sc_hash_add(&t, 5, i), 0);
    }
    for (uint32_t i = 0; i < 64; i++) assert_int_equal(find(&t, keys, 5, keys[i]), i);
    struct sc_hash_it it;
    unsigned seen = 0;
    for (uint32_t id = sc_hash_first(&t, 5, &it); id != SC_HASH_NONE; id = sc_hash_next(&t, &it)) seen++;
    assert_int_equal(seen, 64);
    assert_int_equal(find(&t, keys, 6, keys[0]), SC_HASH_NONE);
    sc_hash_free(&t);
}

/* Strings by FNV-1a: equal text, one id (an interning pool's use). */
static void t_strings(void **state)
{
    (void)state;
    const char *words[] = {"MPI_Send", "MPI_Recv", "solver", "", "MPI_Allreduce", "main"};
    struct sc_hash t;
    memset(&t, 0, sizeof t);
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(sc_hash_add(&t, sc_fnv1a64(words[i], strlen(words[i]), SC_FNV_OFFSET), i), 0);
    char buf[32];
    snprintf(buf, sizeof buf, "%s", "solver");
    struct sc_hash_it it;
    uint32_t hit = SC_HASH_NONE;
    for (uint32_t id = sc_hash_first(&t, sc_fnv1a64(buf, strlen(buf), SC_FNV_OFFSET), &it); id != SC_HASH_NONE;
         id = sc_hash_next(&t, &it))
        if (strcmp(words[id], buf) == 0) hit = id;
    assert_int_equal(hit, 2);
    /* the standard FNV-1a 64 test vectors */
    assert_true(sc_fnv1a64("", 0, SC_FNV_OFFSET) == 0xcbf29ce484222325ull);
    assert_true(sc_fnv1a64("a", 1, SC_FNV_OFFSET) == 0xaf63dc4c8601ec8cull);
    assert_true(sc_fnv1a64("foobar", 6, SC_FNV_OFFSET) == 0x85944171f73967e8ull);
    sc_hash_free(&t);
}

static void t_clear_reserve_refuse(void **state)
{
    (void)state;
    uint64_t keys[200];
    struct sc_hash t;
    memset(&t, 0, sizeof t);
    assert_int_equal(sc_hash_reserve(&t, 100), 0);
    size_t cap = t.cap;
    assert_true(cap >= 200);
    for (uint32_t i = 0; i < 100; i++) keys[i] = i, assert_int_equal(sc_hash_add(&t, i, i), 0);
    assert_int_equal(t.cap, cap); /* reserved: no growth */
    sc_hash_clear(&t);
    assert_int_equal(t.n, 0);
    assert_int_equal(t.cap, cap);
    for (uint32_t i = 0; i < 100; i++) assert_int_equal(find(&t, keys, i, i), SC_HASH_NONE);
    assert_int_equal(sc_hash_add(&t, 1, SC_HASH_NONE), -1); /* not an id */
    assert_int_equal(t.n, 0);
    assert_int_equal(sc_hash_reserve(&t, (size_t)1 << 40), -1); /* beyond 32-bit ids: table unchanged */
    assert_int_equal(t.cap, cap);
    sc_hash_free(&t);
}

static void t_mix(void **state)
{
    (void)state;
    /* keys that differ in one high bit land in different low bits */
    unsigned same = 0;
    for (uint64_t b = 32; b < 64; b++) same += (sc_hash_mix64(1ull << b) & 0xffff) == (sc_hash_mix64(0) & 0xffff);
    assert_true(same <= 1);
    assert_true(sc_hash_mix64(1) != sc_hash_mix64(2));
}

static void t_alloc(void **state)
{
    (void)state;
    char *p = sc_xmalloc(0); /* never NULL, even for 0 bytes */
    assert_non_null(p);
    free(p);
    int *z = sc_xcalloc(0, sizeof *z);
    assert_non_null(z);
    free(z);
    z = sc_xcalloc(10, sizeof *z);
    for (int i = 0; i < 10; i++) assert_int_equal(z[i], 0);
    z = sc_xrealloc(z, 1000 * sizeof *z);
    assert_int_equal(z[9], 0);
    free(z);
    char *s = sc_xstrdup("late sender");
    assert_string_equal(s, "late sender");
    free(s);
    s = sc_xstrdup(NULL);
    assert_string_equal(s, "");
    free(s);

    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(sc_grow((void **)&v, &cap, 0, sizeof *v), 0);
    assert_null(v);
    assert_int_equal(sc_grow((void **)&v, &cap, 1, sizeof *v), 0);
    assert_int_equal(cap, 16);
    assert_int_equal(sc_grow((void **)&v, &cap, 17, sizeof *v), 0);
    assert_int_equal(cap, 32);
    v[31] = 7;
    assert_int_equal(sc_grow((void **)&v, &cap, 20, sizeof *v), 0); /* room already */
    assert_int_equal(cap, 32);
    int *before = v;
    assert_int_equal(sc_grow((void **)&v, &cap, (size_t)-1 / 2, sizeof *v), -1); /* bytes overflow */
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 32);
    assert_int_equal(v[31], 7);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_empty),          cmocka_unit_test(t_grow_and_find), cmocka_unit_test(t_collisions),
        cmocka_unit_test(t_strings),        cmocka_unit_test(t_clear_reserve_refuse),
        cmocka_unit_test(t_mix),            cmocka_unit_test(t_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
