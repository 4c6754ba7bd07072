#!/usr/bin/python3
"""run_fp_cost.py — what keeping frame pointers costs the examples: each
example built by scalana-cc --scalana-no-runtime as the wrappers build it
(frame pointers, leaf ones too) and with frame pointers omitted
(-fomit-frame-pointer, last on the line, wins); prints the .text size of
each and, for the C and C++ examples, the median CPU time of the processes
over alternating runs without any tool (np 2).  The machine is shared:
medians of alternating runs.

usage: run_fp_cost.py BUILD_DIR SOURCE_DIR [--mpi openmpi] [--repeat 5] [--speed NAME,...]"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def text_size(path):
    out = subprocess.check_output(["size", "-A", path], text=True)
    return sum(int(l.split()[1]) for l in out.splitlines() if l.startswith(".text"))


def cpu_of(cmd, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("src")
    ap.add_argument("--mpi", default="openmpi")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--speed", default="load_imbalance,replicated_work,functor_cxx,heavy_half")
    a = ap.parse_args()
    a.build, a.src = os.path.abspath(a.build), os.path.abspath(a.src)
    ex = os.path.join(a.src, "examples")
    tool = {"c": "scalana-cc", "cxx": "scalana-cxx", "fortran": "scalana-fc"}
    rows = []
    for line in open(os.path.join(ex, "examples.list")):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        rows.append((f[0], f[1], f[2], f[4]))
    tmp = tempfile.mkdtemp(prefix="scalana-fpcost-")
    env = dict(os.environ, SCALANA_MPI=a.mpi, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    built = {}
    print(f"{'example':20s} {'text fp':>9s} {'text nofp':>9s} {'size':>7s}")
    sizes = []
    for name, srcf, lang, opt in rows:
        cc = os.path.join(a.build, "bin", tool[lang])
        outs = {}
        for mode in ("fp", "nofp"):
            o = os.path.join(tmp, f"{name}_{mode}")
            extra = [] if mode == "fp" else (["-fomit-frame-pointer"] + ([] if lang == "fortran" else
                                                                       ["-momit-leaf-frame-pointer"]))
            if lang == "fortran" and mode == "nofp":
                extra += ["-Xflang", "-mframe-pointer=none"]
            cmd = [cc, "--scalana-no-runtime", opt, "-g", "-I", os.path.join(ex, "common"),
                   os.path.join(ex, srcf), "-o", o] + extra + (["-lm"] if lang != "fortran" else [])
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           cwd=tmp)  # flang writes its .mod files to the working directory
            outs[mode] = o
        s_fp, s_no = text_size(outs["fp"]), text_size(outs["nofp"])
        sizes.append(s_fp / s_no)
        built[name] = outs
        print(f"{name:20s} {s_fp:9d} {s_no:9d} {100 * (s_fp / s_no - 1):+6.2f}%")
    print(f"median .text growth {100 * (statistics.median(sizes) - 1):+.2f}% over {len(sizes)} examples")
    for name in a.speed.split(","):
        if name not in built:
            continue
        t = {"fp": [], "nofp": []}
        for i in range(a.repeat):
            for mode in (("fp", "nofp") if i % 2 == 0 else ("nofp", "fp")):
                cmd = ["mpirun.openmpi", "--oversubscribe", "-n", "2", built[name][mode]] if a.mpi == "openmpi" \
                    else ["mpirun.mpich", "-n", "2", built[name][mode]]
                t[mode].append(cpu_of(cmd, env))
        ratio = statistics.median(x / y for x, y in zip(t["fp"], t["nofp"]))
        print(f"speed {name:20s} CPU fp {statistics.median(t['fp']):.3f} s, nofp {statistics.median(t['nofp']):.3f} s, "
              f"median ratio {ratio:.3f} ({a.repeat} alternating pairs)")
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
