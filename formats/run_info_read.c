/* run_info_read.c — reads run.json with jansson (tools only; the runtime
 * writes it with run_info_write.c). */
#include "scalana/run_info.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dupstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return strdup(s ? s : "");
}

static uint64_t getu64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        return (uint64_t)json_integer_value(v);
    /* Reals only where they fit: converting an out-of-range double is undefined. */
    if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1.8e19)
        return (uint64_t)json_real_value(v);
    return 0;
}

/* A count that must fit 32 bits; 0 when absent, negative or too large. */
static uint32_t getu32(json_t *o, const char *key)
{
    uint64_t v = getu64(o, key);
    return v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* run.json of run directory dir (at path), checked for what every reader
 * needs: an object with a positive "processes", an "executable" and a
 * supported "version".  Returns it, or NULL with the reason in err. */
static json_t *load_run_json(const char *dir, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", dir, stat(dir, &st) != 0 ? "no such run directory"
                 : "not a directory (give the run directory, not a file in it)");
        return NULL;
    }
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: missing (not a ScalAna run directory, or the run did not "
                 "reach MPI_Init)", path);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (je.line > 0)
            snprintf(err, errlen, "%s: not valid JSON: %s (line %d)", path, je.text, je.line);
        else
            snprintf(err, errlen, "%s: %s", path, je.text);
        return NULL;
    }
    const char *missing = NULL;
    if (!json_is_object(root))
        missing = "top level is not an object";
    else if (!json_is_integer(json_object_get(root, "processes")) ||
             json_integer_value(json_object_get(root, "processes")) < 1 ||
             json_integer_value(json_object_get(root, "processes")) > (1 << 24))
        missing = "\"processes\" missing or not a positive integer";
    else if (!json_is_string(json_object_get(root, "executable")))
        missing = "\"executable\" missing or not a string";
    else if (json_integer_value(json_object_get(root, "version")) != SCALANA_RUN_INFO_VERSION)
        missing = "\"version\" missing or not supported by this tool";
    if (missing) {
        snprintf(err, errlen, "%s: %s", path, missing);
        json_decref(root);
        return NULL;
    }
    return root;
}

/* run.json "hosts" into r->hosts: name, usable cores, the world ranks
 * (< r->processes) each ran. */
static void read_hosts(struct scalana_run_info *r, json_t *root)
{
    json_t *hosts = json_object_get(root, "hosts");
    if (!json_is_array(hosts) || !json_array_size(hosts))
        return;
    r->host_count = (uint32_t)json_array_size(hosts);
    r->hosts = calloc(r->host_count, sizeof *r->hosts);
    for (uint32_t h = 0; r->hosts && h < r->host_count; h++) {
        json_t *x = json_array_get(hosts, h);
        r->hosts[h].name = dupstr(x, "name");
        r->hosts[h].usable_cores = getu32(x, "usable_cores");
        json_t *ranks = json_object_get(x, "ranks");
        size_t n = json_is_array(ranks) ? json_array_size(ranks) : 0;
        r->hosts[h].ranks = calloc(n ? n : 1, sizeof(uint32_t));
        for (size_t k = 0; r->hosts[h].ranks && k < n; k++) {
            json_int_t rk = json_integer_value(json_array_get(ranks, k));
            if (json_is_integer(json_array_get(ranks, k)) && rk >= 0 && rk < r->processes)
                r->hosts[h].ranks[r->hosts[h].rank_count++] = (uint32_t)rk;
        }
    }
    if (!r->hosts)
        r->host_count = 0;
}

/* The strings of run.json array `key` (a non-string as ""; with inside_only,
 * only names inside the run directory: no absolute path, no ".."), copied;
 * *n of them.  NULL when the array is missing or empty. */
static char **read_strings(json_t *root, const char *key, int inside_only, uint32_t *n)
{
    json_t *a = json_object_get(root, key);
    if (!json_is_array(a) || !json_array_size(a))
        return NULL;
    char **out = calloc(json_array_size(a), sizeof(char *));
    for (size_t i = 0; out && i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (!inside_only)
            out[(*n)++] = strdup(s ? s : "");
        else if (s && *s != '/' && !strstr(s, ".."))
            out[(*n)++] = strdup(s);
    }
    return out;
}

int scalana_run_info_read(const char *dir, struct scalana_run_info *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    size_t plen = strlen(dir) + sizeof(SCALANA_RUN_INFO_FILE) + 2;
    char *path = malloc(plen);
    if (!path) {
        snprintf(err, errlen, "%s: out of memory", dir);
        return -1;
    }
    snprintf(path, plen, "%s/%s", dir, SCALANA_RUN_INFO_FILE);
    json_t *root = load_run_json(dir, path, err, errlen);
    free(path);
    if (!root)
        return -1;
    r->version = SCALANA_RUN_INFO_VERSION;
    r->processes = (uint32_t)json_integer_value(json_object_get(root, "processes"));
    json_t *cmd = json_object_get(root, "command");
    if (json_is_array(cmd)) {
        r->argc = (int)json_array_size(cmd);
        r->argv = calloc((size_t)r->argc + 1, sizeof *r->argv);
        for (int i = 0; r->argv && i < r->argc; i++) {
            const char *s = json_string_value(json_array_get(cmd, (size_t)i));
            r->argv[i] = strdup(s ? s : "");
        }
        if (!r->argv)
            r->argc = 0;
    }
    const char *l = json_string_value(json_object_get(root, "launcher"));
    r->launcher = l ? strdup(l) : NULL;
    read_hosts(r, root);
    r->usable_cores = getu32(root, "usable_cores");
    r->sampler = dupstr(root, "sampler");
    r->sample_period_ns = getu64(root, "sample_period_ns");
    r->sample_rate_asked_hz = getu32(root, "sample_rate_asked_hz");     /* 0 in older files */
    r->sample_rate_effective_hz = json_number_value(json_object_get(root, "sample_rate_effective_hz"));
    r->sampler_resolution_ns = getu64(root, "sampler_resolution_ns");
    r->sample_rate_obtained_hz = json_number_value(json_object_get(root, "sample_rate_obtained_hz"));
    r->start_realtime_ns = getu64(root, "start_realtime_ns");
    r->end_realtime_ns = getu64(root, "end_realtime_ns");
    r->mpi_library = dupstr(root, "mpi_library");
    r->mpi_version = dupstr(root, "mpi_version");
    r->executable = dupstr(root, "executable");
    r->executable_deleted = json_is_true(json_object_get(root, "executable_deleted"));
    r->build_id = dupstr(root, "build_id");
    r->executable_copy = dupstr(root, "executable_copy");
    r->executable_copy_method = dupstr(root, "executable_copy_method");
    r->debug_copy = dupstr(root, "debug_copy");
    /* the copy lies inside the run directory: an absolute path or ".." is ignored */
    if (r->executable_copy && (r->executable_copy[0] == '/' || strstr(r->executable_copy, "..")))
        r->executable_copy[0] = '\0';
    if (r->debug_copy && (r->debug_copy[0] == '/' || strstr(r->debug_copy, "..")))
        r->debug_copy[0] = '\0';
    r->scalana_version = dupstr(root, "scalana_version");
    r->written_by = dupstr(root, "written_by");
    r->library_copies = read_strings(root, "library_copies", 1, &r->library_copy_count);
    r->profile_files = read_strings(root, "profile_files", 0, &r->profile_file_count);
    /* optional (older runs have none) */
    r->warnings = read_strings(root, "warnings", 0, &r->warning_count);
    json_decref(root);
    return 0;
}

void scalana_run_info_free(struct scalana_run_info *r)
{
    for (int i = 0; r->argv && i < r->argc; i++)
        free(r->argv[i]);
    free(r->argv);
    free(r->launcher);
    for (uint32_t h = 0; r->hosts && h < r->host_count; h++) {
        free(r->hosts[h].name);
        free(r->hosts[h].ranks);
    }
    free(r->hosts);
    free(r->sampler), free(r->mpi_library), free(r->mpi_version), free(r->executable);
    free(r->build_id), free(r->scalana_version), free(r->written_by);
    free(r->executable_copy), free(r->executable_copy_method), free(r->debug_copy);
    for (uint32_t i = 0; r->library_copies && i < r->library_copy_count; i++)
        free(r->library_copies[i]);
    free(r->library_copies);
    for (uint32_t i = 0; r->profile_files && i < r->profile_file_count; i++)
        free(r->profile_files[i]);
    free(r->profile_files);
    for (uint32_t i = 0; r->warnings && i < r->warning_count; i++)
        free(r->warnings[i]);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}
