#!/usr/bin/env python3
"""gate.py — scalana-analyze --gate on the real runs that e2e_before_after left
(fixture e2e_before_after: load_imbalance.c built with the defect on, old/, and
rebuilt with -DEX_DEFECT_DEFAULT=0, new/, each run at 2 and 4 processes); no MPI
job of its own:

  1. defect turned on between the builds (--before new/ --after old/): exit 1;
     the JUnit XML parses (python3's xml parser), its counts add up, and a
     failing test case names the planted loop (relax_cells, file and a line
     inside the loop's lines) with its category and the cost before and after;
     the Markdown summary says FAIL and names the loop; report.json's "gate"
     says failed and validates against docs/report.schema.json;
  2. defect turned off (--before old/ --after new/): exit 0, no failure in the
     JUnit XML, the planted loop's test case passes as fixed; its comparison
     entry carries the predicted saving against the measured one (item 1);
  3. errors exit 2: --gate with the runs of one build, --junit without --gate,
     a JUnit file that cannot be written.

Exit 77 (skipped) while a tool or the fixture's runs are missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_check import Failure, check, log  # noqa: E402


def planted_loop(source):
    """The planted loop's lines from the example's own markers: PLANTED_FUNC is
    the line after the enum, the loop its lines FUNC+4 and FUNC+5."""
    with open(source) as f:
        for n, line in enumerate(f, 1):
            if re.search(r"PLANTED_FUNC = __LINE__ \+ 1", line):
                return n + 1 + 4, n + 1 + 5
    raise Failure("no PLANTED_FUNC marker in %s" % source)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--analyze", required=True, help="the scalana-analyze program")
    ap.add_argument("--runs", required=True, help="e2e_before_after's work directory (old/, new/)")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    old, new = os.path.join(args.runs, "old"), os.path.join(args.runs, "new")
    if not os.access(args.analyze, os.X_OK):
        print("SKIP: %s not built" % args.analyze)
        return 77
    for d in (old, new):
        if not os.path.isdir(d):
            print("SKIP: %s missing (run the fixture e2e_before_after)" % d)
            return 77
    w = os.path.abspath(args.workdir)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    first, last = planted_loop(os.path.join(args.source_dir, "examples", "load_imbalance.c"))

    def analyze(*argv):
        cmd = [args.analyze, "--no-progress", "--color=never", *argv]
        log("$ " + " ".join(cmd))
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        log("  exit %d" % p.returncode)
        return p.returncode, p.stdout, p.stderr

    def junit(path):
        root = ET.parse(path).getroot()   # raises on XML that does not parse
        check(root.tag == "testsuites", "JUnit root element is %r" % root.tag)
        cases = root.findall("./testsuite/testcase")
        fails = [c for c in cases if c.find("failure") is not None]
        check(int(root.get("tests")) == len(cases) and int(root.get("failures")) == len(fails),
              "JUnit counts tests=%s failures=%s, the file holds %d and %d"
              % (root.get("tests"), root.get("failures"), len(cases), len(fails)))
        return cases, fails

    def planted(case):
        return ("relax_cells" in case.get("name") and case.get("file", "").endswith("load_imbalance.c")
                and first <= int(case.get("line")) <= last)

    # 1. the defect turned on between the builds
    xml_on, md_on = os.path.join(w, "on.xml"), os.path.join(w, "on.md")
    rc, out, err = analyze("--gate", "--before", new, "--after", old, "--junit", xml_on, "--markdown", md_on,
                           "-o", os.path.join(w, "report-on"))
    check(rc == 1, "defect turned on: exit %d, not 1:\n%s\n%s" % (rc, out[-3000:], err[-3000:]))
    check("gate: FAIL" in out, "no gate verdict on the terminal:\n" + out[-2000:])
    cases, fails = junit(xml_on)
    hit = [c for c in fails if planted(c)]
    check(hit, "no JUnit failure names the planted loop relax_cells:%d-%d: %s"
          % (first, last, [(c.get("name"), c.get("line")) for c in fails]))
    text = hit[0].find("failure").text or ""
    m = re.search(r"load_imbalance\.c:(\d+): load_imbalance: (?:new root cause|cost grew beyond the noise band): "
                  r"cost before ([0-9.e+-]+) s, after ([0-9.e+-]+) s", text)
    check(m and first <= int(m.group(1)) <= last and float(m.group(3)) > float(m.group(2)),
          "the failure does not give file:line, category and the costs: %r" % text)
    check(hit[0].get("classname") == "scalana.load_imbalance", "classname %r" % hit[0].get("classname"))
    log("JUnit failure: %s: %s" % (hit[0].get("name"), text.splitlines()[0]))
    md = open(md_on).read()
    check(md.startswith("## ScalAna gate: FAIL") and "relax_cells" in md and "**new**" in md,
          "the Markdown summary does not say FAIL for relax_cells:\n" + md)
    rep = json.load(open(os.path.join(w, "report-on", "report.json")))
    check(rep["gate"]["failed"] is True and rep["gate"]["counts"]["new"] >= 1, "report.json gate: %r" % rep["gate"]["counts"])
    try:
        import jsonschema
        jsonschema.validate(rep, json.load(open(os.path.join(args.source_dir, "docs", "report.schema.json"))))
    except ImportError:
        log("(python3-jsonschema missing: report.json not validated)")

    # 2. the defect turned off: the gate passes, the loop is fixed
    xml_off = os.path.join(w, "off.xml")
    rc, out, err = analyze("--gate", "--before", old, "--after", new, "--junit", xml_off,
                           "-o", os.path.join(w, "report-off"))
    check(rc == 0, "defect turned off: exit %d, not 0:\n%s\n%s" % (rc, out[-3000:], err[-3000:]))
    check("gate: pass" in out, "no passing verdict on the terminal:\n" + out[-2000:])
    cases, fails = junit(xml_off)
    check(not fails, "failures with the defect off: %s" % [(c.get("name"), c.find("failure").text) for c in fails])
    fixed = [c for c in cases if planted(c)]
    check(fixed and "fixed" in (fixed[0].findtext("system-out") or ""),
          "the planted loop's test case is not reported fixed: %s" % [(c.get("name"), c.findtext("system-out")) for c in cases])

    # the comparison behind it: the fixed loop's predicted saving against the measured one
    cmp = json.load(open(os.path.join(w, "report-off", "report.json")))["comparison"]
    gone = [c for c in cmp["causes"] if c["status"] == "gone" and c["before"]["function"] == "relax_cells"]
    check(gone, "the planted loop is not gone in the comparison")
    c = gone[0]
    check(c["predicted_saving_seconds"] == c["saved_seconds"] and c["predicted_saving_seconds"] > 0
          and sorted(m["processes"] for m in c["measured_saving"]) == [2, 4]
          and c["measured_saving_processes"] == c["predicted_saving_processes"] == 4,
          "predicted/measured saving fields: %r" % {k: c.get(k) for k in c if "saving" in k or "predict" in k})
    meas = c["measured_saving_seconds"]
    check(meas is not None and abs(c["prediction_error"] - (c["predicted_saving_seconds"] - meas) / abs(meas)) < 1e-4,
          "prediction_error %r for %r predicted, %r measured" % (c["prediction_error"], c["predicted_saving_seconds"], meas))
    check("predicted saving" in out, "the terminal does not show the predicted saving:\n" + out[-2000:])
    log("relax_cells: predicted saving %.3f s, measured %.3f s with a core per process at 4 processes (error %+.0f %%)"
        % (c["predicted_saving_seconds"], meas, 100 * c["prediction_error"]))

    # 3. errors exit 2
    rc, _, err = analyze("--gate", old, "-o", os.path.join(w, "report-one"))
    check(rc == 2 and "compares two builds" in err, "--gate on one build: exit %d: %s" % (rc, err))
    rc, _, err = analyze("--junit", xml_off, "--before", old, "--after", new, "-o", os.path.join(w, "report-x"))
    check(rc == 2 and "--gate" in err, "--junit without --gate: exit %d: %s" % (rc, err))
    rc, _, err = analyze("--gate", "--junit", os.path.join(w, "no-such-dir", "g.xml"), "--before", old, "--after",
                         new, "-o", os.path.join(w, "report-y"))
    check(rc == 2 and "cannot write" in err, "unwritable JUnit file: exit %d: %s" % (rc, err[-2000:]))
    # the runs of one build on both sides (a CI cache mix-up) would always pass
    rc, _, err = analyze("--gate", "--before", old, "--after", old, "-o", os.path.join(w, "report-same"))
    check(rc == 2 and "one build" in err, "--gate with one build on both sides: exit %d: %s" % (rc, err[-2000:]))
    log("OK: the gate fails on the planted loop turned on and passes with it turned off")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (Failure, ET.ParseError) as f:
        print("FAIL: %s" % f)
        sys.exit(1)
