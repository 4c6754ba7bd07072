/* fuzz_psg_elf.c — libFuzzer target for psg_read_elf (libelf, then
 * psg_parse) on an arbitrary file: the "foreign or corrupt executable" path
 * of the analyzer and scalana-dump.  The input is kept in a memfd opened
 * through /proc/self/fd.  Checks: no memory error; a parsed graph is
 * readable; the return value is -1, 0 or 1 and 0 means an empty graph. */
#include "fuzz_common.h"
#include "scalana/psg_format.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("scalana-fuzz-elf", 0);
        if (memfd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
        abort();
    struct psg_graph g;
    char err[512];
    memset(err, 0x5a, sizeof err);
    int rc = psg_read_elf(path, &g, err, sizeof err);
    if (rc < 0) {
        fuzz_check_err(err, sizeof err);
        return 0;
    }
    if (rc > 1 || (rc == 0 && g.unit_count != 0))
        abort();
    for (uint32_t u = 0; u < g.unit_count; u++)
        for (uint32_t i = 0; i < g.units[u].vertex_count; i++) {
            fuzz_touch_str(g.units[u].vertices[i].file);
            fuzz_touch_str(g.units[u].vertices[i].function);
        }
    psg_graph_free(&g);
    return 0;
}
