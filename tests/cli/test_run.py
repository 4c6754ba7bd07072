#!/usr/bin/python3
"""test_run.py — the runtime's side of the one command line, on a real
program built with scalana-cc and real mpirun runs (docs/equivalents.md):

* SCALANA=off: no measurement and nothing written, under mpirun, alone and
  through scalana-run (which then preloads nothing);
* every SCALANA_* variable with a bad value: ONE warning (world rank 0) naming
  the variable, the value and the value used; the program's output and exit
  status unchanged; the value used is the one run.json shows;
* SCALANA_SAMPLER=none: MPI calls recorded, no samples;
* scalana-run under the other MPI library's launcher: one warning;
* run directories: a second run without mpirun leaves the first alone and
  writes <dir>.2, saying where;
* report directories: a user's index.html survives scalana-analyze -o and
  scalana-view -o, --force replaces it, our own earlier output is replaced;
* the report's time summary: MPI_Init and MPI_Finalize on the start-up line
  (time_summary.startup_shutdown), never among the top vertices; report.json
  valid against docs/report.schema.json (with python3-jsonschema).

usage: test_run.py --bindir BIN --mpi openmpi|mpich --src hello.c"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime"))
from mpitest import FAIL, check, launcher as mpitest_launcher  # noqa: E402  (the runtime tests' helpers)


def launcher(mpi, np, env):
    """mpitest's launcher, with Open MPI held to shared memory (btl self,vader)."""
    cmd = mpitest_launcher(mpi, np, env)
    if mpi == "openmpi":
        cmd[cmd.index("-n"):cmd.index("-n")] = ["--mca", "btl", "self,vader"]
    return cmd


def clean_env():
    """The caller's environment without any SCALANA* variable."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SCALANA")}


def run(cmd, cwd, env=None, timeout=120):
    full = clean_env()
    full.update(env or {})
    return subprocess.run(cmd, cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def mpirun(a, cwd, env, np=2, prog="./hello"):
    return run(launcher(a.mpi, np, env) + [prog], cwd, env)


def ours(p):
    return [l for l in p.stderr.splitlines() if l.startswith("scalana:")]


def runinfo(d):
    try:
        with open(os.path.join(d, "run.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def case_off(a, w, plain):
    """SCALANA=off: nothing measured, nothing written, no line of ours."""
    d = os.path.join(w, "off")
    os.mkdir(d)
    shutil.copy(os.path.join(w, "hello"), d)
    for what, p in (("mpirun", mpirun(a, d, {"SCALANA": "off"})),
                    ("alone", run(["./hello"], d, {"SCALANA": "off"})),
                    ("scalana-run", run([os.path.join(a.bindir, "scalana-run")] + launcher(a.mpi, 2, {"SCALANA": "off"})
                                        + ["./hello"], d, {"SCALANA": "off"})),
                    ("SCALANA=0", mpirun(a, d, {"SCALANA": "0"}))):
        check(p.returncode == 0, f"SCALANA=off {what}: exit {p.returncode}: {p.stderr}")
        check(not ours(p), f"SCALANA=off {what}: lines of ours {ours(p)}")
        check(sorted(os.listdir(d)) == ["hello"], f"SCALANA=off {what}: wrote {sorted(os.listdir(d))}")
        if what != "alone":
            check(p.stdout == plain.stdout, f"SCALANA=off {what}: output {p.stdout!r}, want {plain.stdout!r}")
    # scalana-run loads nothing when off (no runtime, no GPU collector), and does otherwise
    sr = os.path.join(a.bindir, "scalana-run")
    p = run([sr, "--mpi", a.mpi, "/usr/bin/env"], d, {"SCALANA": "off"})
    check(p.returncode == 0 and "libscalana" not in p.stdout and "CUDA_INJECTION64_PATH" not in p.stdout
          and not p.stderr, f"SCALANA=off scalana-run env: exit {p.returncode}, {p.stderr}")
    p = run([sr, "--mpi", a.mpi, "/usr/bin/env"], d)
    check(p.returncode == 0 and f"libscalana-{a.mpi}.so" in p.stdout, "scalana-run env: no runtime preloaded")


# (variable, bad value, the text of the value used); two runs, as run.json keeps 8 warnings.
BAD = [
    [("SCALANA", "maybe", "using 1 (on)"), ("SCALANA_SAMPLER", "bogus", "using taskclock"),
     ("SCALANA_FREQ", "abc", "using 200"), ("SCALANA_CCT_NODES", "12", "using 64"),
     ("SCALANA_INTERVALS", "sometimes", "using auto"), ("SCALANA_GPU", "yes please", "using 1 (on)"),
     ("SCALANA_OMPT", "sometimes", "using 1 (on)")],
    [("SCALANA_FREQ", "20000", "using 10000"), ("SCALANA_CALLPATH", "fast", "using auto"),
     ("SCALANA_KEEP_EXE", "perhaps", "using on"), ("SCALANA_QUIET", "maybe", "using 0 (off)"),
     ("SCALANA_WAITALL_SPLIT", "x", "using 1 (on)"), ("SCALANA_INTERVAL_LONG_US", "-3", "using 1"),
     ("SCALANA_SIGNAL", "SIGFOO", "using SIGPROF")],
]


def case_bad_values(a, w, plain):
    runs = []
    for i, bad in enumerate(BAD):
        out = os.path.join(w, f"bad{i}")
        env = {k: v for k, v, _ in bad}
        env["SCALANA_OUTPUT"] = out
        p = mpirun(a, w, env)
        check(p.returncode == 0 and p.stdout == plain.stdout, f"bad values {i}: exit {p.returncode}, output {p.stdout!r}")
        # where perf_event_open is refused, the default taskclock says its
        # fallback to cputime in one more line
        fell = [l for l in ours(p) if "task clock unavailable" in l]
        ln = [l for l in ours(p) if l not in fell]
        check(len(ln) == len(bad), f"bad values {i}: {len(ln)} lines of ours, want {len(bad)}: {ln}")
        ri = runinfo(out) or {}
        for k, v, used in bad:
            mine = [l for l in ln if f" {k}={v} " in l]
            check(len(mine) == 1 and used in mine[0] and "warning" in mine[0],
                  f"{k}={v}: want one warning with '{used}', got {mine}")
            check([x for x in ri.get("warnings", []) if f"{k}={v} " in x and used in x],
                  f"{k}={v}: not among run.json's warnings {ri.get('warnings')}")
        runs.append((out, ri, fell))
    ri0, ri1 = runs[0][1], runs[1][1]
    check(ri0.get("sampler") == ("cputime" if runs[0][2] else "taskclock") and ri0.get("sample_rate_asked_hz") == 200,
          f"SCALANA_SAMPLER=bogus, SCALANA_FREQ=abc: run.json says {ri0.get('sampler')} at {ri0.get('sample_rate_asked_hz')} Hz")
    check(ri1.get("sample_rate_asked_hz") == 10000, f"SCALANA_FREQ=20000: run.json asks {ri1.get('sample_rate_asked_hz')} Hz")
    check(ri1.get("executable_copy") == "exe/hello", f"SCALANA_KEEP_EXE=perhaps: executable_copy {ri1.get('executable_copy')}")
    return runs[0][0]


def case_sampler_none(a, w):
    """none: an MPI-only profile, as mpiP's: the calls, no samples."""
    out = os.path.join(w, "none")
    p = mpirun(a, w, {"SCALANA_SAMPLER": "none", "SCALANA_OUTPUT": out})
    check(p.returncode == 0 and not ours(p), f"SCALANA_SAMPLER=none: exit {p.returncode}, lines {ours(p)}")
    ri = runinfo(out) or {}
    check(ri.get("sampler") == "none" and ri.get("sample_period_ns") == 0, f"SCALANA_SAMPLER=none: run.json {ri.get('sampler')}")
    d = subprocess.run([os.path.join(a.bindir, "scalana-dump"), "--json", out], stdout=subprocess.PIPE, text=True)
    if check(d.returncode == 0, f"scalana-dump {out}: exit {d.returncode}"):
        data = json.loads(d.stdout)
        for r in data["ranks"]:
            calls = {}
            for c in r["mpi"]:
                calls[c["op"]] = calls.get(c["op"], 0) + c["calls"]
            samples = sum(x["count"] for x in r["samples"])
            check(calls.get("MPI_Allreduce") == 1 and calls.get("MPI_Sendrecv") == 20 and samples == 0,
                  f"SCALANA_SAMPLER=none rank {r['info']['world_rank']}: calls {calls}, samples {samples}")


def case_rundirs(a, w):
    """Two runs without mpirun under the default name: the first stays as it
    was, the second writes <dir>.2 and says so in one line."""
    d = os.path.join(w, "alone")
    os.mkdir(d)
    shutil.copy(os.path.join(w, "hello"), d)
    p1 = run(["./hello"], d)
    first = os.path.join(d, "scalana-hello-1p")
    check(p1.returncode == 0 and not ours(p1) and runinfo(first), f"first run: exit {p1.returncode}, {ours(p1)}")
    with open(os.path.join(first, "run.json")) as f:
        before = f.read()
    p2 = run(["./hello"], d)
    ln = ours(p2)
    check(p2.returncode == 0 and len(ln) == 1 and f"writing to {first}.2" in ln[0], f"second run: lines {ln}")
    check(sorted(os.listdir(d)) == ["hello", "scalana-hello-1p", "scalana-hello-1p.2"], f"directories {os.listdir(d)}")
    with open(os.path.join(first, "run.json")) as f:
        check(f.read() == before, "the first run's run.json changed")
    check(runinfo(first + ".2") is not None, "no run.json in the second run's directory")


def case_outdirs(a, w, rundir):
    an = os.path.join(a.bindir, "scalana-analyze")
    vw = os.path.join(a.bindir, "scalana-view")
    mine = "<html>my own page</html>\n"

    def user_dir(name, files):
        d = os.path.join(w, name)
        os.mkdir(d)
        for f, text in files.items():
            with open(os.path.join(d, f), "w") as fh:
                fh.write(text)
        return d

    def refused(what, p, d, name, files):
        err = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(err) == 1 and name in err[0] and "--force" in err[0],
              f"{what}: exit {p.returncode}, stderr {err}")
        check(sorted(os.listdir(d)) == sorted(files), f"{what}: {d} now holds {sorted(os.listdir(d))}")
        for f, text in files.items():
            with open(os.path.join(d, f)) as fh:
                check(fh.read() == text, f"{what}: {f} changed")

    user = user_dir("user", {"index.html": mine})
    refused("analyze -o DIR with the user's index.html", run([an, "-q", "-o", user, rundir], w), user, "index.html",
            {"index.html": mine})
    p = run([an, "-q", "--force", "-o", user, rundir], w)
    check(p.returncode == 0, f"analyze --force: exit {p.returncode}: {p.stderr}")
    with open(os.path.join(user, "index.html")) as fh:
        check(fh.read() != mine, "analyze --force: index.html not replaced")
    check(os.path.exists(os.path.join(user, ".scalana-report")), "analyze: no marker written")
    # our own earlier output: replaced without --force
    p = run([an, "-q", "-o", user, rundir], w)
    check(p.returncode == 0, f"analyze into its own earlier output: exit {p.returncode}: {p.stderr}")
    # a report of a version before the marker (our report.json and index.html only): ours too
    legacy = user_dir("legacy", {})
    for f in ("report.json", "index.html"):
        shutil.copy(os.path.join(user, f), legacy)
    p = run([an, "-q", "-o", legacy, rundir], w)
    check(p.returncode == 0, f"analyze into a report without the marker: exit {p.returncode}: {p.stderr}")
    # ... with a file of the user's beside it, which stays
    with open(os.path.join(user, "report.json")) as fh:
        rj = fh.read()
    mixed = user_dir("mixed", {"report.json": rj, "notes.txt": "mine\n"})
    p = run([an, "-q", "-o", mixed, rundir], w)
    check(p.returncode == 0 and open(os.path.join(mixed, "notes.txt")).read() == "mine\n",
          f"analyze into an earlier report with the user's notes.txt: exit {p.returncode}: {p.stderr}")
    # a directory of the user's files only (a report.json that is not ours included): refused
    theirs = user_dir("theirs", {"report.json": '{"my": "data"}\n', "notes.txt": "mine\n"})
    refused("analyze -o DIR with a user's report.json", run([an, "-q", "-o", theirs, rundir], w), theirs, "report.json",
            {"report.json": '{"my": "data"}\n', "notes.txt": "mine\n"})
    psg = user_dir("psgonly", {"psg.dot": "digraph mine {}\n"})
    refused("analyze -o DIR with the user's psg.dot", run([an, "-q", "-o", psg, rundir], w), psg, "psg.dot",
            {"psg.dot": "digraph mine {}\n"})
    # scalana-view: the same rules; its default directory is the report's own
    user2 = user_dir("user2", {"index.html": mine})
    report = os.path.join(user, "report.json")
    refused("view -o DIR with the user's index.html", run([vw, "-q", "-o", user2, report], w), user2, "index.html",
            {"index.html": mine})
    p = run([vw, "-q", "--force", "-o", user2, report], w)
    check(p.returncode == 0 and os.path.exists(os.path.join(user2, ".scalana-report")),
          f"view --force: exit {p.returncode}: {p.stderr}")
    p = run([vw, "-q", report], w)
    check(p.returncode == 0, f"view into the report's own directory: exit {p.returncode}: {p.stderr}")


STARTUP_SHUTDOWN = ("MPI_Init", "MPI_Init_thread", "MPI_Finalize")


def case_time_summary(a, w, rundir):
    """Where the time goes (report.json time_summary, docs/analyzer.md): the
    start-up and shut-down calls have a line of their own, out of the top
    vertices and the sentence; the summary prints that line when it prints the
    sentence; the report validates against the schema."""
    out = os.path.join(w, "report-time")
    p = run([os.path.join(a.bindir, "scalana-analyze"), "--color", "never", "-o", out, rundir], w)
    check(p.returncode == 0, f"analyze for the time summary: exit {p.returncode}: {p.stderr}")
    try:
        with open(os.path.join(out, "report.json")) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"time summary: no report.json ({e})")
        return
    ts = rep.get("time_summary") or {}
    top = [v.get("label") for v in ts.get("top_vertices", [])]
    check(top and not set(top) & set(STARTUP_SHUTDOWN), f"time_summary.top_vertices {top}: want no {STARTUP_SHUTDOWN}")
    check(not any(n in ts.get("text", "") for n in STARTUP_SHUTDOWN), f"time_summary.text names start-up: {ts.get('text')}")
    su = ts.get("startup_shutdown") or {}
    calls = [c.get("label") for c in su.get("calls", [])]
    text = su.get("text", "")
    check("MPI_Init" in calls and text.startswith("start-up and shut-down: MPI_Init ")
          and text.endswith(" s (mean per process)"), f"time_summary.startup_shutdown: {su}")
    if "No root cause above the thresholds" in p.stdout:
        check(f"\n  {text}\n" in p.stdout, f"the summary does not print the start-up line '{text}' on its own: {p.stdout}")
    try:
        import jsonschema
    except ImportError:
        return
    schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "report.schema.json")
    with open(schema) as f:
        try:
            jsonschema.validate(rep, json.load(f))
        except jsonschema.ValidationError as e:
            check(False, f"report.json against the schema: {e.message} at {list(e.absolute_path)}")


def case_other_launcher(a, w):
    """The other MPI library's launcher: scalana-run says so in one warning
    before starting it (its ranks do not form one job: each runs alone, or the
    job hangs), and says nothing of the kind under the program's own launcher."""
    sr = os.path.join(a.bindir, "scalana-run")
    other = "mpirun.mpich" if a.mpi == "openmpi" else "mpirun.openmpi"
    if not shutil.which(other):
        return
    cmd = [sr, other] + (["--allow-run-as-root", "--oversubscribe"] if other == "mpirun.openmpi" else []) + ["-n", "2", "./hello"]
    try:
        p = run(cmd, w, {"SCALANA": "off"}, timeout=60)
        err = p.stderr
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    lines = [l for l in err.splitlines() if l.startswith("scalana-run: warning:")]
    lib = "Open MPI" if a.mpi == "openmpi" else "MPICH"
    check(len(lines) == 1 and f"linked against {lib}" in lines[0] and other in lines[0]
          and "will not form one job" in lines[0], f"scalana-run {other} with a {a.mpi} program: {err}")
    p = run([sr] + launcher(a.mpi, 2, {}) + ["./hello"], w, {"SCALANA": "off"})
    check(p.returncode == 0 and "will not form one job" not in p.stderr,
          f"scalana-run under the program's own launcher: exit {p.returncode}, {p.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--src", required=True)
    a = ap.parse_args()
    w = tempfile.mkdtemp(prefix="scalana-cli-run-")
    try:
        b = run([os.path.join(a.bindir, "scalana-cc"), "-O1", a.src, "-o", "hello"], w, {"SCALANA_MPI": a.mpi})
        if b.returncode != 0:
            print(f"FAIL: scalana-cc: {b.stderr}")
            return 1
        plain = mpirun(a, w, {"SCALANA": "off"})
        check(plain.returncode == 0 and "hello from 2 ranks" in plain.stdout, f"the program: {plain.stdout} {plain.stderr}")
        case_off(a, w, plain)
        rundir = case_bad_values(a, w, plain)
        case_sampler_none(a, w)
        case_rundirs(a, w)
        case_outdirs(a, w, rundir)
        case_time_summary(a, w, rundir)
        case_other_launcher(a, w)
    finally:
        shutil.rmtree(w, ignore_errors=True)
    for f in FAIL:
        print("FAIL:", f)
    if not FAIL:
        print(f"cli run ok ({a.mpi})")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
