#!/usr/bin/python3
"""check_binstruct.py — structure recovered from machine code (analyzer/binstruct).

Runs bs_dump on real gcc/gfortran -O2 -g binaries built by this directory's
CMakeLists.txt and asserts the exact recovered tree of the functions that
matter: every loop with its source lines, nesting and the (inlined) function
it belongs to, the MPI call sites with their operation, the calls (real and
inlined) with their callee, GPU call sites with their operation, for -O2 -g, -O2 -g -flto and the DWARF moved
to a separate .debug file (.gnu_debuglink); the lines of loops where gcc's
line table misleads (loop_lines.c); a build without -g
gives no vertex.  Then the build-id cache: written, hit, a
corrupt or foreign file recovered again and replaced, `off` never touched.
Exit 0 pass, 1 fail, 77 skip (a program could not be built).
"""
import os
import shutil
import subprocess
import sys
import tempfile

# The expected trees, one line per vertex as bs_dump prints it (indentation
# is nesting).  Lines are those of loops.c and sweep_mod.f90.
EXPECT_C = {
    # the inlined helper's loop belongs to relax, not to sweep where its code is
    "relax": """
FUNCTION relax loops.c:12-16
  LOOP relax loops.c:15-16 depth 0
""",
    # a nested loop; the inlined call sits in the inner loop
    "sweep": """
FUNCTION sweep loops.c:21-28
  LOOP sweep loops.c:24-26 depth 0
    LOOP sweep loops.c:25-26 depth 1
      CALL sweep loops.c:26-26 col 18 callee relax
""",
    # the loop around a switch compiled to a jump table: all cases are in it
    "classify": """
FUNCTION classify loops.c:31-47
  LOOP classify loops.c:34-43 depth 0
""",
    # MPI call sites with their operation; the loop with the MPI call reaches MPI
    "main": """
FUNCTION main loops.c:49-67
  MPI main loops.c:51-51 col 5 op MPI_Init reaches_mpi
  MPI main loops.c:53-53 col 5 op MPI_Comm_rank reaches_mpi
  MPI main loops.c:54-54 col 5 op MPI_Comm_size reaches_mpi
  CALL main loops.c:55-55 col 27 callee atoi
  LOOP main loops.c:57-57 depth 0
  LOOP main loops.c:60-62 depth 0 reaches_mpi
    CALL main loops.c:61-61 col 18 callee sweep
    CALL main loops.c:61-61 col 51 callee classify
    MPI main loops.c:62-62 col 9 op MPI_Allreduce reaches_mpi
  MPI main loops.c:65-65 col 5 op MPI_Finalize reaches_mpi
""",
}

# GPU call sites as GPU vertices with the pass's operation (gpu_calls.c)
EXPECT_GPU = {
    "main": """
FUNCTION main gpu_calls.c:23-33
  LOOP main gpu_calls.c:27-30 depth 0 reaches_mpi
    GPU main gpu_calls.c:28-28 col 9 gpu memcpy callee cudaMemcpy reaches_mpi
    GPU main gpu_calls.c:29-29 col 9 gpu launch callee cudaLaunchKernel reaches_mpi
    GPU main gpu_calls.c:30-30 col 9 gpu synchronize callee cudaDeviceSynchronize reaches_mpi
""",
}

# Loop lines (loop_lines.c): not from code gcc put in the loop for the
# statement before it, the body of a loop whose code carries the test's line,
# one loop of a loop gcc split in two
EXPECT_LINES = {
    "finish_time": """
FUNCTION finish_time loop_lines.c:16-26
  LOOP finish_time loop_lines.c:18-20 depth 0
    LOOP finish_time loop_lines.c:19-20 depth 1
  LOOP finish_time loop_lines.c:23-26 depth 0
""",
    # the loop at line 37, not from the malloc (and `saving = 0.0`) on line 36
    "saving_of": """
FUNCTION saving_of loop_lines.c:34-43
  LOOP saving_of loop_lines.c:37-41 depth 0
    CALL saving_of loop_lines.c:39-39 col 21 callee finish_time
    CALL saving_of loop_lines.c:41-41 col 24 callee finish_time
""",
    # `while (v >= bin_end[i])\n i++;` is lines 56-57, not its condition alone
    "pick_bins": """
FUNCTION pick_bins loop_lines.c:49-62
  LOOP pick_bins loop_lines.c:52-58 depth 0
    LOOP pick_bins loop_lines.c:56-57 depth 1
""",
}

EXPECT_F = {
    # a module procedure: its loops under its own name, not at the call in the program
    "sweep_block": """
FUNCTION sweep_block sweep_mod.f90:8-20
  LOOP __sweep_mod_MOD_sweep_block sweep_mod.f90:14-17 depth 0
    LOOP __sweep_mod_MOD_sweep_block sweep_mod.f90:15-17 depth 1
""",
    "MAIN__": """
FUNCTION MAIN__ sweep_mod.f90:23-38
  MPI MAIN__ sweep_mod.f90:29-29 col 21 op MPI_Init reaches_mpi
  MPI MAIN__ sweep_mod.f90:30-30 col 48 op MPI_Comm_rank reaches_mpi
  LOOP MAIN__ sweep_mod.f90:31-31 depth 0
  LOOP MAIN__ sweep_mod.f90:32-34 depth 0 reaches_mpi
    CALL MAIN__ sweep_mod.f90:33-33 col 44 callee __sweep_mod_MOD_sweep_block
    MPI MAIN__ sweep_mod.f90:34-34 col 88 op MPI_Allreduce reaches_mpi
  MPI MAIN__ sweep_mod.f90:37-37 col 25 op MPI_Finalize reaches_mpi
""",
}


def dump(bs_dump, *args):
    p = subprocess.run([bs_dump] + list(args), capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("bs_dump %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout.splitlines()


def functions(lines):
    """{display name: its subtree's lines} of a bs_dump listing."""
    out, cur = {}, None
    for l in lines:
        if l.startswith("FUNCTION "):
            cur = l.split()[1]
            out[cur] = [l]
        elif l.startswith(" ") and cur:
            out[cur].append(l)
        else:
            cur = None
    return out


def check_tree(lines, expect, what):
    got = functions(lines)
    bad = []
    for fn, text in expect.items():
        want = text.strip("\n").splitlines()
        if got.get(fn) != want:
            bad.append("%s: %s recovered as\n    %s\n  expected\n    %s"
                       % (what, fn, "\n    ".join(got.get(fn, ["(missing)"])), "\n    ".join(want)))
    return bad


def check_cache(bs_dump, exe):
    bad = []
    d = tempfile.mkdtemp(prefix="binstruct-cache-")
    try:
        first = dump(bs_dump, "--cache", d, exe)
        if not first[0].startswith("cache: written "):
            bad.append("cache: first load did not write it: %s" % first[0])
            return bad
        path = first[0].split(" ", 2)[2]
        if os.path.dirname(path) != d or not path.endswith(".psg"):
            bad.append("cache: written to %s, not <dir>/<build-id>.psg" % path)
        second = dump(bs_dump, "--cache", d, exe)
        if second[0] != "cache: hit " + path or second[1:] != first[1:]:
            bad.append("cache: second load was not the same PSG from the cache: %s" % second[0])
        size = os.path.getsize(path)
        for name, damage in (("garbage", b"not a psg\n"), ("truncated", None)):
            if damage is None:
                with open(path, "rb") as f:
                    damage = f.read()[: size // 2]
            with open(path, "wb") as f:
                f.write(damage)
            again = dump(bs_dump, "--cache", d, exe)
            if again[0] != "cache: written " + path or again[1:] != first[1:]:
                bad.append("cache: a %s cache file was not recovered again and replaced: %s"
                           % (name, again[0]))
            if os.path.getsize(path) != size:
                bad.append("cache: the replaced %s file has %d bytes, not %d" % (name, os.path.getsize(path), size))
        off = dump(bs_dump, "--cache", "off", exe)
        if off[0] != "cache: none " or off[1:] != first[1:]:
            bad.append("cache: 'off' used a cache: %s" % off[0])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return bad


def main():
    if len(sys.argv) != 9:
        print("usage: check_binstruct.py BS_DUMP C_PROG FORTRAN_PROG C_PROG_WITHOUT_G C_PROG_LTO C_PROG_DEBUGLINK "
              "GPU_PROG LOOP_LINES_PROG", file=sys.stderr)
        return 2
    bs_dump, cprog, fprog, nog, lto, dbgl, gpu, lines = sys.argv[1:]
    for p in (cprog, fprog, nog, lto, dbgl, gpu, lines):
        if not os.path.isfile(p):
            print("SKIP: %s was not built (no mpicc/mpif90?)" % p)
            return 77
    bad = []
    clines = dump(bs_dump, cprog)
    if not clines or "recovered=1" not in clines[0]:
        bad.append("the unit is not marked as recovered: %s" % (clines[:1],))
    bad += check_tree(clines, EXPECT_C, "C")
    # -flto: abstract origins in other compile units, constprop clones, the
    # outer loop's address arithmetic on its own line inside the inner loop
    bad += check_tree(dump(bs_dump, lto), EXPECT_C, "C -flto")
    # DWARF in a separate file named by .gnu_debuglink (objcopy --only-keep-debug)
    bad += check_tree(dump(bs_dump, dbgl), EXPECT_C, "C with its DWARF in a .debug file")
    bad += check_tree(dump(bs_dump, fprog), EXPECT_F, "Fortran")
    bad += check_tree(dump(bs_dump, gpu), EXPECT_GPU, "GPU calls")
    bad += check_tree(dump(bs_dump, lines), EXPECT_LINES, "loop lines")
    bad += check_cache(bs_dump, cprog)
    # without -g nothing has a line: no vertex is invented (the analyzer then
    # says to rebuild with -g, recover.c)
    nl = dump(bs_dump, nog)
    if len(nl) != 1 or "vertices=0" not in nl[0]:
        bad.append("the build without -g recovered vertices without lines: %s" % nl[:3])
    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print("PASS: loops, inline owners, MPI sites and the cache as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
