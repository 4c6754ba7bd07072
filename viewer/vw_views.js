/* vw_views.js — the interactive views of index.html, drawn from SCALANA_DATA
 * (vw_html_data.c): the calling-context tree, the flat and bottom-up tables,
 * the per-process panel, the source view, the report-wide search, and the
 * structure graph's panel sized to the graph.  No request leaves the page.
 * SCALANA_DATA is the parsed <div id="scalana-data"> (kept for a user's console).
 * Navigation is by location.hash: #tree-V, #pp-V[-rR], #ppg-T-K, #flat-T-K,
 * #src-J[-L], #srcv-V, #cause-N (V a vertex id, R a world rank, T a flat
 * table: function|line|mpi, K its row, J a function's source). */
(function () {
'use strict';
var holder = document.getElementById('scalana-data');
if (!holder) return;
var D = window.SCALANA_DATA = JSON.parse(holder.textContent);
holder.textContent = '';   /* parsed once: the text is not needed any more */
var V = D.v, N = V.length, P = D.processes || 0, FILES = D.files || [], SRC = D.src || [];
var byId = function (id) { return document.getElementById(id); };

/* ---- the tree and per-process values ---- */
var kids = [], roots = [], i;
for (i = 0; i < N; i++) kids.push([]);
for (i = 0; i < N; i++) { if (V[i].p >= 0 && V[i].p < N) kids[V[i].p].push(i); else roots.push(i); }
var post = [], depth = new Array(N);
(function () {
  var st = [];
  for (var r = roots.length - 1; r >= 0; r--) { st.push([roots[r], 0]); depth[roots[r]] = 0; }
  while (st.length) {
    var top = st[st.length - 1], v = top[0];
    if (top[1] < kids[v].length) { var c = kids[v][top[1]++]; depth[c] = depth[v] + 1; st.push([c, 0]); }
    else { post.push(v); st.pop(); }
  }
})();
function excl(v) { return V[v].x[0]; }
function incl(v) { return V[v].i[0]; }
/* exclusive seconds per process (index = world rank), null when not in the page */
function ppx(v) {
  var e = V[v];
  if (e.pp === null) return zeros();
  return e.pp || null;
}
var ZERO = null;
function zeros() { if (!ZERO) { ZERO = new Array(P); for (var k = 0; k < P; k++) ZERO[k] = 0; } return ZERO; }
/* inclusive per process: the vertex's own plus its subtree's (exclusive times add up) */
var ppi = new Array(N);
post.forEach(function (v) {
  var a = ppx(v);
  a = a ? a.slice() : null;
  kids[v].forEach(function (c) {
    if (!a || !ppi[c]) { a = null; return; }
    for (var k = 0; k < P; k++) a[k] += ppi[c][k];
  });
  ppi[v] = a;
});
/* a page bounded in size carries the inclusive values of the vertices it keeps */
for (i = 0; i < N; i++) if (V[i].pi) ppi[i] = V[i].pi;
/* 100 %: the roots' inclusive time (for a real run, the sum of all exclusive times) */
var TOTAL = 0, SUMX = 0;
roots.forEach(function (r) { TOTAL += incl(r); });
for (i = 0; i < N; i++) SUMX += excl(i);
if (!(TOTAL > 0)) TOTAL = SUMX;

function stats(a) {
  if (!a || !a.length) return null;
  var s = a.slice().sort(function (x, y) { return x - y; }), n = s.length, sum = 0;
  for (var k = 0; k < n; k++) sum += s[k];
  var med = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return {min: s[0], med: med, max: s[n - 1], mean: sum / n};
}
function fmt(v) {
  if (v === null || v === undefined || !isFinite(v)) return '\u2013';
  var a = Math.abs(v);
  if (a < 1e15 && v === Math.floor(v)) return v.toFixed(0);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toPrecision(3);
  if (a >= 100) return v.toFixed(1);
  return String(+v.toPrecision(4));
}
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]; });
}
function base(f) { var s = String(f || ''); var k = s.lastIndexOf('/'); return k >= 0 ? s.slice(k + 1) : s; }
function fileOf(v) { return V[v].s >= 0 ? FILES[V[v].s] : ''; }
function locOf(v) { return V[v].s >= 0 ? base(fileOf(v)) + ':' + V[v].l : ''; }
function kindPrefix(v) {
  var k = V[v].k || '', n = V[v].n || '';
  return n.toUpperCase().indexOf(k.toUpperCase()) === 0 ? '' : k;
}
function label(v) {
  var k = kindPrefix(v);
  return (k ? '<span class="kind">' + esc(k) + '</span>' : '') + esc(V[v].n || '(unnamed)');
}
function pathOf(v) {
  var p = [];
  for (var u = v; u >= 0 && p.length < 200; u = V[u].p) p.push(u);
  return p.reverse();
}
function num(v, cls) { return '<td class="num' + (cls ? ' ' + cls : '') + '" data-v="' + (v === null || !isFinite(v) ? '' : v) + '">' + fmt(v) + '</td>'; }
function scrollTo(el) { if (el) el.scrollIntoView({block: 'center'}); }
var cause1 = (D.causes && D.causes.length) ? D.causes[0] : null;

/* ---- calling-context tree ---- */
var open = new Uint8Array(N), treeSel = -1;
function openTo(v) { for (var u = V[v].p; u >= 0; u = V[u].p) open[u] = 1; }
function hotPath() {
  roots.forEach(function (r) {
    var v = r;
    for (;;) {
      open[v] = 1;
      var best = -1;
      kids[v].forEach(function (c) { if (best < 0 || incl(c) > incl(best)) best = c; });
      if (best < 0 || !(incl(best) >= 0.5 * incl(v)) || incl(best) <= 0) break;
      v = best;
    }
  });
}
function treeRow(v) {
  var st = stats(ppi[v]), m = incl(v);
  var tw = kids[v].length ? '<button type="button" class="tw" aria-expanded="' + (open[v] ? 'true' : 'false') + '" aria-label="open">' + (open[v] ? '\u25BE' : '\u25B8') + '</button>' : '<span class="tw"></span>';
  var flags = (V[v].g || []).map(function (f) { return ' <span class="flag ' + esc(f) + '">' + esc(f) + '</span>'; }).join('');
  return '<tr data-vx="' + v + '" id="cct-' + v + '"' + (v === treeSel ? ' class="sel"' : '') + '><td class="tn" style="padding-left:' + (4 + depth[v] * 14) + 'px">' + tw +
    '<a href="#pp-' + v + '" title="values per process">' + label(v) + '</a>' + flags + '</td><td class="loc">' + esc(locOf(v)) + '</td>' +
    num(m, 'incl') + num(TOTAL > 0 ? 100 * m / TOTAL : null) + num(excl(v), 'excl') +
    num(st ? st.min : null) + num(st ? st.med : null) + num(st ? st.max : (V[v].i[1] || null)) +
    num(st && st.mean > 0 ? st.max / st.mean : null) + '</tr>';
}
function drawTree() {
  var t = byId('cct');
  if (!t) return;
  var out = [], st = [];
  for (var r = roots.length - 1; r >= 0; r--) st.push(roots[r]);
  while (st.length) {
    var v = st.pop();
    out.push(treeRow(v));
    if (open[v]) for (var k = kids[v].length - 1; k >= 0; k--) st.push(kids[v][k]);
  }
  t.tBodies[0].innerHTML = out.join('');
}
function initTree() {
  var t = byId('cct');
  if (!t) return;
  if (cause1 && cause1.v >= 0 && cause1.v < N) openTo(cause1.v);
  roots.forEach(function (r) { open[r] = 1; });
  drawTree();
  t.tBodies[0].addEventListener('click', function (e) {
    var b = e.target.closest('button.tw');
    if (!b) return;
    var v = +b.closest('tr').getAttribute('data-vx');
    open[v] = open[v] ? 0 : 1;
    drawTree();
  });
  byId('cct-expand').addEventListener('click', function () { open.fill(1); drawTree(); });
  byId('cct-collapse').addEventListener('click', function () { open.fill(0); drawTree(); });
  byId('cct-hot').addEventListener('click', function () { open.fill(0); hotPath(); drawTree(); });
}
function showTree(v) {
  openTo(v);
  treeSel = v;
  drawTree();
  scrollTo(byId('cct-' + v));
}

/* ---- flat and bottom-up tables ---- */
var GROUPS = {}, flatType = 'function', flatSort = {col: 2, asc: false}, flatOpen = {}, flatSel = -1;
function groupKey(type, v) {
  var e = V[v];
  if (type === 'function') {
    /* time sampled inside an MPI routine (a dynamic frame of MPI_Init in the
       library) is that MPI call's row: the MPI_ prefix is reserved to MPI */
    var fn = e.k === 'MPI' ? (e.o || e.n) : (e.f || (e.k === 'FUNCTION' ? e.n : '(unknown function)'));
    return (e.k === 'MPI' || /^MPI_/.test(fn) ? 'm' : 'f') + '\u0001' + fn;
  }
  if (type === 'mpi') return e.k === 'MPI' ? (e.o || e.n) : null;
  if (e.k === 'FUNCTION') return null;
  return e.k + '\u0001' + e.s + '\u0001' + e.l + '\u0001' + e.e;
}
function groups(type) {
  if (GROUPS[type]) return GROUPS[type];
  var idx = {}, gs = [], grp = new Int32Array(N).fill(-1), v;
  for (v = 0; v < N; v++) {
    var key = groupKey(type, v);
    if (key === null) continue;
    var g = idx[key];
    if (g === undefined) {
      g = idx[key] = gs.length;
      var e = V[v], name;
      if (type === 'function') name = key.slice(2);
      else if (type === 'mpi') name = key;
      else name = e.n || e.k;
      gs.push({name: name, mpi: type === 'mpi' || key.charAt(0) === 'm', members: [], x: 0, inc: 0, calls: 0, ppx: zeros().slice(), ppok: true, home: -1});
    }
    var G = gs[g];
    G.members.push(v);
    G.x += excl(v);
    G.calls += V[v].c || 0;
    var a = ppx(v);
    if (a) for (var k = 0; k < P; k++) G.ppx[k] += a[k]; else G.ppok = false;
    if (G.home < 0 || (V[v].k === 'FUNCTION' && V[G.home].k !== 'FUNCTION')) G.home = v;
    grp[v] = g;
  }
  /* inclusive: every vertex under some member, counted once (recursion-safe):
     a depth-first walk keeping the groups open on the current path */
  var cnt = new Int32Array(gs.length), active = [], st = [];
  for (var r = roots.length - 1; r >= 0; r--) st.push([roots[r], 0]);
  while (st.length) {
    var top = st[st.length - 1];
    v = top[0];
    if (top[1] === 0) {
      var gv = grp[v];
      if (gv >= 0 && cnt[gv]++ === 0) active.push(gv);
      for (var q = 0; q < active.length; q++) gs[active[q]].inc += excl(v);
    }
    if (top[1] < kids[v].length) st.push([kids[v][top[1]++], 0]);
    else {
      st.pop();
      if (grp[v] >= 0 && --cnt[grp[v]] === 0) active.pop();
    }
  }
  gs.forEach(function (G, k) {
    G.id = k;
    var s = G.ppok ? stats(G.ppx) : null;
    G.xmax = s ? s.max : null;
    G.imb = s && s.mean > 0 ? s.max / s.mean : null;
    var h = G.home;
    if (type === 'mpi' && G.members.length > 1) G.loc = G.members.length + ' call sites';
    else G.loc = locOf(h);
  });
  GROUPS[type] = {list: gs, grp: grp};
  return GROUPS[type];
}
/* per-process inclusive time of a group: the vertices under any member, once */
function groupPPI(type, g) {
  var G = groups(type), inSub = new Uint8Array(N), a = zeros().slice();
  var order = post.slice().reverse();   /* parents before children */
  for (var k = 0; k < order.length; k++) {
    var v = order[k], p = V[v].p;
    inSub[v] = (G.grp[v] === g || (p >= 0 && inSub[p])) ? 1 : 0;
    if (inSub[v]) { var x = ppx(v); if (!x) return null; for (var j = 0; j < P; j++) a[j] += x[j]; }
  }
  return a;
}
var FLATCOLS = [function (G) { return G.name.toLowerCase(); }, function (G) { return G.loc.toLowerCase(); },
  function (G) { return G.x; }, function (G) { return G.x; }, function (G) { return G.inc; }, function (G) { return G.xmax === null ? -1 : G.xmax; },
  function (G) { return G.imb === null ? -1 : G.imb; }, function (G) { return G.members.length; }, function (G) { return G.calls; }];
function ctxLabel(v) {
  var p = pathOf(v), names = p.map(function (u) { return V[u].n; });
  if (names.length > 5) names = names.slice(0, 1).concat(['\u2026'], names.slice(-3));
  return names.join(' \u203A ');
}
/* Bottom-up, one level: where a function or MPI call is called from.  Each member
   goes to the call site above its topmost instance in the group (a function's
   CALL vertex; an MPI call's own vertex, which its caller holds), so the callers'
   exclusive times add up to the row's; inclusive: each topmost instance once. */
function callers(type, G) {
  var grp = groups(type).grp, by = {}, list = [];
  G.members.forEach(function (v) {
    var top = v;
    for (var u = V[v].p; u >= 0; u = V[u].p) if (grp[u] === G.id) top = u;
    var site = type === 'mpi' ? top : V[top].p;
    var fn = site >= 0 ? (V[site].f || V[site].n) : '(program start)', loc = site >= 0 ? locOf(site) : '';
    var key = fn + '\u0001' + loc, c = by[key];
    if (!c) { c = by[key] = {fn: fn, loc: loc, x: 0, inc: 0, n: 0, calls: 0, top: top, tops: {}}; list.push(c); }
    c.x += excl(v);
    c.calls += V[v].c || 0;
    if (!c.tops[top]) { c.tops[top] = 1; c.inc += incl(top); c.n++; }
  });
  return list.sort(function (a, b) { return b.inc - a.inc; });
}
function drawFlat() {
  var t = byId('flattable');
  if (!t) return;
  var G = groups(flatType).list.slice(), col = flatSort.col, f = FLATCOLS[col];
  G.sort(function (a, b) { var x = f(a), y = f(b); var c = x < y ? -1 : x > y ? 1 : a.id - b.id; return flatSort.asc ? c : -c; });
  var out = [];
  G.forEach(function (g) {
    var o = flatOpen[flatType + g.id];
    out.push('<tr data-g="' + g.id + '" id="flat-' + flatType + '-' + g.id + '"' + (g.id === flatSel ? ' class="sel"' : '') + '><td class="tn"><button type="button" class="tw" aria-expanded="' + (o ? 'true' : 'false') + '" aria-label="calling contexts">' +
      (o ? '\u25BE' : '\u25B8') + '</button><a href="#ppg-' + flatType + '-' + g.id + '" title="values per process">' + esc(g.name) + '</a></td><td class="loc">' + esc(g.loc) + '</td>' +
      num(g.x, 'excl') + num(TOTAL > 0 ? 100 * g.x / TOTAL : null) + num(g.inc, 'incl') + num(g.xmax) + num(g.imb) + num(g.members.length) + num(g.calls || null) + '</tr>');
    if (o && flatType !== 'line') callers(flatType, g).forEach(function (c) {
      out.push('<tr class="ctx caller" data-vx="' + c.top + '"><td class="tn" style="padding-left:26px">called from <a href="#pp-' + c.top + '" title="values per process">' + esc(c.fn) +
        '</a> \u00B7 <a href="#tree-' + c.top + '" title="in the calling-context tree">tree</a></td><td class="loc">' + esc(c.loc) + '</td>' +
        num(c.x) + num(TOTAL > 0 ? 100 * c.x / TOTAL : null) + num(c.inc) + '<td></td><td></td>' + num(c.n) + num(c.calls || null) + '</tr>');
    });
    else if (o) g.members.slice().sort(function (a, b) { return incl(b) - incl(a); }).forEach(function (v) {
      out.push('<tr class="ctx" data-vx="' + v + '"><td class="tn" style="padding-left:26px"><a href="#pp-' + v + '" title="values per process">' + esc(ctxLabel(v)) +
        '</a> \u00B7 <a href="#tree-' + v + '" title="in the calling-context tree">tree</a></td><td class="loc">' + esc(locOf(v)) + '</td>' +
        num(excl(v)) + num(TOTAL > 0 ? 100 * excl(v) / TOTAL : null) + num(incl(v)) + num(V[v].x[1]) + '<td></td><td></td>' + num(V[v].c || null) + '</tr>');
    });
  });
  t.tBodies[0].innerHTML = out.join('');
  var ths = t.tHead.rows[0].cells;
  for (var k = 0; k < ths.length; k++) { ths[k].classList.toggle('asc', k === col && flatSort.asc); ths[k].classList.toggle('desc', k === col && !flatSort.asc); }
  document.querySelectorAll('#flat .tab').forEach(function (b) { b.classList.toggle('on', b.getAttribute('data-flat') === flatType); b.setAttribute('aria-selected', b.getAttribute('data-flat') === flatType ? 'true' : 'false'); });
}
function initFlat() {
  var t = byId('flattable');
  if (!t) return;
  document.querySelectorAll('#flat .tab').forEach(function (b) {
    b.addEventListener('click', function () { flatType = b.getAttribute('data-flat'); flatSel = -1; drawFlat(); });
  });
  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, col) {
    th.addEventListener('click', function () {
      if (flatSort.col === col) flatSort.asc = !flatSort.asc; else { flatSort.col = col; flatSort.asc = col < 2; }
      drawFlat();
    });
  });
  t.tBodies[0].addEventListener('click', function (e) {
    var b = e.target.closest('button.tw');
    if (!b) return;
    var k = flatType + b.closest('tr').getAttribute('data-g');
    flatOpen[k] = !flatOpen[k];
    drawFlat();
  });
  drawFlat();
}
function showFlat(type, g) {
  flatType = type;
  flatSel = g;
  drawFlat();
  scrollTo(byId('flat-' + type + '-' + g));
}

/* ---- per process ---- */
var ppSel = -1;
/* rank -> its parts in the root causes; causing[rank], waiting[rank] set */
function causeRoles() {
  var roles = {causing: {}, waiting: {}};
  (D.causes || []).forEach(function (c) {
    (c.procs || []).forEach(function (r) { (roles[r] = roles[r] || []).push('causing process of #' + c.rank); roles.causing[r] = 1; });
    (c.wait || []).forEach(function (r) { (roles[r] = roles[r] || []).push('waiting in #' + c.rank); roles.waiting[r] = 1; });
  });
  return roles;
}
/* One bar per process; above MAXBARS processes a bar shows the largest value
   of a block of consecutive ranks (as the page's imbalance plots do). */
var MAXBARS = 512;
function chart(x, inc, outl, selRank) {
  var n = x.length, W = 620, H = 200, L = 44, B = 22, T = 8, w = W - L - 8, h = H - B - T;
  var per = Math.ceil(n / MAXBARS), nb = Math.ceil(n / per);
  var mx = 0, k, j;
  for (k = 0; k < n; k++) mx = Math.max(mx, inc ? inc[k] : 0, x[k]);
  if (!(mx > 0)) mx = 1;
  var bw = w / nb, out = ['<svg class="ppchart" id="ppchart" viewBox="0 0 ' + W + ' ' + H + '" width="' + W + '" height="' + H + '" role="img" aria-label="time per process">'];
  out.push('<rect class="frame" x="' + L + '" y="' + T + '" width="' + w + '" height="' + h + '"/>');
  for (j = 0; j < nb; j++) {
    var lo = j * per, hi = Math.min(n, lo + per) - 1, bx = 0, bi = 0, bo = false;
    for (k = lo; k <= hi; k++) { bx = Math.max(bx, x[k]); if (inc) bi = Math.max(bi, inc[k]); if (outl[k]) bo = true; }
    var who = lo === hi ? 'rank ' + lo : 'ranks ' + lo + '\u2013' + hi + ', largest';
    var xx = L + j * bw, bwid = Math.max(bw - (bw > 3 ? 1 : 0), 0.5);
    if (inc) out.push('<rect class="bi" x="' + xx.toFixed(2) + '" y="' + (T + h - h * bi / mx).toFixed(2) + '" width="' + bwid.toFixed(2) + '" height="' + (h * bi / mx).toFixed(2) + '"><title>' + who + ': inclusive ' + fmt(bi) + ' s</title></rect>');
    out.push('<rect class="bx' + (bo ? ' outlier' : '') + '" x="' + xx.toFixed(2) + '" y="' + (T + h - h * bx / mx).toFixed(2) + '" width="' + bwid.toFixed(2) + '" height="' + (h * bx / mx).toFixed(2) + '"><title>' + who + ': exclusive ' + fmt(bx) + ' s</title></rect>');
    if (selRank >= lo && selRank <= hi) out.push('<rect class="selbar" x="' + xx.toFixed(2) + '" y="' + T + '" width="' + bwid.toFixed(2) + '" height="' + h + '"/>');
  }
  var s = stats(inc || x);
  if (s) { var my = T + h - h * s.mean / mx; out.push('<line class="mean" x1="' + L + '" x2="' + (L + w) + '" y1="' + my.toFixed(2) + '" y2="' + my.toFixed(2) + '"/>'); }
  out.push('<text x="' + (L - 4) + '" y="' + (T + 8) + '" text-anchor="end">' + fmt(mx) + ' s</text><text x="' + (L - 4) + '" y="' + (T + h) + '" text-anchor="end">0</text>');
  out.push('<text x="' + L + '" y="' + (H - 6) + '">rank 0</text><text x="' + (L + w) + '" y="' + (H - 6) + '" text-anchor="end">rank ' + (n - 1) + (per > 1 ? ' (a bar: ' + per + ' ranks)' : '') + '</text></svg>');
  return out.join('');
}
function drawPP(title, sub, x, inc, outliers, selRank, links) {
  var body = byId('ppbody');
  if (!body) return;
  var html = ['<h3 id="pphead">' + title + '</h3>'];
  if (sub) html.push('<p class="note">' + sub + '</p>');
  if (links) html.push('<p>' + links + '</p>');
  if (D.ppnote) html.push('<p class="note">' + esc(D.ppnote) + '</p>');
  if (!x || !x.length) {
    html.push('<p class="missing">' + (P > 0 ? 'Per-process values at ' + P + ' processes are not in the page or not in report.json.' : 'The report has no run.') + '</p>');
    body.innerHTML = html.join('');
    return;
  }
  var sx = stats(x), si = inc ? stats(inc) : null, roles = causeRoles(), outl = {};
  (outliers || []).forEach(function (r) { outl[r] = 1; });
  function srow(name, s) {
    return '<tr><th>' + name + '</th>' + num(s.min) + num(s.med) + num(s.max) + num(s.mean) + num(s.mean > 0 ? s.max / s.mean : null) + num(s.max - s.mean) + '</tr>';
  }
  html.push('<table class="ppsum" id="ppsum"><thead><tr><th></th><th class="num">min s</th><th class="num">median s</th><th class="num">max s</th><th class="num">mean s</th><th class="num">imbalance (max/mean)</th><th class="num">max \u2212 mean s</th></tr></thead><tbody>' +
    srow('exclusive', sx) + (si ? srow('inclusive', si) : '') + '</tbody></table>');
  html.push('<div class="ppwrap"><figure>' + chart(x, inc, outl, selRank) + '<figcaption>Exclusive time per process (dark; outliers red), inclusive (light); dashed: mean of the ' + (inc ? 'inclusive' : 'exclusive') + ' time.</figcaption></figure>');
  var rows = [];
  for (var k = 0; k < x.length; k++) {
    var role = (roles[k] || []).concat(outl[k] ? ['outlier'] : []);
    rows.push('<tr data-rank="' + k + '" id="pp-rank-' + k + '" class="' + (k === selRank ? 'sel ' : '') + (roles.causing[k] ? 'cause ' : '') + (roles.waiting[k] ? 'waiting' : '') + '"><td class="num" data-v="' + k + '">' + k + '</td>' + num(x[k]) + (inc ? num(inc[k]) : '') + num(x[k] - sx.mean) + '<td>' + esc(role.join(', ')) + '</td></tr>');
  }
  html.push('<div class="pptab"><table id="ppt" class="views"><thead><tr><th class="num">rank</th><th class="num">excl. s</th>' + (inc ? '<th class="num">incl. s</th>' : '') +
    '<th class="num">excl. \u2212 mean s</th><th>role</th></tr></thead><tbody>' + rows.join('') + '</tbody></table></div></div>');
  body.innerHTML = html.join('');
}
function showPPVertex(v, rank) {
  ppSel = v;
  var path = pathOf(v).map(function (u) { return esc(V[u].n); }).join(' \u203A ');
  var links = '<a href="#tree-' + v + '">in the tree</a> \u00B7 <a href="#srcv-' + v + '">source</a> \u00B7 <a href="#vrow-' + v + '">vertex table</a>';
  drawPP('#' + v + ' ' + label(v) + ' <span class="loc">' + esc(locOf(v)) + '</span>', 'at ' + P + ' processes \u00B7 ' + path, ppx(v), ppi[v], V[v].u, rank, links);
}
function showPPGroup(type, g, rank) {
  var G = groups(type).list[g];
  if (!G) return;
  var what = {function: 'function', line: 'loop or line', mpi: 'MPI call'}[type];
  drawPP(esc(what) + ' ' + esc(G.name) + ' <span class="loc">' + esc(G.loc) + '</span>', 'at ' + P + ' processes \u00B7 summed over ' + G.members.length + ' calling context' + (G.members.length === 1 ? '' : 's'),
    G.ppok ? G.ppx : null, groupPPI(type, g), null, rank, '<a href="#flat-' + type + '-' + g + '">in the flat table</a>');
}

/* ---- source ---- */
var LT = null;   /* per file index: line -> {self, calls, vs[]} */
function lineTimes() {
  if (LT) return LT;
  LT = {};
  for (var v = 0; v < N; v++) {
    var e = V[v];
    if (e.k === 'FUNCTION' || e.s < 0 || !(e.l > 0)) continue;
    var f = LT[e.s] = LT[e.s] || {}, t = f[e.l] = f[e.l] || {self: 0, calls: 0, vs: []};
    t.self += excl(v);
    if (/^CALL/.test(e.k)) t.calls += incl(v);
    t.vs.push(v);
  }
  return LT;
}
function srcOfVertex(v) {
  var e = V[v], best = -1;
  SRC.forEach(function (s, j) {
    if (s.s === e.s && s.a <= e.l && e.l <= s.b && (best < 0 || s.b - s.a < SRC[best].b - SRC[best].a)) best = j;
  });
  return best;
}
var srcSel = -1;
function drawSource(j, line, mark) {
  var body = byId('srcbody'), sel = byId('srcfn');
  if (!body || !SRC[j]) { if (body) body.innerHTML = '<p class="missing">No function source in this report.</p>'; return; }
  srcSel = j;
  if (sel) sel.value = String(j);
  var s = SRC[j], lt = lineTimes()[s.s] || {}, html = [];
  html.push('<p class="loc" id="srchead">' + esc(s.fn) + ' \u00B7 ' + esc(FILES[s.s]) + ':' + s.a + '\u2013' + s.b + '</p>');
  if (s.note) html.push('<p class="note">' + esc(s.note) + '</p>');
  if (!s.lines) { body.innerHTML = html.join('') + '<p class="missing">The lines of this function are not in the page.</p>'; return; }
  var mx = 0, L;
  for (L in lt) if (+L >= s.first && +L < s.first + s.lines.length) mx = Math.max(mx, lt[L].self, lt[L].calls);
  var inside = {};
  if (mark >= 0) for (L = V[mark].l; L <= V[mark].e; L++) inside[L] = 1;
  html.push('<div class="srcwrap"><table class="srcv" id="srctable"><thead><tr><th class="num">line</th><th class="num">self s</th><th class="num">calls s</th><th>source</th></tr></thead><tbody>');
  s.lines.forEach(function (txt, k) {
    var no = s.first + k, t = lt[no], cls = [];
    if (t && t.self > 0) cls.push('hot');
    if (inside[no]) cls.push('hl');
    if (no === line) cls.push('sel');
    var self = t ? t.self : null, calls = t && t.calls > 0 ? t.calls : null;
    var bar = self > 0 && mx > 0 ? '<span class="ibar" style="width:' + Math.max(1, Math.round(40 * self / mx)) + 'px"></span>' : '';
    var first = t ? t.vs.slice().sort(function (a, b) { return excl(b) - excl(a); })[0] : -1;
    var cell = self !== null && (self > 0 || calls) ? '<a href="#pp-' + first + '" title="' + esc(t.vs.map(function (u) { return V[u].n; }).join(', ')) + '">' + bar + fmt(self) + '</a>' : '';
    html.push('<tr id="src-line-' + no + '" data-line="' + no + '" class="' + cls.join(' ') + '"><td class="n">' + no + '</td><td class="num st" data-v="' + (self === null ? '' : self) + '">' + cell + '</td>' +
      '<td class="num ct" data-v="' + (calls === null ? '' : calls) + '">' + (calls ? fmt(calls) : '') + '</td><td class="code">' + esc(txt) + '</td></tr>');
  });
  html.push('</tbody></table></div>');
  body.innerHTML = html.join('');
}
function initSource() {
  var sel = byId('srcfn');
  if (!sel) return;
  sel.innerHTML = SRC.map(function (s, j) { return '<option value="' + j + '">' + esc(s.fn + ' \u2014 ' + base(FILES[s.s]) + ':' + s.a + '\u2013' + s.b) + '</option>'; }).join('');
  sel.addEventListener('change', function () { drawSource(+sel.value, -1, -1); });
  var j = cause1 && cause1.v >= 0 && cause1.v < N ? srcOfVertex(cause1.v) : -1;
  if (j >= 0) drawSource(j, -1, cause1.v); else drawSource(SRC.length ? 0 : -1, -1, -1);
}
function showSourceOfVertex(v) {
  var j = srcOfVertex(v);
  if (j < 0) {
    byId('srcbody').innerHTML = '<p class="missing">No source of the function of vertex #' + v + ' (' + esc(locOf(v) || 'no location') + ') is in the page.</p>';
    scrollTo(byId('source'));
    return;
  }
  drawSource(j, V[v].l, v);
  scrollTo(byId('src-line-' + V[v].l) || byId('source'));
}

/* ---- report-wide search ---- */
var INDEX = null;
function buildIndex() {
  var ix = [];
  (D.causes || []).forEach(function (c) {
    ix.push({kind: 'category', text: c.title + ' (#' + c.rank + ')', more: c.where || c.fn, hay: (c.cat + ' ' + c.title + ' #' + c.rank).toLowerCase(), hash: '#cause-' + c.rank});
  });
  groups('function').list.forEach(function (G) {
    if (G.mpi) return;
    var j = -1;
    SRC.forEach(function (s, k) { if (j < 0 && s.fn === G.name) j = k; });
    ix.push({kind: 'function', text: G.name, more: G.loc + ' \u00B7 ' + fmt(G.x) + ' s', hay: G.name.toLowerCase(), hash: '#flat-function-' + G.id, alt: j >= 0 ? ['source', '#src-' + j] : null});
  });
  groups('mpi').list.forEach(function (G) {
    ix.push({kind: 'MPI call', text: G.name, more: G.loc + ' \u00B7 ' + fmt(G.x) + ' s', hay: G.name.toLowerCase(), hash: '#flat-mpi-' + G.id});
  });
  FILES.forEach(function (f, k) {
    var j = -1;
    SRC.forEach(function (s, m) { if (j < 0 && s.s === k) j = m; });
    ix.push({kind: 'file', text: base(f), more: f, hay: f.toLowerCase(), hash: j >= 0 ? '#src-' + j : null});
  });
  groups('line').list.forEach(function (G) {
    ix.push({kind: 'loop/line', text: G.name, more: G.loc + ' \u00B7 ' + fmt(G.x) + ' s', hay: (G.name + ' ' + G.loc).toLowerCase(), hash: '#flat-line-' + G.id, low: 1});
  });
  return ix;
}
function search(q) {
  q = q.trim().toLowerCase();
  if (!q) return [];
  INDEX = INDEX || buildIndex();
  var res = [], m = /^(?:rank|process|proc|r)?\s*#?(\d+)$/.exec(q);
  if (m && +m[1] < P) {
    var r = +m[1], hit = false;
    (D.causes || []).forEach(function (c) {
      if ((c.procs || []).indexOf(r) >= 0 && c.v >= 0) { hit = true; res.push({kind: 'rank', text: 'rank ' + r, more: 'causing process of #' + c.rank + ' ' + c.title, hash: '#pp-' + c.v + '-r' + r}); }
      if ((c.wait || []).indexOf(r) >= 0 && c.v >= 0) { hit = true; res.push({kind: 'rank', text: 'rank ' + r, more: 'waits in #' + c.rank + ' ' + c.title, hash: '#pp-' + c.v + '-r' + r}); }
    });
    var v = ppSel >= 0 ? ppSel : cause1 && cause1.v >= 0 ? cause1.v : roots[0];
    if (!hit && v !== undefined) res.push({kind: 'rank', text: 'rank ' + r, more: 'its time in ' + V[v].n, hash: '#pp-' + v + '-r' + r});
  }
  var words = q.split(/\s+/), low = [];
  INDEX.forEach(function (e) {
    if (!e.hash) return;
    for (var k = 0; k < words.length; k++) if (e.hay.indexOf(words[k]) < 0) return;
    (e.low ? low : res).push(e);
  });
  return res.concat(low).slice(0, 40);
}
function initSearch() {
  var box = byId('gsearch'), list = byId('gresults');
  if (!box || !list) return;
  var cur = [], at = 0;
  function mark() {
    Array.prototype.forEach.call(list.children, function (li, k) { li.classList.toggle('sel', k === at); });
    if (list.children[at]) list.children[at].scrollIntoView({block: 'nearest'});
  }
  function draw() {
    cur = search(box.value);
    at = 0;
    list.innerHTML = cur.map(function (e) {
      return '<li><a href="' + e.hash + '"><span class="rkind">' + esc(e.kind) + '</span>' + esc(e.text) + ' <span class="note">' + esc(e.more || '') + '</span></a>' +
        (e.alt ? '<a class="rmore" href="' + e.alt[1] + '">' + esc(e.alt[0]) + '</a>' : '') + '</li>';
    }).join('') || (box.value.trim() ? '<li class="note">no match</li>' : '');
    list.hidden = !box.value.trim();
    if (cur.length) mark();
  }
  box.addEventListener('input', draw);
  box.addEventListener('focus', function () { if (box.value.trim()) list.hidden = false; });
  box.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!cur.length) return;
      e.preventDefault();
      at = (at + (e.key === 'ArrowDown' ? 1 : cur.length - 1)) % cur.length;
      mark();
    } else if (e.key === 'Enter' && cur.length) { e.preventDefault(); go(cur[at].hash); list.hidden = true; }
    else if (e.key === 'Escape') list.hidden = true;
  });
  list.addEventListener('click', function (e) {
    var a = e.target.closest('a');
    if (!a) return;
    list.hidden = true;
    if (a.getAttribute('href') === location.hash) { e.preventDefault(); route(); }   /* the same view again */
  });
  document.addEventListener('click', function (e) { if (!e.target.closest('.gsearch')) list.hidden = true; });
}
function go(hash) { if (location.hash === hash) route(); else location.hash = hash; }

/* ---- the structure graph's panel: as high as the graph drawn at the panel's width ---- */
function sizeGraph() {
  var vp = byId('psgview'), svg = vp ? vp.querySelector('svg') : null;
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width) return;
  var w = svg.viewBox.baseVal.width, h = svg.viewBox.baseVal.height;
  /* the panel's width from the window and main's box (max-width 1400px, 24px padding,
     vw_assets.c) rather than from layout: reading a layout here would lay out the
     whole page (a 5 000-row table, a large graph) while the script runs */
  var avail = Math.max(200, Math.min(window.innerWidth - 20, 1400) - 50), s = Math.min(1, avail / w);
  var hh = Math.max(120, Math.min(h * s, window.innerHeight * 0.7));
  vp.style.height = Math.round(hh) + 'px';
  vp.style.width = Math.round(Math.min(avail, Math.max(w * s, 200))) + 'px';
}

/* ---- navigation ---- */
function route() {
  var h = location.hash, m;
  if ((m = /^#tree-(\d+)$/.exec(h)) && +m[1] < N) showTree(+m[1]);
  else if ((m = /^#pp-(\d+)(?:-r(\d+))?$/.exec(h)) && +m[1] < N) {
    showPPVertex(+m[1], m[2] !== undefined ? +m[2] : -1);
    scrollTo(m[2] !== undefined ? byId('pp-rank-' + m[2]) : byId('perprocess'));
    if (m[2] === undefined) byId('perprocess').scrollIntoView({block: 'start'});
  } else if ((m = /^#ppg-(function|line|mpi)-(\d+)$/.exec(h))) { showPPGroup(m[1], +m[2], -1); byId('perprocess').scrollIntoView({block: 'start'}); }
  else if ((m = /^#flat-(function|line|mpi)-(\d+)$/.exec(h))) showFlat(m[1], +m[2]);
  else if ((m = /^#src-(\d+)(?:-(\d+))?$/.exec(h)) && +m[1] < SRC.length) {
    drawSource(+m[1], m[2] !== undefined ? +m[2] : -1, -1);
    if (m[2] !== undefined) scrollTo(byId('src-line-' + m[2])); else byId('source').scrollIntoView({block: 'start'});
  } else if ((m = /^#srcv-(\d+)$/.exec(h)) && +m[1] < N) showSourceOfVertex(+m[1]);
  else if ((m = /^#cause-(\d+)$/.exec(h))) {
    var li = byId('cause-' + m[1]), b = li ? li.querySelector('.cause-head') : null;
    if (b && b.getAttribute('aria-expanded') !== 'true') b.click();
    if (li) li.scrollIntoView({block: 'start'});
  } else if ((m = /^#vrow-(\d+)$/.exec(h)) && +m[1] < N) showPPVertex(+m[1], -1);   /* the table row is selected by the page's first script */
}

initTree();
initFlat();
initSource();
initSearch();
sizeGraph();
window.addEventListener('resize', sizeGraph);
if (cause1 && cause1.v >= 0 && cause1.v < N) showPPVertex(cause1.v, -1);
window.addEventListener('hashchange', route);
if (location.hash) route();
})();
