/* demangle.c — C++ linkage names to the names a person reads, with the
 * Itanium C++ ABI demangler of libstdc++ (__cxa_demangle), which every C++
 * toolchain on the system ships; flang's _QP/_QM/_QQmain names as the pass
 * shows them, gfortran's __<module>_MOD_<proc> as <module>::<proc>; C names
 * pass through. */
#include "read/demangle.h"
#include "core/graph.h"
#include "core/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>

/* libstdc++'s demangler (cxxabi.h), declared here to keep this file C */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The Fortran names flang_name() and gfortran_name() (below) leave: flang's internal
 * procedures _QF<host>P<proc> -> host.proc (_QFP<proc>, internal to the main
 * program: proc) and _QM<module>F<host>P<proc> -> module::host.proc (a module
 * name ends at its first upper-case letter: flang folds names to lower case);
 * gfortran's MAIN__ -> "main program" and an internal procedure's numbered
 * local symbol inner.0 -> inner (GCC's numbered local names; C's
 * foo.constprop.0 keeps its words).  0 when not one of them. */
static const char *fortran_more_name(struct an_strpool *pool, const char *name)
{
    char buf[512];
    if (strlen(name) >= sizeof buf - 8) return NULL;
    if (strcmp(name, "MAIN__") == 0) return an_intern(pool, "main program");
    const char *dot = strchr(name, '.');
    if (dot && dot > name && dot[1] && name[0] != '_' && strspn(dot + 1, "0123456789") == strlen(dot + 1) &&
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == (size_t)(dot - name)) {
        snprintf(buf, sizeof buf, "%.*s", (int)(dot - name), name);
        return an_intern(pool, buf);
    }
    const char *p = name + 3, *mod = NULL;
    int modlen = 0;
    if (!strncmp(name, "_QM", 3)) {
        const char *e = p;
        while (*e && !(*e >= 'A' && *e <= 'Z')) e++;
        if (e == p || *e != 'F') return NULL; /* _QM<module>P<proc>: flang_name() */
        mod = p, modlen = (int)(e - p), p = e + 1;
    } else if (strncmp(name, "_QF", 3) != 0) {
        return NULL;
    }
    const char *e = strchr(p, 'P');
    if (!e || !e[1]) return NULL;
    if (e == p) return mod ? NULL : an_intern(pool, e + 1); /* _QFPstep */
    if (mod) snprintf(buf, sizeof buf, "%.*s::%.*s.%s", modlen, mod, (int)(e - p), p, e + 1);
    else snprintf(buf, sizeof buf, "%.*s.%s", (int)(e - p), p, e + 1);
    return an_intern(pool, buf);
}

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
    const char *more = name ? fortran_more_name(pool, name) : NULL;
    if (more) return more;
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

const char *an_fortran_program(struct an_strpool *pool, const char *file, uint32_t line)
{
    if (!file || !*file || !line) return NULL;
    FILE *f = fopen(file, "r");
    if (!f) return NULL;
    char text[1024];
    const char *r = NULL;
    for (uint32_t n = 1; n <= line && fgets(text, sizeof text, f); n++) {
        if (n != line) continue;
        /* "program NAME", any case, after blanks; NAME up to a blank or '!' */
        const char *p = text;
        while (*p == ' ' || *p == '\t') p++;
        if (strncasecmp(p, "program", 7) != 0 || (p[7] != ' ' && p[7] != '\t')) break;
        p += 7;
        while (*p == ' ' || *p == '\t') p++;
        size_t k = 0;
        char name[256];
        while (k + 1 < sizeof name && (isalnum((unsigned char)p[k]) || p[k] == '_')) {
            name[k] = (char)tolower((unsigned char)p[k]);
            k++;
        }
        name[k] = 0;
        if (k) {
            char buf[300];
            snprintf(buf, sizeof buf, "program %s", name);
            r = an_intern(pool, buf);
        }
        break;
    }
    fclose(f);
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
