#!/bin/sh
# check_exports.sh — libscalana-cupti.so must export InitializeInjection and
# nothing else (it is loaded into every CUDA process of a run), and must link
# the real CUPTI.   usage: check_exports.sh LIBRARY
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$syms" = "InitializeInjection " ] || { echo "FAIL: exports: $syms"; exit 1; }
readelf -d "$lib" | grep -q 'NEEDED.*libcupti\.so' || { echo "FAIL: does not link libcupti"; exit 1; }
ldd "$lib" | grep -q 'not found' && { echo "FAIL: unresolved: $(ldd "$lib")"; exit 1; }
echo PASS
