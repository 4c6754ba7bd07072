/* unit_code.c — code whose addresses the analyzer's unit tests attribute
 * (unit_main calls unit_kernel; a loop in the kernel holds the sampled
 * address) and a PSG that describes it, with this file's lines. */
#include "unit_code.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

const char UNIT_CODE_FILE[] = __FILE__;

/* ---- code whose addresses are attributed ---------------------------------- */
static volatile uint64_t sink;
__attribute__((noinline)) static uint64_t here(void) { return (uint64_t)(uintptr_t)__builtin_return_address(0); }
const int KERNEL_FIRST = __LINE__ + 1;
__attribute__((noinline)) void unit_kernel(uint64_t *pc, uint64_t *ra)
{
    *ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
    static const int LOOP_FIRST = __LINE__ + 1;
    for (int i = 0; i < 4; i++) {
        static const int PC_LINE = __LINE__ + 1;
        *pc = here();
        sink += (uint64_t)i + (uint64_t)PC_LINE * 0;
    }
    sink += (uint64_t)LOOP_FIRST * 0;
}
const int KERNEL_LAST = __LINE__ - 1;
const int CALL_LINE = __LINE__ + 3;
__attribute__((noinline)) void unit_main(uint64_t *pc, uint64_t *ra)
{
    unit_kernel(pc, ra);
    sink++;
}
const int MAIN_LAST = __LINE__ - 1;

struct psg_graph build_psg(void)
{
    struct psg_builder *b = psg_builder_new("unit_code.c", "test", PSG_LANG_C, PSG_UNIT_HAS_DEBUG_INFO, 10);
    struct psg_vertex v;
    memset(&v, 0, sizeof v);
    v.kind = PSG_FUNCTION, v.parent = PSG_NO_PARENT, v.file = __FILE__, v.function = "unit_main";
    v.first_line = (uint32_t)CALL_LINE - 1, v.last_line = (uint32_t)MAIN_LAST, v.stable_id = 1;
    uint32_t fm = psg_builder_add(b, &v);
    v.kind = PSG_CALL, v.parent = fm, v.first_line = v.last_line = (uint32_t)CALL_LINE, v.callee = "unit_kernel";
    v.stable_id = 2;
    psg_builder_add(b, &v);
    memset(&v, 0, sizeof v);
    v.kind = PSG_FUNCTION, v.parent = PSG_NO_PARENT, v.file = __FILE__, v.function = "unit_kernel";
    v.first_line = (uint32_t)KERNEL_FIRST, v.last_line = (uint32_t)KERNEL_LAST, v.stable_id = 3;
    uint32_t fk = psg_builder_add(b, &v);
    v.kind = PSG_LOOP, v.parent = fk, v.first_line = (uint32_t)KERNEL_FIRST + 3, v.last_line = (uint32_t)KERNEL_FIRST + 7;
    v.stable_id = 4;
    uint32_t lp = psg_builder_add(b, &v);
    v.kind = PSG_COMPUTE, v.parent = lp, v.first_line = (uint32_t)KERNEL_FIRST + 4, v.last_line = (uint32_t)KERNEL_FIRST + 6;
    v.stable_id = 5;
    psg_builder_add(b, &v);
    unsigned char *bytes;
    size_t n;
    assert_int_equal(psg_builder_finish(b, &bytes, &n), 0);
    psg_builder_free(b);
    struct psg_graph g;
    char err[256];
    assert_int_equal(psg_parse(bytes, n, &g, err, sizeof err), 0);
    free(bytes);
    return g;
}
