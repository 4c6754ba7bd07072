#!/usr/bin/python3
"""bench_analyze.py - time and memory of scalana-analyze on synthetic runs.

For each size S (the largest process count of a set) it analyses the five
runs S/16, S/8, S/4, S/2, S written by scalana-bench-gen, under
/usr/bin/time -v, and prints the wall time, the peak resident memory, the
ratio time(S)/time(S_min) beside the linear ratio, and where the planted
load imbalance ranks among the root causes.  Targets (issue 5, "Scale"): the
set ending at 16 384 in under 60 s and 4 GiB, the planted cause found at
every size, time linear in processes (more than twice the rank ratio
fails: the 2-core machine is shared and noisy).  Exit status: 0 all met, 1 a
target missed, 2 usage or setup error.

  bench_analyze.py --analyze BIN --gen BIN --exe SYNTH_APP --work DIR
                   [--sizes 1024,2048,4096,8192,16384] [--top 3]
SCALANA_BENCH_SIZES overrides --sizes (e.g. SCALANA_BENCH_SIZES=256,512).
Generated runs are kept in DIR/runs and reused while the program is the same.
"""
import argparse
import json
import os
import re
import subprocess
import sys

TIME_LIMIT_S = 60.0          # issue 5: 16 384 x 5 in under 60 s on 2 cores
MEM_LIMIT_MIB = 4096.0       # ... and under 4 GiB
TARGET_SIZE = 16384
SUPERLINEAR_FACTOR = 2.0     # time(S_max)/time(S_min) above 2x the rank ratio fails


def die(msg, code=2):
    print("bench_analyze: " + msg, file=sys.stderr)
    sys.exit(code)


def counts_of(size):
    return [size // 16, size // 8, size // 4, size // 2, size]


def run_dir(work, p):
    return os.path.join(work, "runs", "p%05d" % p)


def time_v(cmd, log):
    """Runs cmd under /usr/bin/time -v; returns (rc, seconds, peak MiB)."""
    with open(log, "w") as f:
        rc = subprocess.call(["/usr/bin/time", "-v"] + cmd, stdout=f, stderr=subprocess.STDOUT)
    text = open(log).read()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    secs = float("nan")
    if m:
        secs = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    mib = int(m.group(1)) / 1024.0 if m else float("nan")
    return rc, secs, mib


def find_planted(report_path, planted, top):
    """(position 1.., root cause) of the planted cause, or (None, reason)."""
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, "no report.json (%s)" % e
    causes = report.get("root_causes", [])
    for pos, rc in enumerate(causes, 1):
        if rc.get("function") != planted["function"]:
            continue
        line, last = rc.get("line", 0), rc.get("last_line", 0) or rc.get("line", 0)
        # the planted compute line itself, or a region of the planted loop containing it
        if line == planted["line"] or (
                planted["loop_first_line"] <= line <= planted["line"] <= last <= planted["loop_last_line"]):
            if pos > top:
                return None, "found only at #%d (%s)" % (pos, rc.get("category"))
            return pos, rc
    if not causes:
        return None, "no root causes"
    first = causes[0]
    return None, "not among %d causes; #1 is %s %s:%s in %s" % (
        len(causes), first.get("category"), os.path.basename(first.get("file", "?")),
        first.get("line"), first.get("function"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--analyze", required=True, help="scalana-analyze executable")
    ap.add_argument("--gen", required=True, help="scalana-bench-gen executable")
    ap.add_argument("--exe", required=True, help="the synthetic program (with its PSG)")
    ap.add_argument("--work", required=True, help="directory for runs and reports")
    ap.add_argument("--sizes", default="1024,2048,4096,8192,16384")
    ap.add_argument("--top", type=int, default=3, help="the planted cause must rank this high")
    a = ap.parse_args()

    sizes_text = os.environ.get("SCALANA_BENCH_SIZES") or a.sizes
    try:
        sizes = sorted({int(s) for s in sizes_text.split(",") if s.strip()})
    except ValueError:
        die("bad sizes '%s'" % sizes_text)
    if not sizes or any(s < 16 or s % 16 for s in sizes):
        die("sizes must be multiples of 16 (the five counts are S/16 .. S)")
    for tool in (a.analyze, a.gen, a.exe):
        if not os.access(tool, os.X_OK):
            die("%s is not built" % tool)
    if not os.access("/usr/bin/time", os.X_OK):
        die("/usr/bin/time not found: install the Debian package 'time'")

    os.makedirs(os.path.join(a.work, "runs"), exist_ok=True)
    all_counts = sorted({p for s in sizes for p in counts_of(s)})
    print("bench_analyze: generating runs at %s processes (reused when up to date)"
          % ", ".join(map(str, all_counts)), flush=True)
    if subprocess.call([a.gen, "runs", a.exe, os.path.join(a.work, "runs")] + [str(p) for p in all_counts]) != 0:
        die("scalana-bench-gen failed")
    with open(os.path.join(a.work, "runs", "planted.json")) as f:
        planted = json.load(f)

    rows = []
    failures = []
    print("%7s %7s %9s %8s %8s %9s  %s" % ("size", "ranks", "time_s", "ratio", "linear", "peak_MiB", "planted cause"))
    for s in sizes:
        out = os.path.join(a.work, "report-%05d" % s)
        log = os.path.join(a.work, "analyze-%05d.log" % s)
        cmd = [a.analyze, "-o", out, "--no-viewer", "-q"] + [run_dir(a.work, p) for p in counts_of(s)]
        rc, secs, mib = time_v(cmd, log)
        ranks = sum(counts_of(s))
        pos, cause = find_planted(os.path.join(out, "report.json"), planted, a.top)
        if rc != 0:
            found = "analyzer exit %d (see %s)" % (rc, log)
            failures.append("size %d: analyzer failed" % s)
        elif pos is None:
            found = "NOT FOUND: " + cause
            failures.append("size %d: planted cause %s" % (s, cause))
        else:
            found = "#%d %s %s:%d, %.3g s" % (pos, cause.get("category"),
                                              os.path.basename(cause.get("file", "?")),
                                              cause.get("line", 0), cause.get("cost_seconds", 0))
        rows.append((s, ranks, secs, mib))
        base = rows[0]
        print("%7d %7d %9.2f %8.2f %8.2f %9.0f  %s" % (s, ranks, secs, secs / base[2] if base[2] else float("nan"),
                                                     ranks / base[1], mib, found), flush=True)
        if s == TARGET_SIZE:
            if not secs < TIME_LIMIT_S:
                failures.append("size %d: %.1f s, target %.0f s" % (s, secs, TIME_LIMIT_S))
            if not mib < MEM_LIMIT_MIB:
                failures.append("size %d: %.0f MiB, target %.0f MiB" % (s, mib, MEM_LIMIT_MIB))
    if len(rows) >= 2:
        (s0, r0, t0, _), (s1, r1, t1, _) = rows[0], rows[-1]
        if t0 > 0:
            # linear in processes, judged with a wide margin (the machine is shared)
            superlinear = t1 / t0 > SUPERLINEAR_FACTOR * r1 / r0
            print("scaling: time grew %.2fx for %.2fx the ranks (linear would be equal; %s)"
                  % (t1 / t0, r1 / r0, "SUPER-LINEAR" if superlinear else "ok"))
            if superlinear:
                failures.append("time grew %.1fx for %.1fx the ranks (more than %gx linear)"
                                % (t1 / t0, r1 / r0, SUPERLINEAR_FACTOR))
    if TARGET_SIZE not in sizes:
        print("note: size %d not run, so the 60 s / 4 GiB targets were not checked" % TARGET_SIZE)
    for f in failures:
        print("FAIL: " + f)
    print("bench_analyze: %s" % ("PASS" if not failures else "FAIL"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
