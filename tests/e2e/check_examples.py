#!/usr/bin/python3
"""check_examples.py — quick check of the planted examples themselves, without ScalAna.

Runs every example built plainly (<build>/examples/plain/, see examples/CMakeLists.txt)
at 4 processes with a small --scale, defect on and off, and checks the ground truth
each one prints: valid JSON, the planted category and ranks, planted ranges of at
most 10 lines without an MPI call, and measured extra CPU seconds close to the
injected ones, the planted loop exactly a loop of the source (run_example's
check_planted_range), the CPU model's saving present.  Also checks that a bad
switch fails (once per language: one ex_init parses them for all examples of it).  Exit 0 pass, 1 fail, 77 skip.
"""

import argparse
import os
import shutil
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_example as rx  # noqa: E402

PROCS = 4
SCALE = 0.1


def planted_ranks(name, p):
    """Which ranks each example plants its defect on, at p processes."""
    if p <= 1:
        return []
    if name.startswith("load_imbalance"):
        return [r for r in range(p) if r % 4 == 3 or r == p - 1]
    return {"serial_section": [0],
            "late_sender_chain": [p // 2],
            "replicated_work": list(range(p)),
            "growing_collective": list(range(p)),
            "balanced_control": [],
            "inlined_helper": [p - 1],
            "functor_cxx": [0],
            "module_sweep_f": [0],
            "inlined_exchange": [p // 2],
            "heavy_half": [r for r in range(p) if r % 2 == 1],
            "short_imbalance": [0],
            "latency_collective": list(range(p)),
            "weak_scaling": list(range(p)),
            "growing_exchange": list(range(p)),
            "pipeline_wavefront": list(range(p)),
            "growing_halo": list(range(p)),
            "persistent_collective": [p - 1],
            "omp_thread_imbalance": list(range(p)),
            "omp_process_imbalance": [p - 1],
            "omp_serial_section": list(range(p)),
            "omp_balanced_control": []}[name]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--plain-dir", required=True)
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    args = ap.parse_args()
    mpirun = shutil.which(args.mpirun)
    if not mpirun:
        rx.skip("%s not found" % args.mpirun)
    examples = os.path.join(os.path.abspath(args.source_dir), "examples")
    names = []
    with open(os.path.join(examples, "examples.list")) as f:
        names = [l.split()[0] for l in f if l.strip() and not l.startswith("#")]
    failures = []
    switch_checked = set()
    for name in names:
        ex = rx.read_manifest(os.path.join(examples, "examples.list"), name)
        exe = os.path.join(args.plain_dir, name)
        if not os.path.isfile(exe):
            failures.append("%s: not built (%s)" % (name, exe))
            continue
        with open(os.path.join(examples, ex["source"])) as f:
            src_lines = f.read().splitlines()
        for mode in ("on", "off"):
            omp = ex["needs"] == "openmp"   # MPI + OpenMP: the team it is planted for
            cmd = ([mpirun, "--allow-run-as-root", "--oversubscribe"]
                   + (["--bind-to", "none", "-x", "OMP_NUM_THREADS"] if omp else [])
                   + ["-n", str(PROCS), exe, "--defect=" + mode, "--scale=%g" % SCALE])
            env = dict(os.environ, **(rx.OMP_ENV if omp else {}))
            try:
                rc, out, err = rx.run(cmd, args.plain_dir, env=env, timeout=120)
                if rc != 0:
                    raise rx.Failure("exit %d\n%s" % (rc, rx.tail(err)))
                truth = rx.parse_truth(out)
                want = planted_ranks(name, PROCS) if mode == "on" else []
                want_cat = ex["category"] if want else None
                if truth["processes"] != PROCS or truth["defect"] != (mode == "on"):
                    raise rx.Failure("ground truth names the wrong run: %s" % truth)
                if truth["category"] != want_cat or truth["ranks"] != want:
                    raise rx.Failure("planted %s on %s, expected %s on %s"
                                     % (truth["category"], truth["ranks"], want_cat, want))
                if os.path.basename(truth["file"]) != ex["source"]:
                    raise rx.Failure("ground truth names file %s" % truth["file"])
                if want_cat:
                    rx.check_planted_range(src_lines, truth, ex["language"])
                    # ... and the rule rejects a range that is one line off at either end
                    for delta in ((0, -1), (0, 1), (-1, 0), (1, 0)):
                        wrong = dict(truth, loop=[truth["loop"][0] + delta[0],
                                                  truth["loop"][1] + delta[1]])
                        if wrong["loop"][0] > wrong["loop"][1] or (
                                want_cat in rx.COMM_CATEGORIES
                                and wrong["loop"][0] == wrong["loop"][1]):
                            continue   # (a collective statement alone is a valid range)
                        if delta == (1, 0) and rx.OMP_FOR.search(src_lines[truth["loop"][0] - 1]):
                            continue   # (a work-sharing loop with or without its pragma)
                        try:
                            rx.check_planted_range(src_lines, wrong, ex["language"])
                        except rx.Failure:
                            continue
                        raise rx.Failure("the loop-range rule accepts %s for the planted loop %s"
                                         % (wrong["loop"], truth["loop"]))
                    if not truth.get("function"):
                        raise rx.Failure("ground truth names no function for the planted loop")
                    if want_cat not in rx.MEASURED_SAVING and not (
                            truth.get("saving_seconds") or 0) > 0:
                        raise rx.Failure("no CPU-model saving: %s" % truth)
                    extra = truth["extra_cpu_seconds"]
                    if len(extra) != len(want) or not truth["cost_seconds"] > 0:
                        raise rx.Failure("no extra seconds or cost: %s" % truth)
                    if want_cat not in rx.COMM_CATEGORIES:
                        for e in extra:
                            if abs(e - truth["cost_seconds"]) > 0.25 * truth["cost_seconds"] + 0.005:
                                raise rx.Failure("measured extra %.3f s, injected %.3f s"
                                                 % (e, truth["cost_seconds"]))
                rx.log("  %s defect %s: OK (%s on %s, cost %.3f s, run %.2f s)"
                       % (name, mode, truth["category"], truth["ranks"], truth["cost_seconds"],
                          truth["run_seconds"]))
            except rx.Failure as e:
                failures.append("%s defect %s: %s" % (name, mode, e))
        # the switches are parsed by one ex_init per language (examples/common):
        # a bad one is checked once per language, not once per example
        if ex["language"] not in switch_checked:
            switch_checked.add(ex["language"])
            rc, _, _ = rx.run([mpirun, "--allow-run-as-root", "-n", "1", exe, "--no-such-switch"],
                              args.plain_dir, timeout=60)
            if rc == 0:
                failures.append("%s: a bad switch did not fail" % name)
    for f in failures:
        rx.log("FAIL: " + f)
    if failures:
        return 1
    rx.log("PASS: %d examples" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
