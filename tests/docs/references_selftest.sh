#!/bin/sh
# references_selftest.sh CHECKER WORKDIR — the reference check fails on a
# small repository whose comments and docs name missing files or a path
# outside it, names each of them, and passes once they are fixed.
set -eu
checker=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir/src" && cd "$dir" && git init -q .
cat > src/a.c <<'C'
/* a.c — see src/gone.c, vw_render.c and /work/other/notes/NOTES.md */
static const char *s = "out/report.c"; /* a string, not a reference */
int a(void) { return s != 0; }
C
printf '# Doc\nThe code is in src/a.c and `b.h`; built files (build/x.c) do not count.\n' > README.md
if python3 "$checker" "$dir" > out.txt 2>&1; then echo "FAIL: missing files not reported"; cat out.txt; exit 1; fi
for want in "src/a.c:1: src/gone.c" "src/a.c:1: vw_render.c" "src/a.c:1: /work/other/notes/NOTES.md" "README.md:2: b.h"; do
    grep -qF "$want" out.txt || { echo "FAIL: not reported: $want"; cat out.txt; exit 1; }
done
if grep -q 'report.c\|build/x.c\|src/a.c:.*src/a.c' out.txt; then echo "FAIL: a non-reference reported"; cat out.txt; exit 1; fi
[ "$(grep -c . out.txt)" = 5 ] || { echo "FAIL: expected 4 findings and a total"; cat out.txt; exit 1; }
# fixed: every name exists, no outside path
printf '/* a.c — see src/b.h and README.md */\nint a(void) { return 0; }\n' > src/a.c
: > src/b.h
printf '# Doc\nThe code is in src/a.c and `b.h`.\n' > README.md
python3 "$checker" "$dir" || { echo "FAIL: clean repository refused"; exit 1; }
echo "references_selftest: ok"
