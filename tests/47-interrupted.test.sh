#!/usr/bin/env bash
# An interrupted run stops its QEMU and files what exists. SIGTERM to bpk
# run mid-boot, with that run's QEMU stopped (SIGSTOP) so that only SIGKILL
# can end it; SIGTERM to bpk run mid-dump; SIGINT to the process group of
# "make run" (what Ctrl-C does) while the workload runs; SIGHUP to bpk run
# (its terminal closed) while armed. Each time: exit 128+N, no QEMU of that
# run left, the run filed with status interrupted, naming the signal, its
# console kept.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

# staging_file RUNS NAME: NAME in the run's staging dir, once it exists
staging_file() {
	find "$1" -path '*/.staging-*' -name "$2" 2>/dev/null | head -1
}

# wait_for DESCRIPTION SECONDS CMD...: poll CMD every 0.2 s
wait_for() {
	local what=$1 until=$(($(now_ms) + $2 * 1000))
	shift 2
	until "$@"; do
		if (($(now_ms) > until)); then
			echo "timed out waiting for $what"
			return 1
		fi
		sleep 0.2
	done
}

# booted RUNS: the staging console shows the kernel banner
booted() {
	local c
	c=$(staging_file "$1" console.log)
	[[ -n $c ]] && grep -q 'Linux version' "$c"
}
# dumping RUNS: the staging dump stream has passed 1 MiB
dumping() { [[ -n $(find "$1" -path '*/.staging-*/dump.flat' -size +1M 2>/dev/null) ]]; }

# gone PID: the process has exited (reaped or not)
gone() { ! kill -0 "$1" 2>/dev/null || [[ $(ps -o stat= -p "$1") == Z* ]]; }

# after NAME RC RUNS CONSOLE SIGNAL: the checks every interrupted run gets
after() {
	local name=$1 rc=$2 runs=$3 console=$4 sig=$5 num run left
	num=$(kill -l "$sig")
	check "$name.exit_128_plus_signal" "exit $rc" test "$rc" = $((128 + num))
	left=$(qemu_on "$console")
	# the probe found this run's QEMU before the signal (seen): it can see one
	check "$name.no_qemu_left" "QEMU on $console before the signal: ${seen:-none}; after: ${left:-none}" \
		test -n "$seen" -a -z "$left"
	# never leave a QEMU behind, even when the check above failed
	[[ -z $left ]] || kill -9 "$left" 2>/dev/null || true
	run=$(filed_runs "$runs" | tail -1)
	if [[ -z $run ]]; then
		fail "$name.filed" "nothing filed under $runs: $(find "$runs" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null)"
		return
	fi
	check_field "$name.filed_interrupted" "$run" status interrupted
	check_field_match "$name.reason_names_signal" "$run" reason "^interrupted by SIG$sig"
	check_file_has "$name.console_kept" "$run/console.log" 'Linux version'
	RUN=$run
}

# await_armed NAME RUNS: wait until a run under RUNS has armed its trigger
# (interrupt.NAME.armed, PASS with its state line or FAIL with why); sets
# console to that run's staging console
await_armed() {
	local results=''
	if wait_for "the trigger to be armed" 180 armed "$2" >"$out/$1.wait"; then
		results=$(staging_file "$2" results.txt)
		pass "interrupt.$1.armed" "$(grep -m1 '^BPK-STATE armed' "$results")"
	else
		fail "interrupt.$1.armed" "$(cat "$out/$1.wait")"
	fi
	console=$(dirname "${results:-$2/none/x}")/console.log
}
# signal_and_reap SIG TARGET PID: send SIG to TARGET (PID, or -PGID for a
# process group), give PID 90 s to end (then SIGKILL TARGET), reap it; sets rc
signal_and_reap() {
	kill "-$1" -- "$2" 2>/dev/null || true
	rc=0
	wait_for "pid $3 to end" 90 gone "$3" >/dev/null || kill -KILL -- "$2" 2>/dev/null || true
	wait "$3" || rc=$?
}

# 1. SIGTERM mid-boot; QEMU stopped, so bpk must fall back to SIGKILL
runs=$out/runs-boot
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--timeout 300 >"$out/boot.out" 2>"$out/boot.err" &
pid=$!
console='' qemu=''
if wait_for "the boot" 120 booted "$runs" >"$out/boot.wait"; then
	console=$(staging_file "$runs" console.log)
	qemu=$(qemu_on "$console")
fi
if [[ -z $qemu ]]; then
	fail interrupt.boot.qemu_found "$(cat "$out/boot.wait") (console ${console:-none})"
else
	pass interrupt.boot.qemu_found "pid $qemu on $console"
	kill -STOP "$qemu"
fi
seen=$qemu
signal_and_reap TERM "$pid" "$pid"
after interrupt.boot "$rc" "$runs" "${console:-$runs/none}" TERM
check_file_has interrupt.boot.sigkill_fallback "$out/boot.err" 'still running 5s after SIGTERM: SIGKILL'

# 2. SIGTERM while the dump streams out
runs=$out/runs-dump
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--timeout 300 >"$out/dump.out" 2>"$out/dump.err" &
pid=$!
flat=''
if wait_for "the dump" 240 dumping "$runs" >"$out/dump.wait"; then
	flat=$(staging_file "$runs" dump.flat)
	pass interrupt.dump.under_way "$flat: $(stat -c %s "$flat") bytes"
else
	fail interrupt.dump.under_way "$(cat "$out/dump.wait")"
fi
console=$(dirname "${flat:-$runs/none/x}")/console.log
seen=$(qemu_on "$console")
signal_and_reap TERM "$pid" "$pid"
RUN=''
after interrupt.dump "$rc" "$runs" "$console" TERM
if [[ -n $RUN ]]; then
	check interrupt.dump.stream_kept "$(find "$RUN" -mindepth 1 -printf '%f ')" test -s "$RUN/vmcore.incomplete"
	check_field_match interrupt.dump.reason_says_dump_under_way "$RUN" reason 'the dump was under way'
fi

# 3. Ctrl-C: SIGINT to the whole process group of "make run", while the
# workload runs (it never fires: errno=ENOSPC, REPEAT=0). env resets SIGINT,
# which a background job starts with ignored.
runs=$out/runs-make
setsid env --default-signal=INT make -s run TRIGGER=syscall_errno \
	ARGS="syscall=openat errno=ENOSPC comm=bpk-demo" REPEAT=0 TIMEOUT=300 RUNS="$runs" \
	>"$out/make.out" 2>"$out/make.err" &
pid=$!
await_armed make "$runs"
sleep 2
seen=$(qemu_on "$console")
signal_and_reap INT "-$pid" "$pid"
after interrupt.make "$rc" "$runs" "$console" INT
check_file_has interrupt.make.says_so "$out/make.err" 'interrupted by SIGINT'

# 4. SIGHUP (the terminal closed) to bpk run while the trigger is armed
runs=$out/runs-hup
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOSPC comm=bpk-demo --repeat 0 \
	--timeout 300 >"$out/hup.out" 2>"$out/hup.err" &
pid=$!
await_armed hup "$runs"
seen=$(qemu_on "$console")
signal_and_reap HUP "$pid" "$pid"
after interrupt.hup "$rc" "$runs" "$console" HUP
