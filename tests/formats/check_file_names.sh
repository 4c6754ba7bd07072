#!/bin/sh
# check_file_names.sh — no part of ScalAna builds or matches a run
# directory's file names by hand: every profile-<first>-<last>.sclp, its
# temporary, the ".sclp" suffix and the default scalana-<exe>-<p>p directory
# name go through include/scalana/run_files.h (formats/run_files.c).
# Fails listing each source line outside that API that spells one of them.
# usage: check_file_names.sh SOURCE_ROOT
root=${1:?usage: check_file_names.sh SOURCE_ROOT}
cd "$root" || exit 2
# A string literal beginning with the profile prefix, a printf format of one,
# the suffix as a literal or through its macro, the run directory pattern.
pattern='"\.?profile-[^*]|profile-%|"\.sclp"|SCALANA_PROFILE_SUFFIX|scalana-%s-%u?p'
found=$(grep -rnE "$pattern" runtime formats analyzer viewer plugin bench include \
            --include='*.c' --include='*.h' --include='*.cpp' --include='*.in' |
        grep -v '^formats/run_files\.c:' | grep -v '^include/scalana/run_files\.h:')
# The check must see the API itself (else the pattern is wrong).
api=$(grep -cE "$pattern" formats/run_files.c)
if [ "$api" -lt 2 ]; then
    echo "FAIL: the pattern no longer finds the names in formats/run_files.c"
    exit 1
fi
if [ -n "$found" ]; then
    echo "FAIL: file names built or matched outside include/scalana/run_files.h:"
    echo "$found"
    exit 1
fi
echo "PASS: run-directory file names only in formats/run_files.c"
