/* scalana-view.c — re-render an existing report.json (DOT, SVG, index.html,
 * extrap.jsonl, terminal summary) without re-running the analysis, e.g. with
 * other --source-path mappings or another graph bound. */
#include "sc_fs.h"
#include "viewer.h"
#include "scalana/outdir.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: scalana-view [options] REPORT.json|DIR\n"
        "Renders a report.json written by scalana-analyze (or DIR/report.json) into a directory:\n"
        "every export below that no --no-X turns off (outputs.def); prints the summary.\n"
        "  -o, --output DIR            output directory (default: the report's directory)\n"
        "      --source-path OLD=NEW   look for sources under NEW instead of OLD (repeatable)\n"
        "      --max-graph-vertices N  lay out at most about N vertices per graph (default %d)\n",
        SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES);
    scalana_outputs_help(out, 29);
    fputs(
        "  -s, --summary               print the summary only, write nothing\n"
        "  -q, --quiet                 do not print the summary\n"
        "      --color WHEN            auto (default), always or never\n"
        "      --force                 write into DIR even when it holds files that are not\n"
        "                              a ScalAna report (by default such a DIR is refused)\n"
        "  -h, --help                  this text\n"
        "  -V, --version               ScalAna's version\n"
        "Exit status: 0 written, 1 the report or DIR unusable, 2 usage error.\n", out);
}

/* the output directory, as scalana-analyze creates it (common/sc_fs.c) */
static int mkdir_p(const char *path) { return sc_mkdir_p(path); }

/* Checks what the viewer relies on before rendering: an object whose
 * schema_version is 1.x (docs/report.schema.json) and whose top-level fields
 * have the schema's types (arrays runs, root_causes, vertices; objects
 * program, data_quality, and tool and thresholds when present; scaling
 * "strong" or "weak").  Writes the problems, "; "-separated, into why and
 * returns their count. */
static int check_report(const json_t *r, char *why, size_t len)
{
    int n = 0;
    size_t used = 0;
#define PROBLEM(...)                                                                  \
    do {                                                                              \
        if (used < len) used += (size_t)snprintf(why + used, len - used, "%s", n ? "; " : ""); \
        if (used < len) used += (size_t)snprintf(why + used, len - used, __VA_ARGS__);  \
        n++;                                                                          \
    } while (0)
    why[0] = 0;
    if (!json_is_object(r)) {
        PROBLEM("not a JSON object (a report.json is one)");
        return n;
    }
    const json_t *sv = json_object_get(r, "schema_version");
    if (!json_is_string(sv))
        PROBLEM("schema_version is %s (want the string \"1.0\")", sv ? "not a string" : "missing");
    else if (strcmp(json_string_value(sv), "1") && strncmp(json_string_value(sv), "1.", 2))
        PROBLEM("schema_version \"%.40s\" is not one this viewer reads (1.x)", json_string_value(sv));
    static const struct { const char *key; int array, required; } f[] = {
        {"runs", 1, 1}, {"root_causes", 1, 1}, {"vertices", 1, 1}, {"program", 0, 1},
        {"data_quality", 0, 1}, {"tool", 0, 0}, {"thresholds", 0, 0}};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        const json_t *v = json_object_get(r, f[i].key);
        if (!v && !f[i].required) continue;
        if (!v) PROBLEM("%s is missing", f[i].key);
        else if (f[i].array ? !json_is_array(v) : !json_is_object(v))
            PROBLEM("%s is not an %s", f[i].key, f[i].array ? "array" : "object");
    }
    const json_t *sc = json_object_get(r, "scaling");
    if (sc && (!json_is_string(sc) || (strcmp(json_string_value(sc), "strong") && strcmp(json_string_value(sc), "weak"))))
        PROBLEM("scaling is not \"strong\" or \"weak\"");
#undef PROBLEM
    return n;
}

#ifndef SCALANA_VERSION_STRING
#define SCALANA_VERSION_STRING "0.1.0"
#endif

/* The one line of a usage error getopt_long reported (optstring starting with
 * ':', opterr 0): c is '?' (unknown) or ':' (value missing). */
static void bad_option(int c, char **argv)
{
    const char *word = argv[optind - 1];
    if (c == ':')
        fprintf(stderr, "scalana-view: option '%s' needs a value (see scalana-view --help)\n", word);
    else if (optopt && !(word[0] == '-' && word[1] == '-'))
        fprintf(stderr, "scalana-view: unknown option '-%c' (see scalana-view --help)\n", optopt);
    else
        fprintf(stderr, "scalana-view: unknown option '%s' (see scalana-view --help)\n", word);
}

/* What to name in the "wrote" line: index.html when written, else the
 * files of the first output written (outputs.def order), else the mark. */
static const char *written_name(unsigned outputs)
{
    if (outputs & SCALANA_OUT_BIT(SCALANA_OUT_HTML)) return "index.html";
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) \
    if (outputs & SCALANA_OUT_BIT(SCALANA_OUT_##NAME)) return files;
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
    return ".scalana-report (every output turned off)";
}

/* The command line, parsed. */
struct view_args {
    int force, summary_only, quiet, color;
    const char *out;
    const char **from, **to; /* --source-path OLD=NEW pairs */
    size_t nmap;
    struct scalana_viewer_options opt;
};

/* Parses argv into a (from and to allocated by the caller, argc entries
 * each): -1 to go on, else the exit status (--help, --version, a bad
 * option). */
static int parse_args(int argc, char **argv, struct view_args *a)
{
    enum { O_SRC = 256, O_MAXV, O_COLOR, O_FORCE };
    enum { O_NO_OUTPUT = 300 }; /* + enum scalana_output: --no-<flag> of outputs.def */
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"source-path", required_argument, 0, O_SRC},
        {"max-graph-vertices", required_argument, 0, O_MAXV},
#define SCALANA_OUTPUT(NAME, flag, files, writer, what) {"no-" flag, no_argument, 0, O_NO_OUTPUT + SCALANA_OUT_##NAME},
#include "scalana/outputs.def"
#undef SCALANA_OUTPUT
        {"summary", no_argument, 0, 's'}, {"quiet", no_argument, 0, 'q'},
        {"color", required_argument, 0, O_COLOR}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'}, {"force", no_argument, 0, O_FORCE}, {0, 0, 0, 0}};
    int c;
    opterr = 0; /* one line of ours (bad_option) instead of getopt's and the usage */
    while ((c = getopt_long(argc, argv, ":o:sqhV", longopts, NULL)) != -1) {
        switch (c) {
        case O_FORCE: a->force = 1; break;
        case 'V': printf("scalana-view (ScalAna) %s\n", SCALANA_VERSION_STRING); return 0;
        case 'o': a->out = optarg; break;
        case O_SRC: {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                fprintf(stderr, "scalana-view: --source-path wants OLD=NEW, got '%s'\n", optarg);
                return 2;
            }
            *eq = '\0';
            a->from[a->nmap] = optarg;
            a->to[a->nmap++] = eq + 1;
            break;
        }
        case O_MAXV: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n <= 0) { fprintf(stderr, "scalana-view: --max-graph-vertices '%s': want a positive number\n", optarg); return 2; }
            a->opt.max_graph_vertices = (size_t)n;
            break;
        }
        case 's': a->summary_only = 1; break;
        case 'q': a->quiet = 1; break;
        case O_COLOR:
            if (!strcmp(optarg, "always")) a->color = 1;
            else if (!strcmp(optarg, "never")) a->color = 0;
            else if (strcmp(optarg, "auto") != 0) { fprintf(stderr, "scalana-view: --color '%s': want auto, always or never\n", optarg); return 2; }
            break;
        case 'h': usage(stdout); return 0;
        default:
            if (c >= O_NO_OUTPUT && c < O_NO_OUTPUT + SCALANA_OUT_COUNT) {
                a->opt.outputs &= ~SCALANA_OUT_BIT(c - O_NO_OUTPUT);
                break;
            }
            bad_option(c, argv);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "scalana-view: %s (see scalana-view --help)\n",
                optind >= argc ? "no report.json given" : "one report.json at a time");
        return 2;
    }
    return -1;
}

/* Reads the report at path (a report directory, scalana-analyze -o DIR,
 * means its report.json) into *report; path becomes the file's (in buf).
 * 0, or 1 with one line on stderr. */
static int load_report(const char **path, char *buf, size_t n, json_t **report)
{
    struct stat pst;
    if (stat(*path, &pst) == 0 && S_ISDIR(pst.st_mode)) {
        size_t pl = strlen(*path);
        while (pl > 1 && (*path)[pl - 1] == '/') pl--;
        if ((size_t)snprintf(buf, n, "%.*s/report.json", (int)pl, *path) >= n) {
            fprintf(stderr, "scalana-view: %s: path too long\n", *path);
            return 1;
        }
        *path = buf;
    }
    if (stat(*path, &pst) != 0) {
        fprintf(stderr, "scalana-view: %s: %s\n", *path, errno == ENOENT ? "no such file" : strerror(errno));
        return 1;
    }
    json_error_t je;
    *report = json_load_file(*path, 0, &je);
    if (!*report) {
        /* jansson gives line -1 when the file cannot be read at all */
        if (je.line > 0) fprintf(stderr, "scalana-view: %s:%d: %s\n", *path, je.line, je.text);
        else fprintf(stderr, "scalana-view: %s: %s\n", *path, je.text);
        return 1;
    }
    return 0;
}

/* The output directory (-o, else the report's own directory, in buf):
 * refused before anything is printed or rendered, as scalana-analyze does,
 * when it holds files that are not a report's (without --force).  0, or 2. */
static int choose_out_dir(struct view_args *a, const char *path, char *buf, size_t n)
{
    if (!a->out) {
        snprintf(buf, n, "%s", path);
        char *slash = strrchr(buf, '/');
        if (slash) *slash = '\0';
        else snprintf(buf, n, ".");
        a->out = buf;
    }
    char foreign[256];
    if (!a->force && scalana_outdir_is_ours(a->out, foreign, sizeof foreign) == 0) {
        fprintf(stderr, "scalana-view: %s holds files that are not a ScalAna report (%s): not overwritten; "
                        "give another -o DIR, or --force to write there anyway\n", a->out, foreign);
        return 2;
    }
    return 0;
}

/* Renders report into a->out as a->opt asks: 0, or 1 with one line. */
static int render(struct view_args *a, const json_t *report)
{
    a->opt.source_path_from = a->from;
    a->opt.source_path_to = a->to;
    a->opt.source_path_count = a->nmap;
    char err[1024];
    if (mkdir_p(a->out) != 0 || scalana_outdir_mark(a->out) != 0) {
        fprintf(stderr, "scalana-view: cannot create %s: %s\n", a->out, strerror(errno));
        return 1;
    }
    if (scalana_viewer_write(report, a->out, &a->opt, err, sizeof err) != 0) {
        fprintf(stderr, "scalana-view: %s\n", err);
        return 1;
    }
    if (!a->quiet)
        fprintf(stderr, "scalana-view: wrote %s/%s\n", a->out, written_name(a->opt.outputs));
    return 0;
}

int main(int argc, char **argv)
{
    struct view_args a = {0};
    a.from = calloc((size_t)argc, sizeof *a.from), a.to = calloc((size_t)argc, sizeof *a.to);
    a.opt.outputs = SCALANA_OUT_ALL;
    a.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    if (!a.from || !a.to) { fprintf(stderr, "scalana-view: out of memory\n"); return 1; }
    int st = parse_args(argc, argv, &a);
    if (st >= 0) return st;
    const char *path = argv[optind];
    char pathbuf[4096];
    json_t *report = NULL;
    if (load_report(&path, pathbuf, sizeof pathbuf, &report) != 0) return 1;
    char why[1024];
    int rc = 0;
    char dirbuf[4096];
    if (check_report(report, why, sizeof why)) {
        fprintf(stderr, "scalana-view: %s: not a ScalAna report: %s\n", path, why);
        rc = 1;
    } else if (!a.summary_only && (rc = choose_out_dir(&a, path, dirbuf, sizeof dirbuf)) != 0) {
        /* refused: nothing printed */
    } else {
        if (!a.summary_only) rc = render(&a, report);
        if (!a.quiet || a.summary_only) scalana_viewer_print_summary(stdout, report, a.color);
    }
    json_decref(report);
    free(a.from);
    free(a.to);
    return rc;
}
