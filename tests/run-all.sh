#!/usr/bin/env bash
# Run every test script given (default: tests/*.test.sh in name order) and
# end with "N passed, N failed". A script that exits non-zero without having
# printed a FAIL line counts as one failure, so a crash is never a pass;
# so does one that reports fewer results than tests/expected-counts says it
# has (an early exit after a failure would hide the checks after it), or
# that has no count there.
#
# Scripts run BPK_TEST_JOBS at a time (default 2 on a machine of 2 cores or
# more): a booted test keeps about one core busy (QEMU's TCG, then crash),
# so two side by side nearly halve the wall time. Each script's output is
# kept and printed whole when it ends. A script's header places it:
#   "# runs first: WHY"   before every other, alone
#   "# starts early: WHY" ahead of the rest (the longest ones, so that the
#                         end is not one long script running by itself)
#   "# runs last: WHY"    after every other, alone
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
# the scripts running: pid -> name, user, start time, log
declare -A job_name job_who job_t0 job_log
running=0

# hand_over: build/test-out belongs to the test user (what root's scripts
# left there too, so that the user's can read and replace it), all but the
# outputs of root's scripts still running: a home under one of them must
# stay its user's for sshd to accept it
hand_over() {
	((EUID == 0 && !all_as_root)) || return 0
	local e pid keep
	chown "$test_user:" "$build_dir/test-out"
	for e in "$build_dir/test-out"/* "$build_dir/test-out"/.[!.]*; do
		[[ -e $e || -L $e ]] || continue
		keep=0
		for pid in "${!job_name[@]}"; do
			if [[ ${job_who[$pid]} == root && ${e##*/} == "${job_name[$pid]}.test" ]]; then keep=1; fi
		done
		((keep)) || chown -R "$test_user:" "$e"
	done
}
passed=0 failed=0
t_all=$(now_ms)
expected=$here/expected-counts
[[ -r $expected ]] || die "$expected: missing (a test script's least number of results, one NAME COUNT a line)"
jobs=${BPK_TEST_JOBS:-}
if [[ -z $jobs ]]; then
	jobs=1
	if (($(nproc) >= 2)); then jobs=2; fi
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "BPK_TEST_JOBS=$jobs: not a number of scripts at a time (1 or more)"
# a stamp the tests that look at the whole of build/test-out (99) compare
# with: only this invocation's outputs count
mkdir -p "$build_dir/test-out"
touch "$build_dir/test-out/.started"
hand_over
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# rank SCRIPT: 0 runs first, 1 starts early, 2 the rest, 3 runs last
rank() {
	if grep -q '^# runs first: ' "$1"; then echo 0
	elif grep -q '^# starts early: ' "$1"; then echo 1
	elif grep -q '^# runs last: ' "$1"; then echo 3
	else echo 2; fi
}
queue=()
for r in 0 1 2 3; do
	for s in "${scripts[@]}"; do
		if [[ $(rank "$s") == "$r" ]]; then queue+=("$s"); fi
	done
done

start() {
	local s=$1 name who runner
	name=$(basename "$s" .test.sh)
	if ((EUID != 0)); then
		who=$(id -un) runner=(bash)
	elif ((all_as_root)) || grep -q '^# needs root: ' "$s"; then
		who=root runner=(bash)
	else
		who=$test_user runner=("$here/as-user.sh" "$test_user" "$build_dir" bash)
	fi
	local log=$logs/$name.log
	if ((jobs == 1)); then
		say "== $name (as $who)"
		(
			set -o pipefail
			"${runner[@]}" "$s" 2>&1 </dev/null | tee "$log"
		) &
	else
		"${runner[@]}" "$s" >"$log" 2>&1 </dev/null &
	fi
	job_name[$!]=$name job_who[$!]=$who job_t0[$!]=$(now_ms) job_log[$!]=$log
	running=$((running + 1))
	((jobs == 1)) || say "started $name (as $who; $running running)"
}

# finish: wait for any script to end, print its output and count it
finish() {
	local pid rc=0
	wait -n -p pid || rc=$?
	[[ -n ${pid:-} && -n ${job_name[$pid]:-} ]] || die "wait returned no script of ours (status $rc)"
	running=$((running - 1))
	local name=${job_name[$pid]} who=${job_who[$pid]} log=${job_log[$pid]} t0=${job_t0[$pid]}
	unset "job_name[$pid]"
	[[ $who != root ]] || hand_over
	if ((jobs > 1)); then
		say "== $name (as $who)"
		cat "$log"
	fi
	local p f want
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
	passed=$((passed + p)) failed=$((failed + f))
	say "== $name: $p passed, $f failed in $(fmt_ms $(($(now_ms) - t0)))"
}

for s in "${queue[@]}"; do
	r=$(rank "$s")
	if ((r == 0 || r == 3)); then
		while ((running > 0)); do finish; done
		start "$s"
		finish
		continue
	fi
	while ((running >= jobs)); do finish; done
	start "$s"
done
while ((running > 0)); do finish; done
say "all tests took $(fmt_ms $(($(now_ms) - t_all))) ($jobs at a time)"
echo "$passed passed, $failed failed"
((failed == 0))
