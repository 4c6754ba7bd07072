"""views_check.py — browser checks of index.html's interactive views (used by
browser_test.py --views REPORT.json): every value the page shows is compared
with one computed here from report.json itself, at the largest process count:

  tree     the root's inclusive time is report.json's and the total of all
           exclusive times; the #1 cause's vertex is open on the first view with
           its exclusive time and its per-process inclusive min/median/max;
           collapse, open one level, expand all, hot path give the right rows;
  flat     by function (an MPI call counts as its own): rows sorted by exclusive
           time, each row's time is the sum over its vertices, the #1 cause's
           function among the top 5; sorted by inclusive time the first row holds
           the total; by loop or line: the cause's loop among the top 5; by MPI
           call: one row per MPI operation; a row opens to its calling contexts;
  per process  one row per process with report.json's per_process_seconds, the
           summary's min/median/max/imbalance, one bar per process, the causing
           processes marked;
  source   the cause's whole function, its line with the time of the vertices
           starting there, highlighted;
  search   a function, an MPI call, a file, a rank and a category each found, and
           their result navigates to the view that shows it;
  graph    the structure graph's panel no higher than the graph drawn at its
           width and mostly filled by it.
A screenshot of each view is kept next to the page's (STEM-VIEW.png)."""
import os
import statistics
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def close(a, b, rel=1e-4, abs_=1e-6):
    return a is not None and b is not None and abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


class Report:
    """report.json at its largest process count, the way the page reads it."""

    def __init__(self, rep):
        self.rep = rep
        self.P = max((r.get("processes", 0) for r in rep.get("runs", [])), default=0)
        self.V = rep.get("vertices", [])
        self.n = len(self.V)
        self.parent = [v.get("parent") if isinstance(v.get("parent"), int) and 0 <= v["parent"] < self.n else None for v in self.V]
        self.kids = [[] for _ in self.V]
        for i, p in enumerate(self.parent):
            if p is not None:
                self.kids[p].append(i)
        self.roots = [i for i, p in enumerate(self.parent) if p is None]
        self.m = [next((m for m in v.get("metrics", []) if m.get("processes") == self.P), None) for v in self.V]
        self.excl = [m.get("time_mean_seconds", 0.0) if m else 0.0 for m in self.m]
        self.total = sum(self.excl)
        self.pp = [(m.get("per_process_seconds") if m else [0.0] * self.P) for m in self.m]
        self.ppi = [None] * self.n
        for v in self.postorder():
            a = list(self.pp[v]) if self.pp[v] is not None and len(self.pp[v]) == self.P else None
            for c in self.kids[v]:
                a = [x + y for x, y in zip(a, self.ppi[c])] if a is not None and self.ppi[c] is not None else None
            self.ppi[v] = a

    def postorder(self):
        out, st = [], [(r, 0) for r in reversed(self.roots)]
        while st:
            v, k = st.pop()
            if k < len(self.kids[v]):
                st.append((v, k + 1))
                st.append((self.kids[v][k], 0))
            else:
                out.append(v)
        return out

    def incl(self, i):
        return self.m[i].get("inclusive_mean_seconds", 0.0) if self.m[i] else 0.0

    def hot_path_rows(self):
        """The tree's rows after "hot path", in order: from each root the child with
        the largest inclusive time opened while it holds at least half of its parent's."""
        opened = set()
        for r in self.roots:
            v = r
            while True:
                opened.add(v)
                if not self.kids[v]:
                    break
                best = max(self.kids[v], key=self.incl)   # the first of equals, as the page
                if not (self.incl(best) >= 0.5 * self.incl(v)) or self.incl(best) <= 0:
                    break
                v = best
        rows, st = [], list(reversed(self.roots))
        while st:
            v = st.pop()
            rows.append(v)
            if v in opened:
                st.extend(reversed(self.kids[v]))
        return rows

    def function_key(self, i):
        v = self.V[i]
        if v.get("kind") == "MPI":
            return v.get("operation") or v.get("name")
        return v.get("function") or (v.get("name") if v.get("kind") == "FUNCTION" else "(unknown function)")

    def by_function(self):
        g = {}
        for i in range(self.n):
            g[self.function_key(i)] = g.get(self.function_key(i), 0.0) + self.excl[i]
        return g

    def callers(self, fn):
        """function -> exclusive seconds of fn's vertices under the call sites in it:
        each vertex goes to the parent of its topmost ancestor-or-self in fn."""
        out = {}
        for i in range(self.n):
            if self.function_key(i) != fn:
                continue
            top, u = i, self.parent[i]
            while u is not None:
                if self.function_key(u) == fn:
                    top = u
                u = self.parent[u]
            site = top if self.V[i].get("kind") == "MPI" else self.parent[top]
            name = (self.V[site].get("function") or self.V[site].get("name")) if site is not None else "(program start)"
            out[name] = out.get(name, 0.0) + self.excl[i]
        return out

    def line_time(self, file, line):
        return sum(self.excl[i] for i, v in enumerate(self.V)
                   if v.get("kind") != "FUNCTION" and v.get("file") == file and v.get("line") == line)


def js(d, code, *args):
    return d.execute_script(code, *args)


def go(d, hash_):
    js(d, "location.hash = arguments[0]", hash_)
    time.sleep(0.25)


def shoot(d, stem, view, element_id, check):
    el = d.find_element(By.ID, element_id)
    js(d, "arguments[0].scrollIntoView({block: 'start'})", el)
    time.sleep(0.15)
    path = f"{stem}-{view}.png"
    el.screenshot(path)
    check(os.path.getsize(path) > 3000, f"screenshot of the {view} view: {path}")


def cells(d, selector):
    """[[text, data-v], ...] of the rows matched."""
    return js(d, """return Array.from(document.querySelectorAll(arguments[0])).map(function (r) {
        return Array.from(r.cells).map(function (c) { var v = c.getAttribute('data-v');
            return [c.textContent, v === null || v === '' ? null : parseFloat(v)]; }); });""", selector)


def run(d, rep_json, stem, check, with_source, hand_written=False):
    R = Report(rep_json)
    causes = rep_json.get("root_causes", [])
    cause = causes[0] if causes else None
    cv = cause.get("vertex") if cause and isinstance(cause.get("vertex"), int) and cause["vertex"] < R.n else None
    js(d, "window.scrollTo(0, 0)")

    # ---- calling-context tree
    root = R.roots[0]
    row = cells(d, f"#cct tbody tr[data-vx='{root}']")
    check(len(row) == 1, f"tree: root #{root} is a row")
    incl_root = R.incl(root)
    if row:
        check(close(row[0][2][1], incl_root), f"tree: root inclusive {row[0][2][1]} = report.json's {incl_root}")
        if not hand_written:   # a real run's times add up; the fixture's are written by hand
            check(close(row[0][2][1], R.total, rel=1e-3), f"tree: root inclusive {row[0][2][1]} = total of exclusive times {R.total:.6g}")
        check(close(row[0][3][1], 100.0, rel=1e-3), f"tree: root is 100 % ({row[0][3][1]})")
    if cv is not None:
        row = cells(d, f"#cct tbody tr[data-vx='{cv}']")
        check(len(row) == 1, f"tree: the #1 cause's vertex #{cv} is open on the first view")
        if row:
            check(close(row[0][4][1], R.excl[cv]), f"tree: cause exclusive {row[0][4][1]} = {R.excl[cv]}")
            pi = R.ppi[cv]
            if pi:
                want = (min(pi), statistics.median(pi), max(pi))
                got = (row[0][5][1], row[0][6][1], row[0][7][1])
                check(all(close(x, y) for x, y in zip(got, want)), f"tree: cause per-process inclusive min/median/max {got} = {want}")
    d.find_element(By.ID, "cct-collapse").click()
    n_rows = js(d, "return document.querySelectorAll('#cct tbody tr').length")
    check(n_rows == len(R.roots), f"tree: collapsed to {n_rows} root row(s)")
    if R.kids[root]:
        d.find_element(By.CSS_SELECTOR, f"#cct tbody tr[data-vx='{root}'] button.tw").click()
        n_rows = js(d, "return document.querySelectorAll('#cct tbody tr').length")
        check(n_rows == len(R.roots) + len(R.kids[root]), f"tree: opening the root shows its {len(R.kids[root])} children ({n_rows} rows)")
    d.find_element(By.ID, "cct-expand").click()
    n_rows = js(d, "return document.querySelectorAll('#cct tbody tr').length")
    check(n_rows == R.n, f"tree: expand all shows all {R.n} vertices ({n_rows})")
    d.find_element(By.ID, "cct-hot").click()
    shown = js(d, "return Array.from(document.querySelectorAll('#cct tbody tr')).map(function (r) { return +r.getAttribute('data-vx'); })")
    want = R.hot_path_rows()
    check(shown == want, f"tree: hot path shows {len(shown)} rows, the path of the largest child while it holds half of its parent ({len(want)})")
    if cv is not None:
        go(d, f"#tree-{cv}")
        sel = js(d, "var r = document.querySelector('#cct tr.sel'); return r ? r.getAttribute('data-vx') : null")
        check(sel == str(cv), f"tree: #tree-{cv} opens the tree down to the cause and selects it ({sel})")
    shoot(d, stem, "tree", "calltree", check)

    # ---- flat / bottom-up
    d.find_element(By.CSS_SELECTOR, "#flat .tab[data-flat='function']").click()
    rows = cells(d, "#flattable tbody tr:not(.ctx)")
    names = [r[0][0].lstrip("\u25b8\u25be") for r in rows]
    want = R.by_function()
    check(len(rows) == len(want), f"flat by function: {len(rows)} rows = {len(want)} functions and MPI calls")
    xs = [r[2][1] for r in rows]
    check(xs == sorted(xs, reverse=True), "flat by function: sorted by exclusive time, descending")
    bad = [(nm, x, want.get(nm)) for nm, x in zip(names[:10], xs[:10]) if not close(x, want.get(nm), rel=1e-3)]
    check(not bad, f"flat by function: each row's exclusive time is the sum over its vertices {bad[:3]}")
    if cause:
        fn = cause.get("function")
        top = names[:5]
        check(fn in top, f"flat by function: the #1 cause's function {fn!r} among the top 5 {top}")
        if fn in names:
            k = names.index(fn)
            gid = js(d, "return document.querySelectorAll('#flattable tbody tr:not(.ctx)')[arguments[0]].getAttribute('data-g')", k)
            d.find_element(By.CSS_SELECTOR, f"#flattable tbody tr[data-g='{gid}'] button.tw").click()
            sub = js(d, "var r = document.querySelector(\"#flattable tbody tr[data-g='\" + arguments[0] + \"']\"); var out = [];"
                        "for (r = r.nextElementSibling; r && r.classList.contains('ctx'); r = r.nextElementSibling)"
                        " out.push([r.cells[0].textContent, parseFloat(r.cells[2].getAttribute('data-v'))]); return out", gid)
            want_callers = R.callers(fn)
            got_callers = {}
            for t, x in sub:   # a caller calling from several lines has a row per line
                name = t.split(" \u00b7 ")[0].replace("called from ", "", 1)
                got_callers[name] = got_callers.get(name, 0.0) + x
            check(set(got_callers) == set(want_callers) and all(close(got_callers[k], want_callers[k], rel=1e-3) for k in want_callers),
                  f"flat: {fn!r} opens bottom-up into its callers with their exclusive time {got_callers} = {want_callers}")
    th = d.find_element(By.XPATH, "//table[@id='flattable']/thead/tr/th[5]")
    th.click()
    rows = cells(d, "#flattable tbody tr:not(.ctx)")
    inc = [r[4][1] for r in rows]
    check(inc == sorted(inc, reverse=True) and close(inc[0], R.total, rel=1e-3),
          f"flat: sorted by inclusive time, the first row holds the total ({inc[:3]})")
    shoot(d, stem, "flat", "flat", check)
    d.find_element(By.CSS_SELECTOR, "#flat .tab[data-flat='line']").click()
    d.find_element(By.XPATH, "//table[@id='flattable']/thead/tr/th[3]").click()
    rows = cells(d, "#flattable tbody tr:not(.ctx)")
    xs = [r[2][1] for r in rows]
    if xs and xs != sorted(xs, reverse=True):
        d.find_element(By.XPATH, "//table[@id='flattable']/thead/tr/th[3]").click()
        rows = cells(d, "#flattable tbody tr:not(.ctx)")
    if cv is not None:
        loc = os.path.basename(R.V[cv].get("file", "")) + ":" + str(R.V[cv].get("line"))
        top = [(r[0][0].lstrip("\u25b8\u25be"), r[1][0]) for r in rows[:5]]
        check(any(l == loc and nm == R.V[cv]["name"] for nm, l in top), f"flat by loop or line: the cause's {R.V[cv]['name']} at {loc} among the top 5 {top}")
    d.find_element(By.CSS_SELECTOR, "#flat .tab[data-flat='mpi']").click()
    rows = cells(d, "#flattable tbody tr:not(.ctx)")
    ops = {v.get("operation") or v.get("name") for v in R.V if v.get("kind") == "MPI"}
    got = {r[0][0].lstrip("\u25b8\u25be") for r in rows}
    check(got == ops, f"flat by MPI call: one row per MPI operation {sorted(got)[:6]}")
    d.find_element(By.CSS_SELECTOR, "#flat .tab[data-flat='function']").click()

    # ---- per process: a click on the cause's vertex in the tree
    if cv is not None and R.P > 0:
        go(d, f"#tree-{cv}")
        d.find_element(By.CSS_SELECTOR, f"#cct tbody tr[data-vx='{cv}'] td.tn a").click()
        time.sleep(0.25)
        head = d.find_element(By.ID, "pphead").text
        check(head.startswith(f"#{cv} "), f"per process: a click on the tree's vertex shows #{cv} ({head!r})")
        rows = cells(d, "#ppt tbody tr")
        check(len(rows) == R.P, f"per process: one row per process ({len(rows)} = {R.P})")
        pp = R.pp[cv]
        if pp and len(rows) == R.P:
            check(all(close(r[1][1], x) for r, x in zip(rows, pp)), "per process: each rank's exclusive time is report.json's per_process_seconds")
            summ = cells(d, "#ppsum tbody tr")
            mean = sum(pp) / len(pp)
            want = (min(pp), statistics.median(pp), max(pp), mean, max(pp) / mean if mean > 0 else None)
            got = tuple(summ[0][k][1] for k in range(1, 6)) if summ else ()
            check(len(got) == 5 and all(close(x, y) for x, y in zip(got, want) if y is not None),
                  f"per process: exclusive min/median/max/mean/imbalance {got} = {tuple(round(w, 6) for w in want if w is not None)}")
        bars = js(d, "return document.querySelectorAll('#ppchart rect.bx').length")
        check(bars == R.P, f"per process: the chart has one bar per process ({bars})")
        for role, key in (("cause", "processes"), ("waiting", "waiting_processes")):
            marked = js(d, "return Array.from(document.querySelectorAll('#ppt tr.' + arguments[0])).map(function (r) { return +r.getAttribute('data-rank'); })", role)
            want = sorted({p for c in causes for p in c.get(key, []) if p < R.P})
            check(sorted(marked) == want, f"per process: the root causes' {key.replace('_', ' ')} marked {marked}")
        shoot(d, stem, "perprocess", "perprocess", check)

    # ---- source of the cause's function
    if cv is not None:
        go(d, f"#srcv-{cv}")
        line, file = R.V[cv].get("line"), R.V[cv].get("file")
        if with_source:
            head = d.find_element(By.ID, "srchead").text
            check(cause.get("function", "") in head or R.V[cv].get("function", "") in head, f"source: the cause's function is shown ({head!r})")
            row = cells(d, f"#srctable tr[data-line='{line}']")
            want = R.line_time(file, line)
            check(len(row) == 1 and close(row[0][1][1], want), f"source: line {line} shows {row[0][1][1] if row else None} s = {want:.6g}")
            cls = js(d, "var r = document.querySelector(\"#srctable tr[data-line='\" + arguments[0] + \"']\"); return r ? r.className : ''", line)
            check("hot" in cls and "sel" in cls, f"source: line {line} highlighted ({cls!r})")
            fv = [v for v in R.V if v.get("kind") == "FUNCTION" and v.get("file") == file and v.get("line", 0) <= line <= v.get("last_line", 0)]
            if fv:
                f = min(fv, key=lambda v: v["last_line"] - v["line"])
                n_lines = js(d, "return document.querySelectorAll('#srctable tbody tr').length")
                want_n = min(400, f["last_line"] - f["line"] + 1)
                check(n_lines == want_n, f"source: the whole function, {n_lines} lines = {want_n}")
        else:
            text = d.find_element(By.ID, "srcbody").text
            check("not found" in text or "not in the page" in text, f"source: unreadable source said so ({text[:80]!r})")
        shoot(d, stem, "source", "source", check)

    # ---- search
    box = d.find_element(By.ID, "gsearch")

    def search(q):
        js(d, "window.scrollTo(0, 0)")
        box.clear()
        box.send_keys(q)
        time.sleep(0.25)
        return js(d, "return Array.from(document.querySelectorAll('#gresults li a:first-child')).map(function (a) {"
                     " return [a.querySelector('.rkind') ? a.querySelector('.rkind').textContent : '', a.textContent, a.getAttribute('href')]; })")

    def pick(res, kind, text):
        return next((r for r in res if r[0] == kind and text in r[1]), None)

    if cause:
        fn = cause.get("function", "")
        res = search(fn)
        hit = pick(res, "function", fn)
        check(hit is not None, f"search {fn!r}: a function result ({[r[1] for r in res[:3]]})")
        shoot(d, stem, "search", "gresults", check)
        if hit:
            d.find_element(By.CSS_SELECTOR, f"#gresults a[href='{hit[2]}']").click()
            time.sleep(0.3)
            sel = js(d, "var r = document.querySelector('#flattable tr.sel'); return r ? r.cells[0].textContent : null")
            check(sel is not None and sel.lstrip("\u25b8\u25be") == fn, f"search: the function result selects its flat-table row ({sel!r})")
        if cause.get("processes"):
            r0 = cause["processes"][0]
            res = search(f"rank {r0}")
            hit = pick(res, "rank", f"rank {r0}")
            check(hit is not None and "causing process" in hit[1], f"search 'rank {r0}': the causing process ({res[:1]})")
            if hit:
                d.find_element(By.CSS_SELECTOR, f"#gresults a[href='{hit[2]}']").click()
                time.sleep(0.3)
                sel = js(d, "var r = document.querySelector('#ppt tr.sel'); return r ? r.getAttribute('data-rank') : null")
                check(sel == str(r0), f"search: the rank result selects rank {r0} in the per-process table ({sel})")
        title = js(d, "return SCALANA_DATA.causes[0].title")
        res = search(title)
        hit = pick(res, "category", title)
        check(hit is not None, f"search {title!r}: the category result")
        if hit:
            d.find_element(By.CSS_SELECTOR, f"#gresults a[href='{hit[2]}']").click()
            time.sleep(0.3)
            shown = js(d, "var d = document.querySelector('#cause-%d .detail'); return d ? !d.hidden : false" % cause.get("rank", 1))
            check(shown, "search: the category result opens its root cause")
        cfile = os.path.basename(cause.get("file", ""))
        if cfile:
            res = search(cfile)
            hit = pick(res, "file", cfile)
            check(hit is not None, f"search {cfile!r}: a file result")
            if hit and with_source:
                d.find_element(By.CSS_SELECTOR, f"#gresults a[href='{hit[2]}']").click()
                time.sleep(0.3)
                head = d.find_element(By.ID, "srchead").text
                check(cfile in head, f"search: the file result shows its source ({head!r})")
        if fn:   # the keyboard: the second result by arrow down and Enter; Enter again on the same view
            res = search(fn)
            if len(res) >= 2:
                box.send_keys(Keys.ARROW_DOWN)
                box.send_keys(Keys.ENTER)
                time.sleep(0.3)
                check(js(d, "return location.hash") == res[1][2], f"search: arrow down and Enter open the second result {res[1][2]}")
    ops = sorted({v.get("operation") or v.get("name") for v in R.V if v.get("kind") == "MPI"})
    if ops:
        res = search(ops[0])
        hit = pick(res, "MPI call", ops[0])
        check(hit is not None, f"search {ops[0]!r}: an MPI call result")
        if hit:
            d.find_element(By.CSS_SELECTOR, f"#gresults a[href='{hit[2]}']").click()
            time.sleep(0.3)
            sel = js(d, "var r = document.querySelector('#flattable tr.sel'); return r ? r.cells[0].textContent : null")
            check(sel is not None and sel.lstrip("\u25b8\u25be") == ops[0], f"search: the MPI result selects its row in the MPI table ({sel!r})")
    box.clear()
    box.send_keys(Keys.ESCAPE)

    # ---- the structure graph's panel fits the graph (zoomed back to the whole graph)
    for b in d.find_elements(By.ID, "zfit"):
        js(d, "arguments[0].click()", b)
    fit = js(d, """var vp = document.getElementById('psgview'); if (!vp) return null;
        var g = vp.querySelector('svg g.graph'); if (!g) return null;
        var a = vp.getBoundingClientRect(), b = g.getBoundingClientRect();
        return [a.width, a.height, b.width, b.height, window.innerHeight];""")
    if fit:
        vw, vh, gw, gh, ih = fit
        fill = (min(gw, vw) * min(gh, vh)) / (vw * vh)
        check(vh <= 0.7 * ih + 2, f"graph: panel {vh:.0f} px high, at most 70 % of the window")
        if gh < 0.7 * ih - 2:   # the whole graph fits: the panel must hug it
            check(fill > 0.6, f"graph: the graph fills {100 * fill:.0f} % of its panel ({gw:.0f}x{gh:.0f} in {vw:.0f}x{vh:.0f})")
        shoot(d, stem, "graph", "psg", check)
