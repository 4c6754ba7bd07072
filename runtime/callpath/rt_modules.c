/* rt_modules.c — the loaded objects (path, executable segments, load base,
 * GNU build-id) used to make sampled addresses module-relative at write time. */
#define _GNU_SOURCE 1
#include "core/rt_core.h"
#include "rt_callpath.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rt_mod_list { struct rt_module *v; uint32_t n, cap; };

static void rt_hex(const unsigned char *p, size_t n, char *out, size_t outn)
{
    static const char hx[] = "0123456789abcdef";
    size_t k = 0;
    for (size_t i = 0; i < n && k + 2 < outn; i++) {
        out[k++] = hx[p[i] >> 4];
        out[k++] = hx[p[i] & 15];
    }
    out[k] = '\0';
}

/* The first ELF note of the loaded object with this type and name (name's
 * length with its NUL, as in the note header), bounds-checked against the
 * PT_NOTE segment; its descriptor and size, or NULL. */
const unsigned char *rt_find_note(const struct dl_phdr_info *info, uint32_t type, const char *name,
                                  uint32_t namesz, uint32_t *descsz)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *nm = p + sizeof *nh;
            const unsigned char *desc = nm + ((nh->n_namesz + 3) & ~3u);
            if (desc > end || desc + nh->n_descsz > end)
                break;
            if (nh->n_type == type && nh->n_namesz == namesz && memcmp(nm, name, namesz) == 0) {
                *descsz = nh->n_descsz;
                return desc;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return NULL;
}

static void rt_note_build_id(const struct dl_phdr_info *info, char *out, size_t outn)
{
    uint32_t n;
    const unsigned char *desc = rt_find_note(info, NT_GNU_BUILD_ID, "GNU", 4, &n);
    out[0] = '\0';
    if (desc)
        rt_hex(desc, n, out, outn);
}

static int rt_mod_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct rt_mod_list *l = data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            uintptr_t a = info->dlpi_addr + ph->p_vaddr;
            if (a < lo)
                lo = a;
            if (a + ph->p_memsz > hi)
                hi = a + ph->p_memsz;
        }
    }
    if (lo >= hi)
        return 0;
    if (l->n >= l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        struct rt_module *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = cap;
    }
    struct rt_module *m = &l->v[l->n++];
    memset(m, 0, sizeof *m);
    m->lo = lo;
    m->hi = hi;
    m->base = info->dlpi_addr;
    if (info->dlpi_name && info->dlpi_name[0]) {
        char *rp = realpath(info->dlpi_name, NULL);
        snprintf(m->path, sizeof m->path, "%s", rp ? rp : info->dlpi_name);
        free(rp);
    } else if (l->n == 1) {
        rt_exe_path(m->path, sizeof m->path);
    } else {
        snprintf(m->path, sizeof m->path, "[anonymous]");
    }
    rt_note_build_id(info, m->build_id, sizeof m->build_id);
    m->index = PRF_NONE;
    return 0;
}

/* ---- objects unloaded before the write -----------------------------------------
 * A library closed with dlclose before MPI_Finalize is gone from
 * dl_iterate_phdr when the profile is written, but contexts recorded while it
 * was loaded point into it: the object is remembered as the application
 * closes it (dlclose is interposed) and added to the table at write time. */
static struct rt_mod_list rt_gone;
static pthread_mutex_t rt_gone_mutex = PTHREAD_MUTEX_INITIALIZER;

struct rt_gone_find { struct rt_mod_list *l; uintptr_t base; const char *name; };

static int rt_gone_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    struct rt_gone_find *f = data;
    if (info->dlpi_addr != f->base || !info->dlpi_name || strcmp(info->dlpi_name, f->name) != 0)
        return 0;
    for (uint32_t i = 0; i < f->l->n; i++)
        if (f->l->v[i].base == f->base && strcmp(f->l->v[i].path, info->dlpi_name) == 0)
            return 1; /* remembered already (a second handle) */
    rt_mod_cb(info, size, f->l);
    return 1;
}

typedef int (*rt_dlclose_fn)(void *);

RT_EXPORT int dlclose(void *handle)
{
    static rt_dlclose_fn real;
    if (RT_UNLIKELY(!real))
        real = (rt_dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
    if (!real)
        return -1;
    struct link_map *lm = NULL;
    void *volatile h = handle; /* declared nonnull, but applications pass NULL */
    if (rt_g.state == RT_ON && h && dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
        lm->l_name[0]) {
        pthread_mutex_lock(&rt_gone_mutex);
        struct rt_gone_find f = {&rt_gone, (uintptr_t)lm->l_addr, lm->l_name};
        dl_iterate_phdr(rt_gone_cb, &f);
        pthread_mutex_unlock(&rt_gone_mutex);
    }
    return real(handle);
}

int rt_modules_load(struct rt_module **mods, uint32_t *count)
{
    struct rt_mod_list l = {0};
    dl_iterate_phdr(rt_mod_cb, &l);
    /* Then the closed ones not loaded again at the same place; the loaded
     * objects come first, so an address reused by a later library is its. */
    pthread_mutex_lock(&rt_gone_mutex);
    for (uint32_t i = 0; i < rt_gone.n; i++) {
        const struct rt_module *g = &rt_gone.v[i];
        int again = 0;
        for (uint32_t k = 0; k < l.n && !again; k++)
            again = l.v[k].base == g->base && l.v[k].lo == g->lo && strcmp(l.v[k].path, g->path) == 0;
        if (again)
            continue;
        if (l.n >= l.cap) {
            uint32_t cap = l.cap ? l.cap * 2 : 64;
            struct rt_module *v = realloc(l.v, cap * sizeof *v);
            if (!v)
                break;
            l.v = v;
            l.cap = cap;
        }
        l.v[l.n] = *g;
        l.v[l.n].index = PRF_NONE;
        l.v[l.n].used = 0;
        l.n++;
    }
    pthread_mutex_unlock(&rt_gone_mutex);
    *mods = l.v;
    *count = l.n;
    return l.v ? 0 : -1;
}

const struct rt_module *rt_module_find(struct rt_module *mods, uint32_t count, uintptr_t a)
{
    for (uint32_t i = 0; i < count; i++)
        if (a >= mods[i].lo && a < mods[i].hi)
            return &mods[i];
    return NULL;
}

/* /proc/self/exe read once at load: the path the process started with.  The
 * kernel appends " (deleted)" once the file is unlinked (a job script that
 * removes or rebuilds its binary while it runs): the suffix is stripped and
 * remembered, unless a file of that very name exists. */
static char rt_exe_at_start[4096];
static int rt_exe_gone;

static void rt_exe_read(char *out, size_t n, int *deleted)
{
    static const char sfx[] = " (deleted)";
    ssize_t k = readlink("/proc/self/exe", out, n - 1);
    if (k < 0)
        k = 0;
    out[k] = '\0';
    size_t l = (size_t)k, s = sizeof sfx - 1;
    struct stat st;
    if (l > s && strcmp(out + l - s, sfx) == 0 && stat(out, &st) != 0) {
        out[l - s] = '\0';
        *deleted = 1;
    }
}

__attribute__((constructor)) static void rt_exe_at_load(void)
{
    rt_exe_read(rt_exe_at_start, sizeof rt_exe_at_start, &rt_exe_gone);
}

void rt_exe_path(char *out, size_t n)
{
    if (!rt_exe_at_start[0])
        rt_exe_at_load();
    size_t l = strlen(rt_exe_at_start);
    if (l >= n)
        l = n - 1; /* the callers' buffers hold PATH_MAX */
    memcpy(out, rt_exe_at_start, l);
    out[l] = '\0';
}

int rt_exe_deleted(void)
{
    char now[4096];
    int gone = 0;
    rt_exe_read(now, sizeof now, &gone);
    return rt_exe_gone || gone;
}

static int rt_exe_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    char *out = data;
    rt_note_build_id(info, out, 41);
    return 1; /* the first object is the executable */
}

void rt_build_id_of_self_exe(char *out, size_t n)
{
    char buf[41] = "";
    dl_iterate_phdr(rt_exe_cb, buf);
    snprintf(out, n, "%s", buf);
}

/* Text ranges of this library and of the dynamic loader (samples there are
 * dropped; wrapper frames are skipped when capturing call paths), and of the
 * OpenMP runtime (the first one found: a program links one). */
static int rt_self_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size; (void)data;
    uintptr_t me = (uintptr_t)&rt_self_cb;
    int is_ldso = info->dlpi_name && strstr(info->dlpi_name, "/ld-linux");
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    int is_omprt = base && !rt_g.omprt_lo &&
                   (!strncmp(base, "/libomp.so", 10) || !strncmp(base, "/libiomp5.so", 12) ||
                    !strncmp(base, "/libgomp.so", 11));
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (me >= lo && me < hi) {
            rt_g.self_lo = lo;
            rt_g.self_hi = hi;
        }
        if (is_ldso) {
            rt_g.ldso_lo = lo;
            rt_g.ldso_hi = hi;
        }
        if (is_omprt) {
            rt_g.omprt_lo = lo;
            rt_g.omprt_hi = hi;
        }
    }
    return 0;
}

RT_HIDDEN void rt_modules_find_self(void)
{
    dl_iterate_phdr(rt_self_cb, NULL);
}
