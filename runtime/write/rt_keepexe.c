/* rt_keepexe.c — keeps the executable (and its separate debug file, when it
 * has one; with SCALANA_KEEP_EXE=all the application's own shared libraries
 * in exe/lib/) in the run directory as exe/<name>, so the run can be analysed
 * after the binary is rebuilt or deleted (docs/runtime.md, "The run's own
 * executable").
 *
 * World rank 0 opens /proc/self/exe at MPI_Init: that descriptor refers to
 * the file the process is running even if a rebuild replaces it later (a
 * linker writes a new file and renames or unlinks the old one; the running
 * one cannot be written in place: ETXTBSY).  A hard link is made at once (a
 * directory entry, microseconds); when the run directory is on another file
 * system (EXDEV) or linking is refused, the bytes are copied from the held
 * descriptor when the run ends, so MPI_Init is never slowed by a copy.
 * Every failure is one line on stderr and leaves the application alone. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "rt_write.h"
#include "scalana/run_info.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

/* One kept file: the executable, its debug file or a shared library. */
struct rt_kept {
    int fd;              /* held until copied (-1: none pending) */
    dev_t dev; ino_t ino; /* the file fd was opened on (an application that closes
                             descriptors it does not own may let the number be reused) */
    char name[256];      /* file name inside exe/ (libraries: exe/lib/) */
    const char *sub;     /* "" or "lib/" */
    char rel[300];       /* "exe/<sub><name>" once it is there, else "" */
    const char *method;  /* "hard link" or "copy" */
};

static struct rt_kept rt_kept_exe = {.fd = -1, .sub = ""}, rt_kept_dbg = {.fd = -1, .sub = ""};
/* SCALANA_KEEP_EXE=all: the application's shared libraries too (those outside
 * the system's directories), at most RT_KEEP_LIBS */
#define RT_KEEP_LIBS 64
static struct rt_kept rt_kept_lib[RT_KEEP_LIBS];
static int rt_nkept_lib;
static char *rt_lib_rel[RT_KEEP_LIBS];
static int rt_keep_copy_only, rt_keep_libs, rt_keep_warned;

/* The one line of a full disk is the writer's (it names the profile or
 * run.json that could not be written): a copy that failed for want of space
 * is told at the end of the run, and only when the writer did not fail. */
static char rt_keep_pending[600];

static void rt_keep_warn(const char *what, const char *path, int err)
{
    if (rt_keep_warned++)
        return;
    char line[600]; /* a longer path is cut: the line stays one line */
    if (snprintf(line, sizeof line, "could not keep %s in the run directory (%s: %s): analysing this run later needs "
             "the original binary (SCALANA_KEEP_EXE=off silences this)", what, path, strerror(err)) < 0)
        return;
    if (err == ENOSPC || err == EDQUOT)
        snprintf(rt_keep_pending, sizeof rt_keep_pending, "%s", line);
    else
        rt_log("%s", line);
}

void rt_keep_warn_flush(void)
{
    if (rt_keep_pending[0] && !rt_g.writer_off && !rt_failed("writer"))
        rt_log("%s", rt_keep_pending);
    rt_keep_pending[0] = '\0';
}

/* Copies fd's bytes to dst through a temporary (dst appears only complete).
 * Returns 0 or an errno value. */
static int rt_copy_fd(int fd, const char *dst, mode_t mode)
{
    char tmp[4500];
    /* hidden, as a profile's temporary: a rank killed while copying leaves
     * nothing that looks like part of the run */
    const char *base = strrchr(dst, '/');
    base = base ? base + 1 : dst;
    snprintf(tmp, sizeof tmp, "%.*s.%s.tmp.%d", (int)(base - dst), dst, base, (int)getpid());
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
    if (out < 0)
        return errno;
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : 0;
    off_t off = 0;
    while (!err && off < st.st_size) {
        /* copy_file_range shares extents where the file system can (reflink) */
        ssize_t k = copy_file_range(fd, &off, out, NULL, (size_t)(st.st_size - off), 0);
        if (k < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP))
            k = sendfile(out, fd, &off, (size_t)(st.st_size - off));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            err = k < 0 ? errno : EIO;
    }
    if (close(out) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, dst) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    return err;
}

/* Hard-links path (whose open descriptor is k->fd) as dir/k->name; the link
 * must be the same file as the descriptor (not one put at path since).
 * Returns 0 when linked, else keeps k->fd for the copy at the end. */
static int rt_keep_link(struct rt_kept *k, const char *path, const char *dir)
{
    char dst[4400];
    snprintf(dst, sizeof dst, "%s/%s", dir, k->name);
    struct stat own;
    if (fstat(k->fd, &own) == 0)
        k->dev = own.st_dev, k->ino = own.st_ino;
    unlink(dst); /* an empty run directory reused: a stale link of an older build */
    /* AT_SYMLINK_FOLLOW: a library's path is often its soname's symbolic link; link
     * the file it names, not the link (whose relative target would dangle in exe/) */
    if (rt_keep_copy_only || linkat(AT_FDCWD, path, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) != 0)
        return -1;
    struct stat a, b;
    if (fstat(k->fd, &a) != 0 || lstat(dst, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        unlink(dst);
        return -1;
    }
    close(k->fd);
    k->fd = -1;
    k->method = "hard link";
    snprintf(k->rel, sizeof k->rel, "exe/%s%s", k->sub, k->name);
    return 0;
}

/* The .gnu_debuglink file name of the ELF file open at fd into out ("" when
 * none; 64-bit ELF only, the runtime's own class). */
static void rt_debuglink_name(int fd, char *out, size_t n)
{
    out[0] = '\0';
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
        eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
        return;
    Elf64_Shdr *sh = malloc((size_t)eh.e_shnum * sizeof *sh);
    if (!sh)
        return;
    if (pread(fd, sh, (size_t)eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) == (ssize_t)(eh.e_shnum * sizeof *sh)) {
        const Elf64_Shdr *str = &sh[eh.e_shstrndx];
        for (unsigned i = 0; i < eh.e_shnum && !out[0]; i++) {
            char nm[16] = "";
            if (sh[i].sh_name >= str->sh_size ||
                pread(fd, nm, sizeof nm - 1, (off_t)(str->sh_offset + sh[i].sh_name)) <= 0 ||
                strcmp(nm, ".gnu_debuglink") != 0 || sh[i].sh_type == SHT_NOBITS)
                continue;
            char buf[256] = "";
            size_t want = sh[i].sh_size < sizeof buf - 1 ? sh[i].sh_size : sizeof buf - 1;
            if (pread(fd, buf, want, (off_t)sh[i].sh_offset) > 0 && !strchr(buf, '/'))
                snprintf(out, n, "%s", buf);
        }
    }
    free(sh);
}

/* Where a debugger finds the debug file named by .gnu_debuglink: beside the
 * executable, in its .debug/ directory, under /usr/lib/debug (GDB's order). */
static int rt_open_debug_file(const char *exe, const char *name, char *path, size_t n)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", exe);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    const char *fmt[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, n, fmt[i], dir, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            return fd;
    }
    return -1;
}

/* A shared library of the system (or ScalAna's own runtime), not the application's. */
static int rt_system_library(const char *path)
{
    static const char *const prefixes[] = {"/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/etc/", "/snap/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    const char *b = strrchr(path, '/');
    return strncmp(b ? b + 1 : path, "libscalana-", 11) == 0;
}

static int rt_lib_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *dir = data;
    const char *p = info->dlpi_name;
    if (!p || p[0] != '/' || rt_system_library(p) || rt_nkept_lib >= RT_KEEP_LIBS)
        return 0;
    const char *b = strrchr(p, '/') + 1;
    for (int i = 0; i < rt_nkept_lib; i++)
        if (strcmp(rt_kept_lib[i].name, b) == 0)
            return 0; /* two libraries of one name: the first is kept */
    struct rt_kept *k = &rt_kept_lib[rt_nkept_lib];
    memset(k, 0, sizeof *k);
    k->sub = "lib/";
    k->fd = open(p, O_RDONLY | O_CLOEXEC);
    if (k->fd < 0) {
        rt_keep_warn("a shared library", p, errno);
        return 0;
    }
    snprintf(k->name, sizeof k->name, "%s", b);
    rt_nkept_lib++;
    rt_keep_link(k, p, dir);
    return 0;
}

/* The application's own shared libraries into exe/lib/ (SCALANA_KEEP_EXE=all). */
static void rt_keep_libraries(const char *exe_dir)
{
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/lib", exe_dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        rt_keep_warn("the shared libraries", dir, errno);
        return;
    }
    dl_iterate_phdr(rt_lib_cb, dir);
}

void rt_keep_exe_begin(void)
{
    const char *s = getenv("SCALANA_KEEP_EXE");
    if (s && (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no")))
        return;
    rt_keep_copy_only = s && !strcmp(s, "copy");
    rt_keep_libs = s && !strcmp(s, "all");
    /* a value not understood is "on": rt_options_read warned */
    if (rt_g.writer_off)
        return;
    char exe[4096];
    rt_exe_path(exe, sizeof exe);
    size_t el = strlen(exe);
    if (el > 10 && strcmp(exe + el - 10, " (deleted)") == 0)
        exe[el - 10] = '\0'; /* deleted before MPI_Init: only a copy can keep it */
    const char *base = strrchr(exe, '/');
    base = base && base[1] ? base + 1 : "app";
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/exe", rt_g.run_dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        rt_keep_warn("the executable", dir, errno);
        return;
    }
    rt_kept_exe.fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (rt_kept_exe.fd < 0) {
        rt_keep_warn("the executable", "/proc/self/exe", errno);
        return;
    }
    snprintf(rt_kept_exe.name, sizeof rt_kept_exe.name, "%s", base);
    char link_name[256];
    rt_debuglink_name(rt_kept_exe.fd, link_name, sizeof link_name);
    rt_keep_link(&rt_kept_exe, exe, dir);
    if (rt_keep_libs)
        rt_keep_libraries(dir);
    if (link_name[0] && strcmp(link_name, rt_kept_exe.name) != 0) {
        char dpath[4400];
        rt_kept_dbg.fd = rt_open_debug_file(exe, link_name, dpath, sizeof dpath);
        if (rt_kept_dbg.fd >= 0) {
            snprintf(rt_kept_dbg.name, sizeof rt_kept_dbg.name, "%s", link_name);
            rt_keep_link(&rt_kept_dbg, dpath, dir);
        }
    }
}

/* Copies k from its held descriptor into exe/ (once). */
static void rt_keep_copy(struct rt_kept *k, const char *what)
{
    if (k->fd < 0)
        return;
    char dst[4400];
    snprintf(dst, sizeof dst, "%s/exe/%s%s", rt_g.run_dir, k->sub, k->name);
    struct stat st;
    if (fstat(k->fd, &st) != 0 || st.st_dev != k->dev || st.st_ino != k->ino) {
        /* the application closed our descriptor (its number may now be one of its
         * own files, which is not ours to copy or close) */
        k->fd = -1;
        rt_keep_warn(what, dst, EBADF);
        return;
    }
    int err = rt_copy_fd(k->fd, dst, st.st_mode);
    close(k->fd);
    k->fd = -1;
    if (err) {
        rt_keep_warn(what, dst, err);
        return;
    }
    k->method = "copy";
    snprintf(k->rel, sizeof k->rel, "exe/%s%s", k->sub, k->name);
}

void rt_keep_exe_finish(void)
{
    rt_keep_copy(&rt_kept_exe, "the executable");
    rt_keep_copy(&rt_kept_dbg, "the debug file");
    for (int i = 0; i < rt_nkept_lib; i++)
        rt_keep_copy(&rt_kept_lib[i], "a shared library");
}

void rt_keep_exe_describe(struct scalana_run_info *info)
{
    info->executable_copy = rt_kept_exe.rel[0] ? rt_kept_exe.rel : NULL;
    info->executable_copy_method = rt_kept_exe.rel[0] ? (char *)rt_kept_exe.method : NULL;
    info->debug_copy = rt_kept_dbg.rel[0] ? rt_kept_dbg.rel : NULL;
    uint32_t n = 0;
    for (int i = 0; i < rt_nkept_lib; i++)
        if (rt_kept_lib[i].rel[0])
            rt_lib_rel[n++] = rt_kept_lib[i].rel;
    info->library_copies = n ? rt_lib_rel : NULL;
    info->library_copy_count = n;
}
