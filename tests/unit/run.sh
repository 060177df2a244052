#!/bin/sh
# Runs each cmocka test binary and prints one closing line: "N passed, N failed".
passed=0; failed=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); echo "$t: exited $rc"; fi
done
echo "unit: $passed passed, $failed failed"
[ $failed -eq 0 ]
