/* vw_label.c — the node label of every vertex, one rule for both exports
 * (extrap.jsonl's call-path levels, caliper/scalana-<P>p.json's node names),
 * so a vertex has the same label path in Extra-P, Hatchet and Thicket.
 *
 * Both tools match the nodes of two profiles by their label under the same
 * parent, so siblings need distinct labels, and a vertex must keep its label
 * at every process count: siblings are therefore those of the whole report,
 * never of one count, and the rule is symmetric (no sibling keeps the bare
 * name because it came first).  The rule is in docs/viewer.md. */
#include "vw_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* printf into a fresh string, or NULL when out of memory. */
static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* The vertex's name as one label: "->" (Extra-P's call-path separator)
 * becomes "-_", control characters become spaces, an empty name "?". */
static char *clean_name(const json_t *v)
{
    const char *name = vw_str(v, "name", "");
    if (!*name) name = "?";
    size_t n = strlen(name), w = 0;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    for (size_t k = 0; k < n; k++) {
        unsigned char ch = (unsigned char)name[k];
        if (ch == '-' && name[k + 1] == '>') { s[w++] = '-'; s[w++] = '_'; k++; continue; }
        s[w++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
    }
    s[w] = '\0';
    return s;
}

/* Adds one to set[key] (a JSON object used as a multiset); -1 when out of memory. */
static int count_up(json_t *set, const char *key)
{
    json_int_t c = json_integer_value(json_object_get(set, key));
    return json_object_set_new(set, key, json_integer(c + 1));
}

static int replace(char **slot, char *s)
{
    if (!s) return -1;
    free(*slot);
    *slot = s;
    return 0;
}

/* Labels the siblings member[0..k) (vertex indices): the name; name@line when
 * another sibling has the same name; name@line#index when one also has the
 * same line; then, while two labels are still equal (a literal name such as
 * "MPI_Send@22" beside a derived one), "#index" appended to each of them. */
static int label_siblings(const struct vw_report *r, const long *member, size_t k, char **label)
{
    json_t *names = json_object(), *lines = json_object();
    int rc = names && lines ? 0 : -1;
    for (size_t a = 0; rc == 0 && a < k; a++) {
        const json_t *v = vw_vertex(r, member[a]);
        if (!(label[member[a]] = clean_name(v))) { rc = -1; break; }
        char *at = str_printf("%s@%ld", label[member[a]], vw_int(v, "line", 0));
        rc = at && count_up(names, label[member[a]]) == 0 && count_up(lines, at) == 0 ? 0 : -1;
        free(at);
    }
    for (size_t a = 0; rc == 0 && a < k; a++) {
        long i = member[a];
        char **s = &label[i];
        if (json_integer_value(json_object_get(names, *s)) < 2) continue;
        char *at = str_printf("%s@%ld", *s, vw_int(vw_vertex(r, i), "line", 0));
        if (at && json_integer_value(json_object_get(lines, at)) > 1) {
            char *id = str_printf("%s#%ld", at, i);
            free(at);
            at = id;
        }
        rc = replace(s, at);
    }
    /* each round lengthens every colliding label by a distinct "#index";
     * k rounds are more than any real name set needs */
    for (size_t round = 0; rc == 0 && round <= k; round++) {
        json_t *seen = json_object();
        if (!seen) { rc = -1; break; }
        for (size_t a = 0; rc == 0 && a < k; a++) rc = count_up(seen, label[member[a]]);
        int dup = 0;
        for (size_t a = 0; rc == 0 && a < k; a++) {
            if (json_integer_value(json_object_get(seen, label[member[a]])) < 2) continue;
            dup = 1;
            rc = replace(&label[member[a]], str_printf("%s#%ld", label[member[a]], member[a]));
        }
        json_decref(seen);
        if (!dup) break;
    }
    json_decref(names);
    json_decref(lines);
    return rc;
}

char **vw_node_labels(const struct vw_report *r)
{
    size_t n = r->nvert;
    char **label = calloc(n ? n : 1, sizeof *label);
    size_t *start = calloc(n + 2, sizeof *start), *fill = calloc(n + 2, sizeof *fill);
    long *member = malloc((n ? n : 1) * sizeof *member);
    int ok = label && start && fill && member;
    /* the vertices grouped by parent (group 0: the roots), in index order */
    for (size_t i = 0; ok && i < n; i++) start[(size_t)(r->parent[i] + 1) + 1]++;
    for (size_t g = 1; ok && g < n + 2; g++) start[g] += start[g - 1];
    for (size_t i = 0; ok && i < n; i++) {
        size_t g = (size_t)(r->parent[i] + 1);
        member[start[g] + fill[g]++] = (long)i;
    }
    for (size_t g = 0; ok && g < n + 1; g++)
        if (start[g + 1] > start[g])
            ok = label_siblings(r, member + start[g], start[g + 1] - start[g], label) == 0;
    free(start);
    free(fill);
    free(member);
    if (!ok) {
        vw_node_labels_free(label, n);
        return NULL;
    }
    return label;
}

void vw_node_labels_free(char **labels, size_t n)
{
    for (size_t i = 0; labels && i < n; i++) free(labels[i]);
    free(labels);
}
