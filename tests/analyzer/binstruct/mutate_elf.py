#!/usr/bin/python3
"""mutate_elf.py — bad input never crashes structure recovery.

Feeds bs_dump (analyzer/binstruct) deterministic mutations of a real gcc
binary: random bytes overwritten (5 to 500 at a time), some truncated at a
random length.  Each run must end with exit 0 (something recovered) or 1 (a
one-line reason on stderr naming the file), never a signal or another
status.  Exit 0 pass, 1 fail, 77 skip.
"""
import os
import random
import subprocess
import sys
import tempfile

COUNT = 120


def main():
    if len(sys.argv) != 3:
        print("usage: mutate_elf.py BS_DUMP ELF", file=sys.stderr)
        return 2
    bs_dump, elf = sys.argv[1:]
    if not os.path.isfile(elf):
        print("SKIP: %s was not built" % elf)
        return 77
    data = open(elf, "rb").read()
    rng = random.Random(20261201)
    bad = []
    with tempfile.TemporaryDirectory(prefix="binstruct-mut-") as d:
        path = os.path.join(d, "mutant.elf")
        for t in range(COUNT):
            e = bytearray(data)
            for _ in range(rng.choice([5, 50, 500])):
                e[rng.randrange(len(e))] = rng.randrange(256)
            if rng.random() < 0.2:
                e = e[: rng.randrange(len(e))]
            with open(path, "wb") as f:
                f.write(e)
            p = subprocess.run([bs_dump, path], capture_output=True, text=True, errors="replace", timeout=60)
            if p.returncode not in (0, 1):
                keep = os.path.join(tempfile.gettempdir(), "binstruct-crash-%d.elf" % t)
                with open(keep, "wb") as f:
                    f.write(e)
                bad.append("mutant %d: exit %d (kept as %s): %s" % (t, p.returncode, keep, p.stderr[-300:]))
            elif p.returncode == 1 and (path not in p.stderr or p.stderr.count("\n") != 1):
                bad.append("mutant %d: the error does not name the file in one line: %r" % (t, p.stderr))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print("PASS: %d mutants, no crash, every error names the file" % COUNT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
