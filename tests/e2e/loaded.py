#!/usr/bin/python3
"""loaded.py — the same verdicts on a busy machine (issue 25, item 3).

Starts two CPU-bound processes of "another user" (`sh -c 'while :; do :; done'`,
as on a shared login node: one per core of this 2-core machine), and while they
run, runs the end-to-end test of each planted example given (run_example.py,
defect on, at the counts given) and the control.  Each must report what it
reports on a quiet machine: #1 the planted category on the planted processes
at the planted loop, its cost within 25 % of the planted saving with a core per
process (run_example.py's own checks), and nothing on the control.  The hogs are
stopped by their PIDs whatever happens (also on SIGTERM from ctest's timeout).

Before the examples, one check that the load bites: a 0.5 s CPU-bound loop of
this script must take at least 1.3x its CPU time in wall time; else the
machine gives the hogs no share (another scheduler policy, more cores than
said) and the test is skipped (exit 77), since its premise does not hold.

usage: loaded.py --source-dir DIR --bindir DIR --workdir DIR [--mpirun M]
                 [--examples a,b,...] [--procs 1,2,4,8]
Exit status: 0 every example as on a quiet machine, 1 one or more not, 77 skip."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
HOGS = 2
# the planted causes the issue saw lost beside two hogs (short_imbalance: under
# the minimum cost; weak_scaling: within its sampling noise, found now by its
# counted iterations), a late sender, the control (about half a minute each
# beside the hogs; the quiet tests cover the others)
DEFAULT_EXAMPLES = "short_imbalance,late_sender_chain,weak_scaling,balanced_control"
# communication examples measure their saving against a defect-off run
REFERENCE_OFF = ("growing_collective", "growing_exchange", "latency_collective", "growing_halo")


def start_hogs(n):
    """n CPU-bound shells in their own process groups; returns their Popen objects."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True)
            for _ in range(n)]


def stop_hogs(hogs):
    for h in hogs:
        if h.poll() is None:
            try:
                os.killpg(h.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        h.wait()


def load_bites():
    """Wall over CPU time of a 0.5 s CPU-bound loop in this process."""
    c0, w0 = time.process_time(), time.monotonic()
    x = 0
    while time.process_time() - c0 < 0.5:
        x += 1
    return (time.monotonic() - w0) / max(time.process_time() - c0, 1e-9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    ap.add_argument("--examples", default=DEFAULT_EXAMPLES)
    ap.add_argument("--procs", default="1,2,4,8")
    args = ap.parse_args()
    workdir = os.path.abspath(args.workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)

    hogs = start_hogs(HOGS)
    # ctest's timeout sends SIGTERM: the hogs must not outlive the test
    signal.signal(signal.SIGTERM, lambda s, f: (stop_hogs(hogs), sys.exit(1)))
    failed = []
    try:
        time.sleep(0.2)
        ratio = load_bites()
        print("loaded.py: %d CPU hogs running (pids %s); a CPU-bound loop here took %.2fx its CPU time in wall time"
              % (HOGS, ", ".join(str(h.pid) for h in hogs), ratio), flush=True)
        if ratio < 1.3:
            print("SKIP: the hogs do not slow this machine (%.2fx < 1.3x): the premise does not hold" % ratio)
            return SKIP
        for name in args.examples.split(","):
            cmd = [sys.executable, os.path.join(HERE, "run_example.py"), "--example", name,
                   "--source-dir", args.source_dir, "--bindir", args.bindir,
                   "--workdir", os.path.join(workdir, name), "--mpirun", args.mpirun,
                   "--procs", args.procs, "--modes", "on"]
            if name in REFERENCE_OFF:
                cmd.append("--reference-off")
            t0 = time.monotonic()
            rc = subprocess.call(cmd)
            print("loaded.py: %s beside %d hogs: exit %d in %.0f s" % (name, HOGS, rc, time.monotonic() - t0),
                  flush=True)
            if rc == SKIP:
                print("SKIP: run_example.py skipped %s (a tool is missing)" % name)
                return SKIP
            if rc != 0:
                failed.append(name)
    finally:
        stop_hogs(hogs)
    if failed:
        print("FAIL: beside %d CPU hogs these examples did not give their quiet verdict: %s"
              % (HOGS, ", ".join(failed)))
        return 1
    print("PASS: %s gave their quiet verdicts beside %d CPU hogs" % (args.examples, HOGS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
