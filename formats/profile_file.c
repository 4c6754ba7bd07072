/* profile_file.c — reading profile files of a run directory rank by rank
 * (streaming: one rank section in memory at a time). */
#include "scalana/profile_format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int preadn(int fd, void *buf, size_t n, uint64_t off)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r, n -= (size_t)r, off += (uint64_t)r;
    }
    return 0;
}

int prf_file_open(const char *path, struct prf_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    struct prf_file_header h;
    if ((uint64_t)st.st_size < sizeof h || preadn(fd, &h, sizeof h, 0) != 0) {
        snprintf(err, errlen, "%s: truncated: %lld bytes, shorter than the %zu-byte header", path,
                 (long long)st.st_size, sizeof h);
        close(fd);
        return -1;
    }
    const char *why = NULL;
    if (memcmp(h.magic, SCALANA_PROFILE_MAGIC, SCALANA_PROFILE_MAGIC_LEN) != 0)
        why = "not a ScalAna profile (bad magic)";
    else if (h.version != SCALANA_PROFILE_VERSION)
        why = "profile format version not supported by this tool";
    else if (h.header_bytes != sizeof h || h.index_entry_bytes != sizeof(struct prf_index_entry))
        why = "unexpected header or index entry size (corrupt header)";
    else if (h.rank_count == 0 || h.rank_count > (1u << 24) || h.world_size == 0 ||
             (uint64_t)h.first_rank + h.rank_count > h.world_size)
        why = "rank range in the header is impossible (corrupt header)";
    else if ((uint64_t)st.st_size < prf_file_prefix_bytes(h.rank_count))
        why = "truncated inside the rank index";
    if (why) {
        if (h.version != SCALANA_PROFILE_VERSION && !memcmp(h.magic, SCALANA_PROFILE_MAGIC, 8))
            snprintf(err, errlen, "%s: %s (file has version %u, tool reads %u)", path, why,
                     h.version, SCALANA_PROFILE_VERSION);
        else
            snprintf(err, errlen, "%s: %s", path, why);
        close(fd);
        return -1;
    }
    f->index = malloc((size_t)h.rank_count * sizeof *f->index);
    f->path = strdup(path);
    if (!f->index || !f->path ||
        preadn(fd, f->index, (size_t)h.rank_count * sizeof *f->index, sizeof h) != 0) {
        snprintf(err, errlen, "%s: cannot read the rank index", path);
        close(fd);
        prf_file_close(f);
        return -1;
    }
    f->header = h;
    f->fd = fd;
    f->actual_bytes = (uint64_t)st.st_size;
    return 0;
}

int prf_file_read_rank(struct prf_file *f, uint32_t i, struct prf_rank_data *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (i >= f->header.rank_count) {
        snprintf(err, errlen, "%s: index entry %u out of range", f->path, i);
        return -1;
    }
    const struct prf_index_entry *e = &f->index[i];
    uint32_t rank = f->header.first_rank + i;
    if (e->bytes == 0)
        return 0;
    if (e->world_rank != rank) {
        snprintf(err, errlen, "%s: index entry %u names rank %u, expected %u (corrupt index)",
                 f->path, i, e->world_rank, rank);
        return -1;
    }
    if (e->offset < prf_file_prefix_bytes(f->header.rank_count) || e->bytes > f->actual_bytes ||
        e->offset > f->actual_bytes - e->bytes) {
        snprintf(err, errlen, "%s: rank %u: section [%llu, +%llu) lies beyond the end of the "
                 "file (%llu bytes: truncated)", f->path, rank, (unsigned long long)e->offset,
                 (unsigned long long)e->bytes, (unsigned long long)f->actual_bytes);
        return -1;
    }
    if (e->bytes > ((uint64_t)1 << 34)) {
        snprintf(err, errlen, "%s: rank %u: section of %llu bytes is implausible", f->path, rank,
                 (unsigned long long)e->bytes);
        return -1;
    }
    unsigned char *buf = malloc(e->bytes);
    if (!buf) {
        snprintf(err, errlen, "%s: rank %u: out of memory", f->path, rank);
        return -1;
    }
    if (preadn(f->fd, buf, e->bytes, e->offset) != 0) {
        snprintf(err, errlen, "%s: rank %u: read error", f->path, rank);
        free(buf);
        return -1;
    }
    if (prf_crc32(buf, e->bytes) != e->crc32) {
        snprintf(err, errlen, "%s: rank %u: checksum mismatch (corrupt section)", f->path, rank);
        free(buf);
        return -1;
    }
    char why[256];
    int rc = prf_decode_rank(buf, e->bytes, out, why, sizeof why);
    free(buf);
    if (rc != 0) {
        snprintf(err, errlen, "%s: rank %u: %s", f->path, rank, why);
        return -1;
    }
    if (out->info.world_rank != rank) {
        snprintf(err, errlen, "%s: rank %u: section says it is rank %u", f->path, rank,
                 out->info.world_rank);
        prf_rank_free(out);
        return -1;
    }
    return 1;
}

void prf_file_close(struct prf_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    free(f->index);
    free(f->path);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}
