#!/usr/bin/env bash
# Run every test script given (default: tests/*.test.sh in name order) and
# end with "N passed, N failed". A script that exits non-zero without having
# printed a FAIL line counts as one failure, so a crash is never a pass;
# so does one that reports fewer results than tests/expected-counts says it
# has (an early exit after a failure would hide the checks after it), or
# that has no count there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

if (($#)); then scripts=("$@"); else scripts=("$here"/*.test.sh); fi
passed=0 failed=0
t_all=$(now_ms)
expected=$here/expected-counts
[[ -r $expected ]] || die "$expected: missing (a test script's least number of results, one NAME COUNT a line)"
# a stamp the tests that look at the whole of build/test-out (99) compare
# with: only this invocation's outputs count
mkdir -p "${BUILD:-$here/../build}/test-out"
touch "${BUILD:-$here/../build}/test-out/.started"
for s in "${scripts[@]}"; do
	name=$(basename "$s" .test.sh)
	say "== $name"
	t0=$(now_ms)
	log=$(mktemp)
	set +e
	bash "$s" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	p=$(grep -c '^PASS ' "$log" || true)
	f=$(grep -c '^FAIL ' "$log" || true)
	if ((rc != 0 && f == 0)); then
		echo "FAIL $name: script exited with status $rc without reporting a failure"
		f=1
	fi
	if ((p + f == 0)); then
		echo "FAIL $name: script reported no result"
		f=1
	fi
	want=$(awk -v n="$name" '$1 == n { print $2 }' "$expected")
	if [[ -z $want ]]; then
		echo "FAIL $name: no entry in $expected (its least number of results)"
		f=$((f + 1))
	elif ((p + f < want)); then
		echo "FAIL $name: $((p + f)) results, at least $want expected: checks were skipped"
		f=$((f + 1))
	fi
	rm -f "$log"
	passed=$((passed + p)) failed=$((failed + f))
	say "== $name: $p passed, $f failed in $(fmt_ms $(($(now_ms) - t0)))"
done
say "all tests took $(fmt_ms $(($(now_ms) - t_all)))"
echo "$passed passed, $failed failed"
((failed == 0))
