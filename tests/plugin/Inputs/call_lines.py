#!/usr/bin/python3
"""call_lines.py OBJECT FUNCTION CALLEE: the source line of every call (or
tail jump) to CALLEE in FUNCTION, one a line in address order, as the
analyzer resolves a call site (the return address minus one; a jump: its own
address), through llvm-objdump and llvm-addr2line (LLVM 19 on PATH)."""
import re
import subprocess
import sys

obj, fn, callee = sys.argv[1:4]
dis = subprocess.run(["llvm-objdump", "-d", "-r", "--no-show-raw-insn", "--disassemble-symbols=" + fn, obj],
                     capture_output=True, text=True, check=True).stdout
insns = []
for l in dis.splitlines():
    m = re.match(r"^\s*([0-9a-f]+):\s+(R_\S+\s+\S+)$", l)
    if m and insns:  # a relocation (object file): the callee of the instruction before
        a, op, rest = insns[-1]
        insns[-1] = (a, op, rest + " " + m.group(2))
        continue
    m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", l)
    if m:
        insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
addrs = []
for k, (a, op, rest) in enumerate(insns):
    if callee not in rest:
        continue
    if op.startswith("call") and k + 1 < len(insns):
        addrs.append(insns[k + 1][0] - 1)
    elif op.startswith("jmp"):
        addrs.append(a)
out = subprocess.run(["llvm-addr2line", "-e", obj] + ["0x%x" % a for a in addrs],
                     capture_output=True, text=True, check=True).stdout.split()
for loc in out:
    print("line", loc.rsplit(":", 1)[-1].split()[0])
