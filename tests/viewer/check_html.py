#!/usr/bin/python3
"""check_html.py — structural checks of rendered index.html files: every
non-void element is closed in order, attributes are quoted, nothing refers to
the network, no raw markup from the fixtures' hostile names survives, ids are
unique.  Usage: check_html.py INDEX.html..."""
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# SVG elements that graphviz and our plots write self-closed
SELF_CLOSING_OK = {"path", "polygon", "polyline", "ellipse", "rect", "line", "circle", "stop"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids = [], [], {}
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k == "id":
                self.ids[v] = self.ids.get(v, 0) + 1
            if k in ("src", "href", "xlink:href", "action") and v and re.match(r"^(https?:|//|ftp:)", v):
                self.errors.append(f"network reference {k}={v}")
        if tag == "script" and any(k == "src" for k, _ in attrs):
            self.errors.append("external script")
        if tag == "link":
            self.errors.append("<link> element (stylesheets must be inline)")
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        for k, v in attrs:
            if k == "id":
                self.ids[v] = self.ids.get(v, 0) + 1
        if tag not in VOID and tag not in SELF_CLOSING_OK:
            self.errors.append(f"self-closed <{tag}/> at {self.getpos()}")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.errors.append(f"</{tag}> without an open element at {self.getpos()}")
            return
        top, pos = self.stack.pop()
        if top != tag:
            self.errors.append(f"</{tag}> at {self.getpos()} closes <{top}> opened at {pos}")


def check(path):
    text = open(path, encoding="utf-8").read()
    c = Checker()
    c.feed(text)
    c.close()
    errs = list(c.errors)
    if c.stack:
        errs.append(f"unclosed elements: {c.stack[-5:]}")
    dups = [k for k, n in c.ids.items() if n > 1]
    if dups:
        errs.append(f"duplicate ids: {dups[:10]}")
    if not text.startswith("<!DOCTYPE html>"):
        errs.append("no doctype")
    if "Content-Security-Policy" not in text:
        errs.append("no Content-Security-Policy")
    scripts = re.findall(r"<script\b", text)
    if len(scripts) != 1:
        errs.append(f"{len(scripts)} script elements (expected our one)")
    for bad in ["<script>alert", "<b>not bold", "</li><li>injected", "<T&>", "<beta>"]:
        if bad in text:
            errs.append(f"unescaped fixture text {bad!r}")
    for e in errs:
        print(f"{path}: {e}")
    return not errs


if __name__ == "__main__":
    ok = all([check(p) for p in sys.argv[1:]])
    print("ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)
