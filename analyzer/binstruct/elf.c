/* elf.c — what structure recovery reads from the ELF file itself (libelf):
 * the sections that hold code and data, the defined function symbols, and
 * the PLT stubs and GOT slots through which imported functions (MPI) are
 * called. */
#include "binstruct.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_sym(const void *a, const void *b)
{
    const struct bs_sym *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return x->size > y->size ? -1 : x->size < y->size; /* the larger first: aliases collapse onto it */
}

static int push(struct bs_sym **t, size_t *n, size_t *cap, uint64_t addr, uint64_t size, const char *name)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        struct bs_sym *p = realloc(*t, nc * sizeof *p);
        if (!p) return -1;
        *t = p, *cap = nc;
    }
    (*t)[(*n)++] = (struct bs_sym){addr, size, name};
    return 0;
}

const struct bs_sym *bs_sym_at(const struct bs_sym *t, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid].addr < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && t[lo].addr == addr ? &t[lo] : NULL;
}

const struct bs_sym *bs_sym_holding(const struct bs_sym *t, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid].addr <= addr) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo, back = 0; k-- > 0 && back < 8; back++)
        if (addr < t[k].addr + (t[k].size ? t[k].size : 1)) return &t[k];
    return NULL;
}

/* The symbol name of relocation r of a relocation section linked to the dynamic symbols. */
static const char *rel_sym_name(Elf *elf, Elf_Scn *relscn, const GElf_Shdr *rsh, uint64_t info)
{
    Elf_Scn *symscn = elf_getscn(elf, rsh->sh_link);
    GElf_Shdr ssh;
    if (!symscn || !gelf_getshdr(symscn, &ssh)) return NULL;
    Elf_Data *sd = elf_getdata(symscn, NULL);
    GElf_Sym sym;
    if (!sd || !gelf_getsym(sd, (int)GELF_R_SYM(info), &sym)) return NULL;
    (void)relscn;
    return elf_strptr(elf, ssh.sh_link, sym.st_name);
}

/* Maps the file at path read-only into e (map, map_bytes).  Returns 0, or -1
 * with err set (missing, shorter than an ELF header, not mappable). */
static int map_file(const char *path, struct bs_elf *e, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 64) {
        snprintf(err, errlen, "%s: not an ELF file (too short)", path);
        close(fd);
        return -1;
    }
    e->map_bytes = (size_t)st.st_size;
    e->map = mmap(NULL, e->map_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (e->map == MAP_FAILED) {
        e->map = NULL;
        snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The defined functions of symbol table scn (header sh) into e->funcs.
 * Returns 0, or -1 when out of memory. */
static int read_functions(struct bs_elf *e, Elf_Scn *scn, const GElf_Shdr *sh, size_t *fcap)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t cnt = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; d && i < cnt; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, (int)i, &sym)) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || !sym.st_value) continue;
        const char *nm = elf_strptr(e->elf, sh->sh_link, sym.st_name);
        if (!nm || !*nm) continue;
        if (push(&e->funcs, &e->nfuncs, fcap, sym.st_value, sym.st_size, nm) != 0) return -1;
    }
    return 0;
}

/* Imported functions of relocation section scn: GOT slot -> name (JUMP_SLOT:
 * PLT; GLOB_DAT: -fno-plt, .plt.got) into e->got.  Returns 0, or -1 when out
 * of memory. */
static int read_got(struct bs_elf *e, Elf_Scn *scn, const GElf_Shdr *sh, size_t *gcap)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t cnt = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; d && i < cnt; i++) {
        GElf_Rela r;
        if (!gelf_getrela(d, (int)i, &r)) continue;
        unsigned t = (unsigned)GELF_R_TYPE(r.r_info);
        if (e->machine == EM_X86_64 && t != R_X86_64_JUMP_SLOT && t != R_X86_64_GLOB_DAT) continue;
        if (!GELF_R_SYM(r.r_info)) continue;
        const char *nm = rel_sym_name(e->elf, scn, sh, r.r_info);
        if (nm && *nm && push(&e->got, &e->ngot, gcap, r.r_offset, 8, nm) != 0) return -1;
    }
    return 0;
}

/* The sections: first the loaded ones with contents (e->secs) and whether
 * there is a full symbol table; then the functions (from .symtab, else
 * .dynsym) and the GOT's imports.  Returns 0, or -1 when out of memory. */
static int read_sections(struct bs_elf *e, size_t shstrndx)
{
    Elf *elf = e->elf;
    size_t scap = 0, fcap = 0, gcap = 0;
    int have_symtab = 0;
    for (int pass = 0; pass < 2; pass++)
        for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh)) continue;
            const char *name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
            if (pass == 0 && sh.sh_type == SHT_SYMTAB) have_symtab = 1;
            if (pass == 0 && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
                sh.sh_offset + sh.sh_size <= e->map_bytes) {
                if (e->nsecs == scap) {
                    scap = scap ? scap * 2 : 32;
                    struct bs_section *p = realloc(e->secs, scap * sizeof *p);
                    if (!p) return -1;
                    e->secs = p;
                }
                e->secs[e->nsecs++] = (struct bs_section){sh.sh_addr, sh.sh_size, sh.sh_offset,
                                                          (sh.sh_flags & SHF_EXECINSTR) != 0, name ? name : ""};
            }
            if (pass != 1) continue;
            if (sh.sh_type == (have_symtab ? SHT_SYMTAB : SHT_DYNSYM) && read_functions(e, scn, &sh, &fcap) != 0)
                return -1;
            if (sh.sh_type == SHT_RELA && read_got(e, scn, &sh, &gcap) != 0) return -1;
        }
    return 0;
}

/* PLT stubs: each 16-byte entry of .plt/.plt.sec/.plt.got jumps through one
 * GOT slot (`[bnd|notrack] jmp *disp(%rip)`, ff 25 disp32), named by the
 * slot's import.  Returns 0, or -1 when out of memory. */
static int read_plt(struct bs_elf *e)
{
    size_t pcap = 0;
    for (size_t s = 0; s < e->nsecs && e->machine == EM_X86_64; s++) {
        const struct bs_section *sc = &e->secs[s];
        if (strncmp(sc->name, ".plt", 4) != 0) continue;
        const unsigned char *b = e->map + sc->offset;
        for (uint64_t off = 0; off + 16 <= sc->size; off += 16)
            for (unsigned k = 0; k + 6 <= 16; k++) {
                if (b[off + k] != 0xff || b[off + k + 1] != 0x25) continue;
                int32_t disp;
                memcpy(&disp, b + off + k + 2, 4);
                uint64_t slot = sc->addr + off + k + 6 + (uint64_t)(int64_t)disp;
                const struct bs_sym *g = bs_sym_at(e->got, e->ngot, slot);
                if (g && push(&e->plt, &e->nplt, &pcap, sc->addr + off, 16, g->name) != 0) return -1;
                break;
            }
    }
    return 0;
}

int bs_elf_open(const char *path, struct bs_elf *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    e->path = path;
    if (map_file(path, e, err, errlen) != 0) return -1;
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)e->map, e->map_bytes);
    e->elf = elf;
    GElf_Ehdr eh;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        bs_elf_close(e);
        return -1;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        snprintf(err, errlen, "%s: not a 64-bit little-endian ELF file", path);
        bs_elf_close(e);
        return -1;
    }
    e->machine = eh.e_machine;
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) shstrndx = 0;
    if (read_sections(e, shstrndx) != 0) goto oom;
    if (e->nfuncs) qsort(e->funcs, e->nfuncs, sizeof *e->funcs, cmp_sym);
    if (e->ngot) qsort(e->got, e->ngot, sizeof *e->got, cmp_sym);
    if (read_plt(e) != 0) goto oom;
    if (e->nplt) qsort(e->plt, e->nplt, sizeof *e->plt, cmp_sym);
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory reading its symbols", path);
    bs_elf_close(e);
    return -1;
}

void bs_elf_close(struct bs_elf *e)
{
    if (e->elf) elf_end(e->elf);
    if (e->map) munmap(e->map, e->map_bytes);
    free(e->secs), free(e->funcs), free(e->plt), free(e->got);
    memset(e, 0, sizeof *e);
}

int bs_elf_read(void *ctx, uint64_t addr, void *out, size_t n)
{
    const struct bs_elf *e = ctx;
    for (size_t s = 0; s < e->nsecs; s++) {
        const struct bs_section *sc = &e->secs[s];
        if (addr >= sc->addr && addr + n <= sc->addr + sc->size && addr + n > addr) {
            memcpy(out, e->map + sc->offset + (addr - sc->addr), n);
            return 0;
        }
    }
    return -1;
}

const unsigned char *bs_elf_code(const struct bs_elf *e, uint64_t addr, size_t n)
{
    for (size_t s = 0; s < e->nsecs; s++) {
        const struct bs_section *sc = &e->secs[s];
        if (sc->exec && addr >= sc->addr && addr + n <= sc->addr + sc->size && addr + n >= addr)
            return e->map + sc->offset + (addr - sc->addr);
    }
    return NULL;
}

int bs_elf_section(const struct bs_elf *e, const char *name, const unsigned char **data, size_t *n)
{
    Elf *elf = e->elf;
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return -1;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
        const char *nm = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!nm || strcmp(nm, name) != 0 || sh.sh_offset + sh.sh_size > e->map_bytes) continue;
        *data = e->map + sh.sh_offset, *n = sh.sh_size;
        return 0;
    }
    return -1;
}
