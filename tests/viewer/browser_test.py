#!/usr/bin/python3
"""browser_test.py — opens a rendered index.html in headless Chromium (selenium,
Debian's chromium + chromium-driver) and checks: no console errors, no network
requests, the planted root cause is listed, a click on it shows its path and
source, the search filters the vertex table, the PSG zooms.  Keeps a screenshot.
With --views REPORT.json, also clicks through the interactive views
(views_check.py) against the values of that report.json, keeping a screenshot
of each; with --render, first renders REPORT.json into REPORT_DIR with
scalana-view (exit 77 when the report is absent: its end-to-end run has not
been made in this build).
Usage: browser_test.py REPORT_DIR SCREENSHOT.png [--category C] [--location L]
                       [--search TEXT] [--no-source] [--views REPORT.json]
                       [--render SCALANA_VIEW] [--source-path OLD=NEW] [--hand-written]"""
import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import subprocess
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def make_driver(profile):
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run",
              "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={profile}"]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


@contextlib.contextmanager
def chromium():
    """A headless Chromium with a fresh profile, removed afterwards; exit 77 (skip)
    when chromium or chromium-driver is not installed."""
    if not os.path.exists("/usr/bin/chromium") or not os.path.exists("/usr/bin/chromedriver"):
        print("chromium or chromium-driver not installed: skipped")
        sys.exit(77)
    profile = tempfile.mkdtemp(prefix="scalana-chromium-")
    driver = make_driver(profile)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def network_requests(driver, page_url):
    """The URLs the page asked for since the log was last read (the DevTools
    network log), other than the page itself and data: URLs."""
    reqs = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            u = msg["params"]["request"]["url"]
            if u != page_url and not u.startswith("data:"):
                reqs.append(u)
    return reqs


def finish():
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report_dir")
    ap.add_argument("screenshot")
    ap.add_argument("--category", default="late sender")
    ap.add_argument("--location", default="solver.c:45")
    ap.add_argument("--search", default="MPI_Wait")
    ap.add_argument("--no-source", action="store_true", help="the fixture's sources are not on disk")
    ap.add_argument("--views", metavar="REPORT_JSON", help="check the interactive views against this report")
    ap.add_argument("--render", metavar="SCALANA_VIEW", help="render --views REPORT_JSON into REPORT_DIR first")
    ap.add_argument("--hand-written", action="store_true", help="a fixture whose times need not add up")
    ap.add_argument("--source-path", action="append", default=[], help="passed to scalana-view with --render")
    a = ap.parse_args()
    if a.views and not os.path.isfile(a.views):
        print(f"{a.views} not found (its end-to-end run has not been made in this build): skipped")
        sys.exit(77)
    if a.render:
        cmd = [a.render, "-q", "-o", a.report_dir] + [x for sp in a.source_path for x in ("--source-path", sp)] + [a.views]
        subprocess.run(cmd, check=True)
    report_dir = os.path.abspath(a.report_dir)
    shot = a.screenshot
    category, location = a.category, a.location
    url = "file://" + os.path.join(report_dir, "index.html")
    with chromium() as driver:
        driver.get("about:blank")
        driver.get_log("performance")   # drop the start-up page's own requests
        driver.get_log("browser")
        driver.get(url)
        time.sleep(0.5)
        check(driver.title.startswith("ScalAna report"), "page title: " + driver.title)

        # root-cause list shows the planted cause
        causes = driver.find_elements(By.CSS_SELECTOR, "li.cause")
        check(len(causes) >= 1, f"{len(causes)} root causes listed")
        first = causes[0]
        head = first.find_element(By.CSS_SELECTOR, ".cause-head").text
        check(category in head and location in head, f"first cause shows '{category}' at '{location}': {head!r}")

        # a click shows its path and source
        detail = first.find_element(By.CSS_SELECTOR, ".detail")
        check(not detail.is_displayed(), "cause detail hidden before the click")
        first.find_element(By.CSS_SELECTOR, ".cause-head").click()
        time.sleep(0.2)
        check(detail.is_displayed(), "cause detail shown after the click")
        paths = first.find_elements(By.CSS_SELECTOR, ".pathsvg svg")
        check(len(paths) == 1 and paths[0].is_displayed(), "path SVG displayed")
        if paths:
            check(len(paths[0].find_elements(By.CSS_SELECTOR, "g.node")) >= 1, "path SVG has nodes")
        srcbox = first.find_element(By.CSS_SELECTOR, ".source")
        check(srcbox.is_displayed(), "source box displayed")
        if not a.no_source:
            src = first.find_elements(By.CSS_SELECTOR, ".source pre.src .l.hl")
            check(len(src) >= 1 and src[0].is_displayed(), f"source shown with {len(src)} highlighted lines")

        # search filters the vertex table
        rows = driver.find_elements(By.CSS_SELECTOR, "#vtable tbody tr")
        box = driver.find_element(By.ID, "vsearch")
        driver.execute_script("arguments[0].scrollIntoView()", box)
        box.send_keys(a.search)
        time.sleep(0.3)
        visible = driver.execute_script("return Array.from(document.querySelectorAll('#vtable tbody tr')).filter(r => !r.hidden).length")
        check(0 < visible < len(rows), f"search {a.search!r} leaves {visible} of {len(rows)} rows")
        texts = driver.execute_script("return Array.from(document.querySelectorAll('#vtable tbody tr')).filter(r => !r.hidden).map(r => r.textContent)")
        check(all(a.search.lower() in t.lower() for t in texts), "every visible row matches")
        box.clear()
        box.send_keys(" ")
        time.sleep(0.2)

        # sorting by t max, descending on the second click
        th = driver.find_element(By.XPATH, "//table[@id='vtable']/thead/tr/th[7]")
        th.click()
        th.click()
        vals = driver.execute_script("return Array.from(document.querySelectorAll('#vtable tbody tr')).slice(0,5).map(r => parseFloat(r.cells[6].getAttribute('data-v')))")
        check(vals == sorted(vals, reverse=True), f"sorted by t max descending: {vals}")

        # PSG zoom changes the viewBox
        vp = driver.find_elements(By.ID, "psgview")
        if vp:
            before = driver.execute_script("return document.querySelector('#psgview svg').getAttribute('viewBox')")
            driver.find_element(By.ID, "zin").click()
            after = driver.execute_script("return document.querySelector('#psgview svg').getAttribute('viewBox')")
            check(before != after, f"zoom changes viewBox ({before} -> {after})")
            # a click on a graph vertex selects its row in the table
            target = driver.execute_script("""
                var a = document.querySelector('#psgview g.node a');
                if (!a) return null;
                a.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));
                return a.getAttribute('xlink:href') || a.getAttribute('href');""")
            time.sleep(0.3)
            if target:
                row = driver.execute_script("var r = document.getElementById(arguments[0].slice(1)); return r ? r.className : null", target)
                check(driver.execute_script("return location.hash") == target and row == "target",
                      f"a click on a graph vertex selects table row {target}")
            else:
                check(False, "graph vertices are links to the table")

        if a.views:
            import views_check
            views_check.run(driver, json.load(open(a.views)), os.path.splitext(shot)[0], check, not a.no_source,
                            a.hand_written)
            for c in driver.find_elements(By.CSS_SELECTOR, "li.cause.open .cause-head")[1:]:
                c.click()

        # screenshot with the first cause open at the top
        driver.execute_script("window.scrollTo(0,0)")
        driver.save_screenshot(shot)
        check(os.path.getsize(shot) > 10000, "screenshot kept: " + shot)
        full = os.path.splitext(shot)[0] + "-causes.png"
        driver.execute_script("document.getElementById('causes').scrollIntoView()")
        driver.save_screenshot(full)

        # no console errors
        logs = driver.get_log("browser")
        errors = [l for l in logs if l.get("level") in ("SEVERE", "ERROR")]
        check(not errors, "no console errors" + ("" if not errors else ": " + json.dumps(errors)[:500]))

        # no network requests: performance entries and the DevTools network log
        res = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        check(res == [], f"no resource fetches ({res[:3]})")
        reqs = network_requests(driver, url)
        check(reqs == [], f"no network requests ({reqs[:3]})")
    finish()


if __name__ == "__main__":
    main()
