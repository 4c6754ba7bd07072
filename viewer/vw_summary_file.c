/* vw_summary_file.c — summary.txt: the terminal summary (vw_summary.c) kept in
 * the report directory without colours, so that a report read later, or by
 * someone without a terminal at hand, still opens with its verdict in plain
 * text.  Its line in scalana/outputs.def is all that wires it in. */
#include "vw_internal.h"

#include <stdio.h>
#include <stdlib.h>

int vw_summary_write(const struct vw_write_ctx *c, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        vw_seterr(err, errlen, "out of memory writing summary.txt");
        return -1;
    }
    scalana_viewer_print_summary(m, c->r->root, 0);
    if (fclose(m) != 0) {
        free(buf);
        vw_seterr(err, errlen, "out of memory writing summary.txt");
        return -1;
    }
    int rc = vw_save_file(c->out_dir, "summary.txt", buf ? buf : "", len, err, errlen);
    free(buf);
    return rc;
}
