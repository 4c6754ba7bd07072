/* sc_fs.h — the file-system steps both offline tools take on an output
 * directory: creating it, and removing the cause graphs an earlier analysis
 * left there (scalana-analyze and scalana-view write into the same one). */
#ifndef SCALANA_SC_FS_H
#define SCALANA_SC_FS_H

/** Creates directory path and its missing parents (mode 0777 before the
 *  umask), like `mkdir -p`; an existing directory is fine.  Returns 0, or -1
 *  with errno set (ENAMETOOLONG for a path of 4 KiB or more). */
int sc_mkdir_p(const char *path);

/** Whether name is a cause graph file as the viewer names them,
 *  "rootcause-N.dot" or "rootcause-N.svg" with N a decimal rank: returns 1
 *  and sets *rank and ext ("dot" or "svg"), else 0. */
int sc_cause_graph_name(const char *name, long *rank, char ext[4]);

/** Removes from dir every cause graph file (sc_cause_graph_name) for which
 *  keep(rank, ext, ctx) returns 0; keep NULL removes them all.  Other files
 *  are never touched; a directory that cannot be read is left as it is. */
void sc_remove_cause_graphs(const char *dir, int (*keep)(long rank, const char *ext, void *ctx), void *ctx);

#endif
