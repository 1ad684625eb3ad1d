#!/usr/bin/env bash
# Run every test script given (default: tests/*.test.sh in name order) and
# end with "N passed, N failed". A script that exits non-zero without having
# printed a FAIL line counts as one failure, so a crash is never a pass;
# so does one whose check names (its PASS and FAIL lines on stdout) are not
# those tests/expected/NAME lists: one missing was skipped (an early exit
# after a failure would hide the checks after it), one not listed is new.
#
# Scripts run BPK_TEST_JOBS at a time (default: one more than the cores): a
# booted test keeps about one core busy (QEMU's TCG, then crash) and leaves
# some of it idle (a guest waiting on a timer or a detector), so on two
# cores three side by side take less than half the wall time of one. Each script's output is
# kept and printed whole when it ends. A script's header places it:
#   "# runs first: WHY"   before every other, alone
#   "# starts early: N min, WHY" ahead of the rest, the longest first (so
#                         that the end is not one long script alone)
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
# tests/expected/NAME: the names of the checks script NAME reports, one a
# line (BPK_TESTS_WRITE_EXPECTED=1 writes them from a run that passed)
expected=$here/expected
if [[ ${BPK_TESTS_WRITE_EXPECTED:-} == 1 ]]; then
	mkdir -p "$expected"
fi
[[ -d $expected ]] || die "$expected: missing (the names of each script's checks)"
jobs=${BPK_TEST_JOBS:-}
if [[ -z $jobs ]]; then
	# one more than the cores: a booted script leaves about a third of a
	# core idle (its guest waiting on a timer, a detector, the host)
	jobs=$(($(nproc) + 1))
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
# minutes SCRIPT: what its "# starts early: N min ..." line says it takes
minutes() { sed -n 's/^# starts early: \([0-9]*\) min.*/\1/p' "$1" | head -1; }
declare -A rank_of
for s in "${scripts[@]}"; do rank_of[$s]=$(rank "$s"); done
queue=()
for r in 0 1 2 3; do
	if ((r == 1)); then
		# the longest first
		while read -r _ s; do queue+=("$s"); done < <(
			for s in "${scripts[@]}"; do
				if [[ ${rank_of[$s]} == 1 ]]; then echo "$(minutes "$s") $s"; fi
			done | sort -s -k1,1nr
		)
		continue
	fi
	for s in "${scripts[@]}"; do
		if [[ ${rank_of[$s]} == "$r" ]]; then queue+=("$s"); fi
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
	# $log: stdout and stderr as they came, to show; $log.out: stdout
	# alone, where the results are read (a PASS some tool printed on
	# stderr is not a result)
	local log=$logs/$name.log
	: >"$log"
	if ((jobs == 1)); then
		say "== $name (as $who)"
		(
			set -o pipefail
			"${runner[@]}" "$s" </dev/null 2> >(tee -a "$log" >&2) | tee -a "$log" "$log.out"
		) &
	else
		(
			set -o pipefail
			# shellcheck disable=SC2094 # both append to $log, on purpose
			"${runner[@]}" "$s" </dev/null 2>>"$log" | tee -a "$log" >"$log.out"
		) &
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
	local p f list got missing extra
	p=$(grep -c '^PASS ' "$log.out" || true)
	f=$(grep -c '^FAIL ' "$log.out" || true)
	if ((rc != 0 && f == 0)); then
		echo "FAIL $name: script exited with status $rc without reporting a failure"
		f=1
	fi
	if ((p + f == 0)); then
		echo "FAIL $name: script reported no result"
		f=1
	fi
	# the names of its checks against the list of them: one missing was
	# skipped (an early exit, a branch not taken), one not on the list is
	# new and goes on it with the change that added it
	list=$expected/$name
	got=$(sed -n 's/^\(PASS\|FAIL\) \([^ ]*\): .*/\2/p' "$log.out" | LC_ALL=C sort -u)
	if [[ ${BPK_TESTS_WRITE_EXPECTED:-} == 1 ]] && ((f == 0)); then
		printf '%s\n' "$got" >"$list"
		say "$list: written, $(wc -l <"$list") check names"
	fi
	if [[ ! -r $list ]]; then
		echo "FAIL $name: no $list (the names of its checks, one a line)"
		f=$((f + 1))
	else
		missing=$(LC_ALL=C comm -23 <(LC_ALL=C sort -u "$list") <(printf '%s\n' "$got") | tr '\n' ' ')
		extra=$(LC_ALL=C comm -13 <(LC_ALL=C sort -u "$list") <(printf '%s\n' "$got") | tr '\n' ' ')
		if [[ -n $missing ]]; then
			echo "FAIL $name: checks not reported (skipped): $missing"
			f=$((f + 1))
		fi
		if [[ -n $extra ]]; then
			echo "FAIL $name: checks not in $list: $extra"
			f=$((f + 1))
		fi
	fi
	passed=$((passed + p)) failed=$((failed + f))
	say "== $name: $p passed, $f failed in $(fmt_ms $(($(now_ms) - t0)))"
}

for s in "${queue[@]}"; do
	r=${rank_of[$s]}
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
