/* fuzz_run_info.c — libFuzzer target for scalana_run_info_read (run.json,
 * written to a private temporary directory for each input).  Checks: no
 * memory error; every field a successful read hands out is readable; the
 * counts match their arrays. */
#include "fuzz_common.h"
#include "scalana/run_info.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static char dir[256];
static char file[300];

static void setup(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/scalana-fuzz-runinfo-XXXXXX", base);
    if (!mkdtemp(dir))
        abort();
    snprintf(file, sizeof file, "%s/%s", dir, SCALANA_RUN_INFO_FILE);
}

static void cleanup(void)
{
    unlink(file);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        setup();
        atexit(cleanup);
    }
    FILE *f = fopen(file, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);

    struct scalana_run_info r;
    char err[512];
    memset(err, 0x5a, sizeof err);
    if (scalana_run_info_read(dir, &r, err, sizeof err) != 0) {
        fuzz_check_err(err, sizeof err);
        return 0;
    }
    for (int i = 0; i < r.argc; i++)
        fuzz_touch_str(r.argv[i]);
    fuzz_touch_str(r.launcher);
    for (uint32_t h = 0; h < r.host_count; h++) {
        fuzz_touch_str(r.hosts[h].name);
        fuzz_touch(r.hosts[h].ranks, (size_t)r.hosts[h].rank_count * sizeof(uint32_t));
    }
    fuzz_touch_str(r.sampler);
    fuzz_touch_str(r.mpi_library);
    fuzz_touch_str(r.mpi_version);
    fuzz_touch_str(r.executable);
    fuzz_touch_str(r.build_id);
    fuzz_touch_str(r.scalana_version);
    fuzz_touch_str(r.written_by);
    for (uint32_t i = 0; i < r.profile_file_count; i++)
        fuzz_touch_str(r.profile_files[i]);
    scalana_run_info_free(&r);
    return 0;
}
