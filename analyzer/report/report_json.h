/* report_json.h — reading a report.json back (the before/after comparison,
 * the gate, the prediction): a field of an object, with the value a missing
 * field stands for.  report.json's layout is docs/report.schema.json. */
#ifndef SCALANA_ANALYZER_REPORT_JSON_H
#define SCALANA_ANALYZER_REPORT_JSON_H

#include <jansson.h>
#include <math.h>

/** String field k of o, "" when absent or not a string. */
static inline const char *an_jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/** Integer field k of o, 0 when absent or not an integer. */
static inline json_int_t an_jint(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

/** Number field k of o (seconds, ratios, ...), NAN when absent or not a number. */
static inline double an_jreal(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/** Copies a cause's location fields (function, file, line, last_line,
 *  location; report.schema.json "location fields") from src to dst: "" and
 *  0 for what src lacks.  dst must be an object. */
static inline void an_jcopy_location(json_t *dst, const json_t *src)
{
    json_object_set_new(dst, "function", json_string(an_jstr(src, "function")));
    json_object_set_new(dst, "file", json_string(an_jstr(src, "file")));
    json_object_set_new(dst, "line", json_integer(an_jint(src, "line")));
    json_object_set_new(dst, "last_line", json_integer(an_jint(src, "last_line")));
    json_object_set_new(dst, "location", json_string(an_jstr(src, "location")));
}

#endif
