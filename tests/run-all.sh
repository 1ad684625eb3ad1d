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
build_dir=$(mkdir -p "${BUILD:-$here/../build}" && cd "${BUILD:-$here/../build}" && pwd)

# Tests that need no root do not run as root. Run by root, each script runs
# as the unprivileged user BPK_TEST_USER (bpk-test, made here when missing)
# through as-user.sh, unless it says "# needs root: WHY" on a line of its
# own; BPK_TESTS_AS_ROOT=1 runs every script as root, and says so.
test_user=${BPK_TEST_USER:-bpk-test}
all_as_root=0
if ((EUID == 0)); then
	if [[ ${BPK_TESTS_AS_ROOT:-} == 1 ]]; then
		say "BPK_TESTS_AS_ROOT=1: every test runs as root"
		all_as_root=1
	elif ! id -u "$test_user" >/dev/null 2>&1; then
		step "system user $test_user, for the tests that need no root"
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$test_user" || die "useradd $test_user failed"
		step_done "$(id "$test_user")"
	fi
fi
# hand_over: build/test-out belongs to the test user (what root's scripts
# left there too, so that the user's can read and replace it)
hand_over() {
	((EUID == 0 && !all_as_root)) || return 0
	chown -R "$test_user:" "$build_dir/test-out"
}
passed=0 failed=0
t_all=$(now_ms)
expected=$here/expected-counts
[[ -r $expected ]] || die "$expected: missing (a test script's least number of results, one NAME COUNT a line)"
# a stamp the tests that look at the whole of build/test-out (99) compare
# with: only this invocation's outputs count
mkdir -p "$build_dir/test-out"
touch "$build_dir/test-out/.started"
hand_over
for s in "${scripts[@]}"; do
	name=$(basename "$s" .test.sh)
	if ((EUID != 0)); then
		who=$(id -un) runner=(bash)
	elif ((all_as_root)) || grep -q '^# needs root: ' "$s"; then
		who=root runner=(bash)
	else
		who=$test_user runner=("$here/as-user.sh" "$test_user" "$build_dir" bash)
	fi
	say "== $name (as $who)"
	t0=$(now_ms)
	log=$(mktemp)
	set +e
	"${runner[@]}" "$s" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	[[ $who != root ]] || hand_over
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
