#!/bin/sh
# Runs the profile-decoder fuzzer for a bounded time; exits non-zero on any
# crash, hang, leak, sanitizer report or broken promise of the harness
# (docs/testing.md, "Fuzzing").
#   sh tests/fuzz/run-profile.sh FUZZER SECONDS WASP
set -eu
fuzzer=$1 seconds=$2 wasp=$3
seeds=tests/fuzz/corpus/profile
work=build/fuzz/corpus/profile     # what the fuzzer adds; kept between runs, not committed
crashes=build/fuzz/crashes/profile/
log=build/fuzz/profile.log

# The seeds must be profiles wasp reads, or the fuzzer starts from garbage.
for seed in "$seeds"/*; do
    if ! "$wasp" report --format json "$seed" >/dev/null; then
        echo "fuzz-profile: the seed $seed does not read" >&2
        exit 1
    fi
done

mkdir -p "$work" "$crashes"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -dict=tests/fuzz/profile.dict -artifact_prefix="$crashes" -print_final_stats=1 \
    "$work" "$seeds" >"$log" 2>&1 || status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
corpus=$(ls "$work" | wc -l)
if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "fuzz-profile: FAILED (exit $status) after ${runs:-?} inputs; the input is in $crashes," \
         "the whole log in $log; rerun it with: $fuzzer $crashes<file>" >&2
    exit 1
fi
echo "fuzz-profile: $runs inputs in $seconds s, no crash, hang, leak or sanitizer report" \
     "(peak RSS $rss MB, $corpus inputs in $work)"
