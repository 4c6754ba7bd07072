/* demangle.c — C++ linkage names to the names a person reads, with the
 * Itanium C++ ABI demangler of libstdc++ (__cxa_demangle), which every C++
 * toolchain on the system ships; flang's _QP/_QM/_QQmain names as the pass
 * shows them, gfortran's __<module>_MOD_<proc> as <module>::<proc>; C names
 * pass through. */
#include "analyzer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (cxxabi.h), declared here to keep this file C */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* flang's names (built without the pass, so no PSG display name):
 * _QP<proc> -> proc, _QM<module>P<proc> -> module::proc (module names are
 * lower case, so the first 'P' ends the module), _QQmain -> "main program"
 * (the program's own name is only in its source); 0 when not one of them */
static const char *flang_name(struct an_strpool *pool, const char *name)
{
    char buf[512];
    if (strcmp(name, "_QQmain") == 0) return an_intern(pool, "main program");
    if (!strncmp(name, "_QP", 3) && name[3]) return an_intern(pool, name + 3);
    if (!strncmp(name, "_QM", 3)) {
        const char *p = strchr(name + 3, 'P');
        if (p && p > name + 3 && p[1] && strlen(name) < sizeof buf - 4) {
            snprintf(buf, sizeof buf, "%.*s::%s", (int)(p - name - 3), name + 3, p + 1);
            return an_intern(pool, buf);
        }
    }
    return NULL;
}

/* gfortran's module procedures (GCC's Fortran ABI, gfc_sym_mangled_function_id):
 * __<module>_MOD_<proc> -> module::proc.  Module and procedure names may hold
 * '_' but never "_MOD_" after the leading "__" on both sides, so the first one
 * splits them; a clone suffix (.constprop.0) stays on the procedure.  0 when
 * not one. */
static const char *gfortran_name(struct an_strpool *pool, const char *name)
{
    char buf[512];
    const char *mod = name + 2, *sep = strstr(mod, "_MOD_");
    if (!sep || sep == mod || !sep[5] || strlen(name) >= sizeof buf) return NULL;
    snprintf(buf, sizeof buf, "%.*s::%s", (int)(sep - mod), mod, sep + 5);
    return an_intern(pool, buf);
}

const char *an_demangle(struct an_strpool *pool, const char *name)
{
    if (name && name[0] == '_' && name[1] == 'Q') {
        const char *f = flang_name(pool, name);
        if (f) return f;
    }
    if (name && name[0] == '_' && name[1] == '_' && name[2] && name[2] != '_') {
        const char *f = gfortran_name(pool, name);
        if (f) return f;
    }
    if (!name || name[0] != '_' || name[1] != 'Z') return an_intern(pool, name);
    /* clones keep their suffix after the demangled name: _Z3fooi.cold */
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        return an_intern(pool, name);
    }
    const char *r = an_intern(pool, d);
    free(d);
    return r;
}

/* template argument lists longer than this many characters are elided */
#define SHORT_TEMPLATE_ARGS 24

const char *an_short_function(struct an_strpool *pool, const char *name)
{
    if (!name || !*name) return an_intern(pool, name);
    size_t n = strlen(name);
    /* the argument list: the last top-level "(...)" (a trailing " const",
     * " &", "[clone .cold]" after it goes with it) */
    size_t end = n;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        char ch = name[i];
        if (ch == ')' ) depth++;
        else if (ch == '(' && depth > 0 && --depth == 0) {
            /* "operator()" keeps its own parentheses, and so does a scope
             * "(anonymous namespace)" (the last group of a name without an
             * argument list: a qualified DWARF name) */
            if (i >= 8 && !strncmp(name + i - 8, "operator", 8)) continue;
            if (!strncmp(name + i, "(anonymous namespace)", 21)) continue;
            end = i;
            break;
        }
    }
    /* the return type: text up to the last space outside <...> and (...);
     * only a name with an argument list has one ("program modproc",
     * "lambda at f.cpp:53 in main" keep their words) */
    size_t start = 0;
    int angle = 0, paren = 0;
    for (size_t i = 0; i < end && end < n; i++) {
        char ch = name[i];
        if (ch == '<') angle++;
        else if (ch == '>' && angle > 0) angle--;
        else if (ch == '(') paren++;
        else if (ch == ')' && paren > 0) paren--;
        else if (ch == ' ' && !angle && !paren && i + 1 < end && strncmp(name + i + 1, "const", 5) != 0 &&
                 (i < 8 || strncmp(name + i - 8, "operator", 8) != 0))
            start = i + 1;
    }
    /* long template argument lists read as "<...>": "miniFE::cg_solve<...>"
     * (report.json's function fields keep the full name) */
    char buf[1024];
    size_t len = 0;
    for (size_t i = start; i < end && len < sizeof buf - 8;) {
        if (name[i] == '<' && !(i >= start + 8 && !strncmp(name + i - 8, "operator", 8)) &&
            !(i >= start + 9 && !strncmp(name + i - 9, "operator<", 9))) {
            size_t j = i + 1;
            int d = 1;
            for (; j < end && d; j++) d += name[j] == '<' ? 1 : name[j] == '>' ? -1 : 0;
            if (!d && j - i - 2 > SHORT_TEMPLATE_ARGS) {
                memcpy(buf + len, "<...>", 5);
                len += 5;
                i = j;
                continue;
            }
        }
        buf[len++] = name[i++];
    }
    buf[len] = 0;
    return an_intern(pool, len ? buf : name);
}
