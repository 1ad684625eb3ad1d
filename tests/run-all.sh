#!/usr/bin/env bash
# Run every test script given (default: tests/*.test.sh in name order) and
# end with "N passed, N failed". A script that exits non-zero without having
# printed a FAIL line counts as one failure, so a crash is never a pass.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

if (($#)); then scripts=("$@"); else scripts=("$here"/*.test.sh); fi
passed=0 failed=0
t_all=$(now_ms)
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
	rm -f "$log"
	passed=$((passed + p)) failed=$((failed + f))
	say "== $name: $p passed, $f failed in $(fmt_ms $(($(now_ms) - t0)))"
done
say "all tests took $(fmt_ms $(($(now_ms) - t_all)))"
echo "$passed passed, $failed failed"
((failed == 0))
