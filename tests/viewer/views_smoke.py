#!/usr/bin/python3
"""views_smoke.py — the interactive views of index.html on odd reports (no run,
no vertex, malformed values, names full of markup, sources missing): every view
is opened by its link (#tree-, #pp-, #ppg-, #flat-, #src-, #srcv-, #cause-), every
flat table and sort, the tree expanded and collapsed, searches run; the page must
log no error and make no request.  Usage: views_smoke.py REPORT_DIR..."""
import json
import os
import sys
import time

from browser_test import check, chromium, finish, network_requests


def exercise(d, url):
    d.get("about:blank")
    d.get_log("performance")   # drop the blank page's own requests
    d.get(url)
    time.sleep(0.3)
    n = d.execute_script("return window.SCALANA_DATA ? SCALANA_DATA.v.length : -1")
    check(n >= 0, f"{url}: the views' data parsed ({n} vertices)")
    hashes = ["#tree-0", "#pp-0", "#pp-0-r0", "#srcv-0", "#src-0", "#src-0-1", "#cause-1", "#vrow-0", "#pp-999999", "#tree-999999"]
    for t in ("function", "line", "mpi"):
        hashes += [f"#flat-{t}-0", f"#ppg-{t}-0", f"#flat-{t}-999999"]
    for h in hashes:
        d.execute_script("location.hash = arguments[0]", h)
        time.sleep(0.05)
    d.execute_script("""
        ['cct-expand', 'cct-collapse', 'cct-hot'].forEach(function (id) { var b = document.getElementById(id); if (b) b.click(); });
        document.querySelectorAll('#cct button.tw').forEach(function (b, k) { if (k < 20) b.click(); });
        document.querySelectorAll('#flat .tab').forEach(function (tab) {
            tab.click();
            document.querySelectorAll('#flattable thead th').forEach(function (th) { th.click(); });
            document.querySelectorAll('#flattable button.tw').forEach(function (b, k) { if (k < 5) b.click(); });
        });
        var s = document.getElementById('srcfn'); if (s && s.options.length) { s.selectedIndex = s.options.length - 1; s.dispatchEvent(new Event('change')); }
        var box = document.getElementById('gsearch');
        ['a', '0', 'rank 1', 'MPI', '<T&>', '\\\\N'].forEach(function (q) { box.value = q; box.dispatchEvent(new Event('input')); });
        window.dispatchEvent(new Event('resize'));""")
    time.sleep(0.2)
    errors = [l for l in d.get_log("browser") if l.get("level") in ("SEVERE", "ERROR")]
    check(not errors, f"{url}: no console errors" + ("" if not errors else ": " + json.dumps(errors)[:400]))
    res = d.execute_script("return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
    reqs = network_requests(d, url)
    check(res == [] and reqs == [], f"{url}: no request ({(res + reqs)[:3]})")


def main():
    with chromium() as d:
        for rd in sys.argv[1:]:
            exercise(d, "file://" + os.path.join(os.path.abspath(rd), "index.html"))
    finish()


if __name__ == "__main__":
    main()
