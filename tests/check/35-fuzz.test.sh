#!/usr/bin/env bash
# A short pass of every libFuzzer target (bpk/fuzz/: the parsers of guest
# bytes, the trigger-argument parser, the run record's reader, the escape
# of guest text), each from its committed seeds for FUZZ_SECONDS (2) with
# ASan and UBSan: a crash, a sanitizer report or a broken invariant of the
# target is a failure, named with the input that caused it. make fuzz runs
# them for longer.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out

secs=${FUZZ_SECONDS:-2}
for src in "$top"/bpk/fuzz/fuzz-*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz-}
	bin=$build/fuzz/fuzz-$name
	if [[ ! -x $bin ]]; then
		fail "fuzz.$name" "$bin missing: run make check (it builds make fuzz-build)"
		continue
	fi
	mkdir -p "$out/corpus-$name" "$out/artifacts-$name"
	rc=0
	(cd "$out" && TMPDIR=/dev/shm "$bin" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$out/artifacts-$name/" "$out/corpus-$name" "$top/bpk/fuzz/seeds/$name") \
		>"$out/$name.log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
	art=$(find "$out/artifacts-$name" -type f | head -1)
	if ((rc == 0)) && [[ -n $runs && $runs -gt 0 && -z $art ]]; then
		pass "fuzz.$name" "$runs inputs in ${secs}s, no crash"
	else
		fail "fuzz.$name" "exit $rc after ${runs:-0} inputs: $(grep -m1 -E 'ERROR|runtime error|deadly' "$out/$name.log" || tail -1 "$out/$name.log")${art:+ (input: $art)}"
	fi
done
