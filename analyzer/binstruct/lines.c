/* lines.c — the source lines of a recovered loop from the lines of its
 * instructions: one stretch of text, without gcc's strays. */
#include "tree.h"

#include <stdlib.h>

/* A source loop is one stretch of text, starting at its test for `for` and
 * `while` loops.  The lines ev[0..n) of a machine loop's instructions
 * (sorted here) split where two consecutive lines are more than CLUSTER_GAP
 * apart.  The stretch holding the loop's test (a line of its back-edge
 * jumps, test[0..nt); else the heaviest stretch) is kept; a stretch after it
 * when it holds at least CLUSTER_AFTER of the instructions (a body may go on
 * after a long stretch without code), one before it only with CLUSTER_BEFORE
 * (the body of a do-while loop precedes its test).  What is dropped is gcc's
 * doing: an expression computed once for several loops (`dx - 1`, shared by
 * common subexpression elimination) keeps the line of its first use, far
 * above, and code merged from another loop keeps that loop's line, far
 * below.  Measured on LULESH (g++ -O2): strays are 1 to 3 instructions, 2 to
 * 11 % of their loop; the one legitimate far stretch (the force update of
 * CalcFBHourglassForceForElems after an inlined call) is 23 %.  *first and
 * *last span what is kept (0 when n is 0). */
#define CLUSTER_GAP 20
#define CLUSTER_AFTER 0.05
#define CLUSTER_BEFORE 0.25
static int cmp_line(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void bs_line_cluster(uint32_t *ev, uint32_t n, const uint32_t *test, uint32_t nt, uint32_t *first, uint32_t *last)
{
    *first = *last = 0;
    if (!n) return;
    qsort(ev, n, sizeof *ev, cmp_line);
    /* the stretch of the test, else the heaviest */
    uint32_t key_lo = 0, key_hi = 0, best_n = 0;
    int found = 0;
    for (uint32_t lo = 0, i = 1; i <= n; i++) {
        if (i < n && ev[i] - ev[i - 1] <= CLUSTER_GAP) continue;
        int has_test = 0;
        for (uint32_t k = 0; k < nt; k++) has_test |= test[k] >= ev[lo] && test[k] <= ev[i - 1];
        if (has_test && !found) found = 1, key_lo = lo, key_hi = i - 1;
        else if (!found && i - lo > best_n) best_n = i - lo, key_lo = lo, key_hi = i - 1;
        lo = i;
    }
    *first = ev[key_lo], *last = ev[key_hi];
    for (uint32_t lo = 0, i = 1; i <= n; i++) {
        if (i < n && ev[i] - ev[i - 1] <= CLUSTER_GAP) continue;
        double share = (double)(i - lo) / n;
        if (lo < key_lo && share >= CLUSTER_BEFORE && ev[lo] < *first) *first = ev[lo];
        if (lo > key_hi && share >= CLUSTER_AFTER && ev[i - 1] > *last) *last = ev[i - 1];
        lo = i;
    }
}

uint32_t bs_loop_start(uint32_t first_stmt, const uint32_t *test, uint32_t nt)
{
    if (!first_stmt) return 0;
    uint32_t start = first_stmt;
    for (uint32_t k = 0; k < nt; k++)
        if (test[k] && test[k] < start) start = test[k];
    return start;
}

uint32_t bs_lines_from(uint32_t *ev, uint32_t n, uint32_t start, const uint32_t *own, uint32_t nown)
{
    if (!start) return n;
    uint32_t before = 0;
    for (uint32_t i = 0; i < n; i++) before += ev[i] < start;
    /* a rotated loop runs the first statements of its body after the jump
     * back, without marking them as statements (they were marked in the
     * copy gcc peeled before the loop): that is a large share of the loop,
     * a stray is one or a few instructions */
    if (before >= CLUSTER_BEFORE * n) return n;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        int keep = ev[i] >= start;
        for (uint32_t k = 0; k < nown && !keep; k++) keep = ev[i] == own[k];
        if (keep) ev[m++] = ev[i];
    }
    return m;
}
