/* psg_elf.c — reads the embedded PSG section out of an ELF file (libelf).
 * Kept apart from psg_io.c so that the pass and the runtime need no libelf. */
#include "scalana/psg_format.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int psg_read_elf(const char *path, struct psg_graph *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errlen, "%s: libelf initialisation failed", path);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        if (e)
            elf_end(e);
        close(fd);
        return -1;
    }
    size_t shstrndx;
    int rc = 0;
    if (elf_getshdrstrndx(e, &shstrndx) != 0) {
        snprintf(err, errlen, "%s: corrupt ELF section header table: %s", path, elf_errmsg(-1));
        rc = -1;
        goto done;
    }
    /* A linked binary has one merged section; a relocatable object (C++ with
     * COMDAT groups) has one per group.  Concatenate them all, 8-aligned. */
    unsigned char *all = NULL;
    size_t all_n = 0;
    int found = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        if (!name || strcmp(name, SCALANA_PSG_SECTION) != 0)
            continue;
        found = 1;
        if (sh.sh_type == SHT_NOBITS) {
            snprintf(err, errlen, "%s: section %s has no contents (stripped with --only-keep-debug?)",
                     path, SCALANA_PSG_SECTION);
            rc = -1;
            break;
        }
        if (sh.sh_size == 0) /* an empty section adds nothing */
            continue;
        Elf_Data *d = elf_rawdata(scn, NULL);
        if (!d || !d->d_buf) {
            snprintf(err, errlen, "%s: cannot read section %s: %s", path, SCALANA_PSG_SECTION,
                     elf_errmsg(-1));
            rc = -1;
            break;
        }
        size_t at = (all_n + 7) & ~(size_t)7;
        unsigned char *grown = realloc(all, at + d->d_size);
        if (!grown) {
            snprintf(err, errlen, "%s: out of memory reading %s", path, SCALANA_PSG_SECTION);
            rc = -1;
            break;
        }
        all = grown;
        memset(all + all_n, 0, at - all_n);
        memcpy(all + at, d->d_buf, d->d_size);
        all_n = at + d->d_size;
    }
    if (rc == 0 && found && all_n) {
        char why[256];
        if (psg_parse(all, all_n, out, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: section %s: %s", path, SCALANA_PSG_SECTION, why);
            rc = -1;
        } else {
            rc = 1;
        }
    }
    free(all);
done:
    elf_end(e);
    close(fd);
    return rc;
}
