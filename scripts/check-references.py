#!/usr/bin/env python3
"""check-references.py — fails when a comment or a doc names a file of the
repository that does not exist, or cites a path outside the repository.

Usage: scripts/check-references.py [REPO_ROOT]   (default: this script's repo)

What is read: every tracked (or untracked, not ignored) file under the root
that is a doc (*.md, man pages) — all of its text — or source (C, C++,
Python, shell, CMake, Fortran, CUDA, lit tests) — its comments only, so that
strings naming files a program writes ("report.json", "solver.c" in a test
that creates it) are not taken for references.

What counts as a reference: a word ending in a source or doc extension
(.c .h .cpp .py .sh .md .def .cmake ...).  A word with a directory part
must exist relative to the root or to the citing file's directory (brace
forms such as `PsgAnalysis.{h,cpp}` are expanded); a bare file name must be
the name of some file in the repository.  Names under build/, /tmp, $VAR,
globs, and the files the tools and the tests generate (listed in GENERATED
below, each with why) are not references.  Any absolute path under /work/
is an error: the method belongs in docs/, in our own words.

Prints each bad reference as FILE:LINE: NAME (why) and exits 1 when there is
one; exits 0 otherwise.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))

EXTS = ("c", "h", "cpp", "hpp", "cc", "py", "sh", "md", "def", "cmake", "f90", "F90", "cu", "in", "test", "ll")
NAME = re.compile(r"(?<![\w$%%./}-])((?:\.{0,2}/)?[\w+-][\w.+{},/-]*\.(?:%s))(?![\w/-])" % "|".join(EXTS))

# Files named in comments and docs that are not in the repository by design.
GENERATED = {
    # made by the build (from a .in file, or by a generator into the build tree)
    "lit.site.cfg.py", "gen/rt_wrappers.c", "gen/rt_fortran_wrappers.c", "gen/rt_rules.h",
    "gen/rt_args.h", "gen/rt_wrapped_names.c", "rt_wrappers.c", "rt_fortran_wrappers.c", "rt_rules.h",
    "rt_args.h", "rt_wrapped_names.c",
    # written by tests/gpu/prepare-device-bundle.sh into the bundle it makes
    "env.sh",
    # configured from cmake/ScalAnaConfig.cmake.in and written by CMake at install
    "ScalAnaConfig.cmake", "ScalAnaConfigVersion.cmake",
}
# Files of other projects, named where their output or code is quoted: system
# and MPI headers, LLVM's and libstdc++'s, and the proxy applications docs
# quote measurements of (Mantevo miniFE, HPCG: fetched, never in the repo).
EXTERNAL = {
    "mpi.h", "mpif.h", "time.h", "elf.h", "cxxabi.h", "ISO_Fortran_binding.h", "std_function.h", "invoke.h",
    "driver.hpp", "cupti_runtime_cbid.h", "cupti_driver_cbid.h", "cg_solve.hpp", "ExchangeHalo.cpp",
    "omp-tools.h", "stddef.h",
}
# Example names in explanations and command lines (a user's solver, a pass
# input), never meant as files of the repository.
EXAMPLES = {
    "relax.c", "foo.c", "f.c", "f.cpp", "t.c", "functor.cpp", "app.ll", "input.ll", "in.ll", "t.ll",
    "solver.cpp", "solver.f90", "file.c",
    "MPI1/PIC/../../common/x.c",  # a path as the PRK kernels' builds write it
}
SOURCE_COMMENTS = {
    # extension: (line comment regexes, block comment (open, close) or None)
    "c": (r"//", ("/*", "*/")), "h": (r"//", ("/*", "*/")), "cpp": (r"//", ("/*", "*/")),
    "hpp": (r"//", ("/*", "*/")), "cc": (r"//", ("/*", "*/")), "cu": (r"//", ("/*", "*/")),
    "def": (r"//", ("/*", "*/")), "py": (r"#", None), "sh": (r"#", None), "cmake": (r"#", None),
    "txt": (r"#", None), "f90": (r"!", None), "F90": (r"!", None), "test": (r"[;#]", None),
}


def repo_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return sorted(f for f in out if f and os.path.exists(os.path.join(ROOT, f)))


def comment_lines(path, ext):
    """(line number, text) of the comments of a source file."""
    line_re, block = SOURCE_COMMENTS[ext]
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    in_block = False
    for no, line in enumerate(text.split("\n"), 1):
        rest, got = line, []
        while rest:
            if in_block:
                end = rest.find(block[1])
                if end < 0:
                    got.append(rest)
                    rest = ""
                else:
                    got.append(rest[:end])
                    rest = rest[end + len(block[1]):]
                    in_block = False
                continue
            # skip string literals so that "http://x" or "#" inside strings do not start comments
            m = re.search(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|(%s)%s' %
                          (line_re, "|(" + re.escape(block[0]) + ")" if block else ""), rest)
            if not m:
                break
            if m.group(1):
                got.append(rest[m.end():])
                break
            if block and m.group(2):
                in_block = True
                rest = rest[m.end():]
                continue
            rest = rest[m.end():]  # a string: skipped
        if got:
            out.append((no, " ".join(got)))
    return out


def expand(name):
    m = re.search(r"\{([^{}]*)\}", name)
    if not m:
        return [name]
    return [x for alt in m.group(1).split(",") for x in expand(name[:m.start()] + alt + name[m.end():])]


def main():
    files = repo_files()
    basenames = {os.path.basename(f) for f in files}
    tracked = set(files)
    dirs = {os.path.dirname(f) for f in files}
    bad = []
    for f in files:
        base = os.path.basename(f)
        ext = base.rsplit(".", 1)[-1] if "." in base else ""
        if f.startswith(("examples/", "tests/plugin/Inputs/")) and ext != "md":
            continue  # programs and inputs: their comments describe the programs
        if ext == "md" or re.match(r"docs/man/.*\.\d$", f):
            lines = list(enumerate(open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read().split("\n"), 1))
        elif base == "CMakeLists.txt":
            lines = comment_lines(os.path.join(ROOT, f), "txt")
        elif ext in SOURCE_COMMENTS:
            lines = comment_lines(os.path.join(ROOT, f), ext)
        else:
            continue
        here = os.path.dirname(f)
        for no, text in lines:
            if ext == "test":
                text = text.replace("%S", here)  # lit: the test's own directory
            for m in re.finditer(r"(?<![\w./-])/work/[\w./-]+", text):
                bad.append("%s:%d: %s (a path outside the repository: explain it in docs/)" % (f, no, m.group(0)))
            for m in NAME.finditer(text):
                name = m.group(1).rstrip(".,")
                name = name[2:] if name.startswith("./") else name
                if name.startswith(("build/", "/", "~", "../")) or "*" in name or "<" in name or "$" in name:
                    continue  # build outputs, absolute and relative example paths, patterns
                stem = os.path.basename(name).split(".")[0]
                if stem.isupper() or name in EXTERNAL or name in EXAMPLES:
                    continue  # placeholders (NAME.c, OUT.c), other projects' files, examples
                for n in expand(name):
                    n = n[2:] if n.startswith("./") else n
                    if "/" in n:
                        cands = [os.path.normpath(n), os.path.normpath(os.path.join(here, n))]
                        if any(c in tracked or c in dirs for c in cands) or n in GENERATED:
                            continue
                        # a path named below a directory the text names first (e.g. binstruct/tree.c
                        # in analyzer docs): accept when it is the tail of a repository file
                        if any(t.endswith("/" + os.path.normpath(n)) for t in tracked):
                            continue
                        bad.append("%s:%d: %s (no such file in the repository)" % (f, no, n))
                    elif n not in basenames and n not in GENERATED:
                        bad.append("%s:%d: %s (no file of that name in the repository)" % (f, no, n))
    for b in bad:
        print(b)
    if bad:
        print("check-references: %d reference(s) to files that do not exist" % len(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
