/* run_info_write.c — writes run.json without a JSON library (the runtime links
 * none).  The reader is run_info_read.c; fields are documented in docs/formats.md. */
#include "scalana/run_info.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Writes s as a JSON string literal (RFC 8259 §7). */
static void put_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", o); break;
        case '\\': fputs("\\\\", o); break;
        case '\n': fputs("\\n", o); break;
        case '\r': fputs("\\r", o); break;
        case '\t': fputs("\\t", o); break;
        default:
            if (*p < 0x20)
                fprintf(o, "\\u%04x", *p);
            else
                fputc(*p, o);
        }
    }
    fputc('"', o);
}

/* A JSON array of n strings. */
static void put_str_array(FILE *o, char *const *v, uint32_t n)
{
    fputc('[', o);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", o);
        put_str(o, v[i]);
    }
    fputc(']', o);
}

static void put_str_or_null(FILE *o, const char *s)
{
    if (s && *s)
        put_str(o, s);
    else
        fputs("null", o);
}

static void iso8601(FILE *o, uint64_t ns)
{
    time_t t = (time_t)(ns / 1000000000u);
    struct tm tm;
    char buf[64] = "";
    if (gmtime_r(&t, &tm))
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    put_str(o, buf);
}

int scalana_run_info_write(FILE *o, const struct scalana_run_info *r)
{
    fprintf(o, "{\n  \"format\": \"scalana-run\",\n  \"version\": %d,\n", SCALANA_RUN_INFO_VERSION);
    fputs("  \"command\": [", o);
    for (int i = 0; i < r->argc; i++) {
        if (i)
            fputs(", ", o);
        put_str(o, r->argv[i]);
    }
    fputs("],\n  \"launcher\": ", o);
    if (r->launcher)
        put_str(o, r->launcher);
    else
        fputs("null", o);
    fprintf(o, ",\n  \"processes\": %" PRIu32 ",\n  \"hosts\": [", r->processes);
    for (uint32_t h = 0; h < r->host_count; h++) {
        const struct scalana_run_host *x = &r->hosts[h];
        fputs(h ? ",\n    {\"name\": " : "\n    {\"name\": ", o);
        put_str(o, x->name);
        fprintf(o, ", \"usable_cores\": %" PRIu32 ", \"ranks\": [", x->usable_cores);
        for (uint32_t k = 0; k < x->rank_count; k++)
            fprintf(o, k ? ", %" PRIu32 : "%" PRIu32, x->ranks[k]);
        fputs("]}", o);
    }
    fprintf(o, "%s],\n  \"usable_cores\": %" PRIu32 ",\n  \"sampler\": ",
            r->host_count ? "\n  " : "", r->usable_cores);
    put_str(o, r->sampler);
    fprintf(o, ",\n  \"sample_period_ns\": %" PRIu64 ",\n", r->sample_period_ns);
    fprintf(o, "  \"sample_rate_asked_hz\": %" PRIu32 ",\n", r->sample_rate_asked_hz);
    fprintf(o, "  \"sample_rate_effective_hz\": %.6g,\n", r->sample_rate_effective_hz);
    fprintf(o, "  \"sampler_resolution_ns\": %" PRIu64 ",\n", r->sampler_resolution_ns);
    fprintf(o, "  \"sample_rate_obtained_hz\": %.6g,\n", r->sample_rate_obtained_hz);
    fprintf(o, "  \"start_realtime_ns\": %" PRIu64 ",\n  \"end_realtime_ns\": %" PRIu64 ",\n",
            r->start_realtime_ns, r->end_realtime_ns);
    fputs("  \"start_time\": ", o);
    iso8601(o, r->start_realtime_ns);
    fputs(",\n  \"end_time\": ", o);
    iso8601(o, r->end_realtime_ns);
    fputs(",\n  \"mpi_library\": ", o);
    put_str(o, r->mpi_library);
    fputs(",\n  \"mpi_version\": ", o);
    put_str(o, r->mpi_version);
    fputs(",\n  \"executable\": ", o);
    put_str(o, r->executable);
    fprintf(o, ",\n  \"executable_deleted\": %s", r->executable_deleted ? "true" : "false");
    fputs(",\n  \"build_id\": ", o);
    put_str(o, r->build_id);
    /* absent (null) when no copy was kept: SCALANA_KEEP_EXE=off, or not copied yet */
    fputs(",\n  \"executable_copy\": ", o);
    put_str_or_null(o, r->executable_copy);
    fputs(",\n  \"executable_copy_method\": ", o);
    put_str_or_null(o, r->executable_copy_method);
    fputs(",\n  \"debug_copy\": ", o);
    put_str_or_null(o, r->debug_copy);
    fputs(",\n  \"library_copies\": ", o);
    put_str_array(o, r->library_copies, r->library_copy_count);
    fputs(",\n  \"scalana_version\": ", o);
    put_str(o, r->scalana_version);
    fputs(",\n  \"written_by\": ", o);
    put_str(o, r->written_by);
    fputs(",\n  \"profile_files\": ", o);
    put_str_array(o, r->profile_files, r->profile_file_count);
    fputs(",\n  \"warnings\": ", o);
    put_str_array(o, r->warnings, r->warning_count);
    fputs("\n}\n", o);
    return ferror(o) ? -1 : 0;
}
