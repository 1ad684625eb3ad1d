#!/usr/bin/env bash
# The off switch disarms, booted with the real appliance: a trigger armed
# with bpf_panic(), then kernel.destructive_bpf_enabled set to 0 and the
# trigger provoked: bpf_panic() comes back with -EPERM (the trigger's own
# record of it, read live by triggerctl status), no panic, the guest powers
# off normally. Then off means off: with the sysctl set back to 1 a second
# provocation is refused too (the program was loaded before the switch went
# off); triggerctl rearm loads it again with the same arguments, and the
# next provocation panics: the dump's fire record is the new program's.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

args="syscall=openat errno=ENOENT comm=bpk-disarm"
refused_line() {
	echo "syscall_errno refused: the fire action came back $1 time(s), last with -1 (EPERM: kernel.destructive_bpf_enabled was switched off since it was armed); it stays disarmed until it is loaded again (triggerctl rearm syscall_errno)"
}

# 1. off: no panic, the guest goes on and powers off.
rc=0
# shellcheck disable=SC2086 # the trigger's parameters, a word each
"$bpk" --runs "$out/off" run syscall_errno $args \
	--workload "$top/tests/disarm/off.sh" --timeout 240 \
	>"$out/off.out" 2>&1 || rc=$?
run=$(find "$out/off" -mindepth 1 -maxdepth 1 -type d -name '2*' | head -1)
if [[ -z $run || ! -r $run/guest.log || ! -r $run/console.log ]]; then
	fail disarm.off.filed "exit $rc, no run with guest.log and console.log: $(grep -m1 'error:' "$out/off.out" || tail -1 "$out/off.out")"
else
	check disarm.off.armed_with_bpf_panic "$(grep -m1 '^armed ' "$run/guest.log" || echo 'no armed line')" \
		grep -q '^armed syscall_errno (bpf_panic)' "$run/guest.log"
	check disarm.off.helper_returned_eperm "$(grep -m1 ' refused: ' "$run/guest.log" || echo 'no refused line')" \
		grep -qxF "$(refused_line 1)" "$run/guest.log"
	panics=$(grep -ac 'Kernel panic' "$run/console.log" || true)
	check disarm.off.no_panic "$panics panic lines in $(wc -l <"$run/console.log") console lines" \
		test "$panics" = 0 -a -s "$run/console.log"
	qexit=$(record_field "$run" qemu.exit 2>&1 || true)
	check disarm.off.powered_off_normally "$(grep -m1 '^JOB-EXIT' "$run/guest.log" || echo 'no JOB-EXIT'); qemu.exit=${qexit:-nothing}" \
		test "$qexit" = 0
	check disarm.off.no_dump "exit $rc; files: $(find "$run" -mindepth 1 -printf '%f ')" \
		test "$rc" = 1 -a ! -e "$run/vmcore"
fi

# 2. on again: still refused; rearm reloads; the next match panics.
rc=0
# shellcheck disable=SC2086
"$bpk" --runs "$out/on" run syscall_errno $args \
	--workload "$top/tests/disarm/on-again.sh" --timeout 240 \
	>"$out/on.out" 2>&1 || rc=$?
run=$(find "$out/on" -mindepth 1 -maxdepth 1 -type d -name '2*' | head -1)
if [[ -z $run || ! -r $run/report.txt ]]; then
	fail disarm.on_again.report "exit $rc, no report: $(grep -m1 'error:' "$out/on.out" || tail -1 "$out/on.out")"
	exit 0
fi
# the workload's triggerctl lines are in its own log; the job armed first
wl=$run/workload.log
check disarm.on_again.refused_first "$(grep -m1 ' refused: ' "$wl" || echo 'no refused line')" \
	grep -qxF "$(refused_line 1)" "$wl"
check disarm.on_again.still_refused_after_1 "$(grep ' refused: ' "$wl" | sed -n 2p | grep . || echo 'no second refused line')" \
	grep -qxF "$(refused_line 2)" "$wl"
armed=$(cat "$run/guest.log" "$wl" | grep -c '^armed syscall_errno (bpf_panic) ' || true)
check disarm.on_again.rearm_reloaded "$armed armed lines: $(cat "$run/guest.log" "$wl" | grep '^armed ' | tr '\n' ';')" \
	test "$armed" = 2
check disarm.on_again.panicked "exit $rc; $(grep -m1 '^PANIC:' "$run/report.txt" || echo 'no PANIC line')" \
	grep -qx 'PANIC: "Kernel panic - not syncing: bpf_panic trigger syscall_errno fired: '"$args"'"' "$run/report.txt"
rec=$(sed -n '/^== Fire record (read from the vmcore/,/^$/p' "$run/report.txt")
check disarm.on_again.record_is_the_reloaded_one "$(grep -E '^ +(hit|refused|refused_ret)=' <<<"$rec" | tr -s ' \n' ' ')" \
	test "$(grep -E '^ +(hit|refused|refused_ret)=' <<<"$rec" | tr -d ' ' | sort | tr '\n' ' ')" = "hit=1 refused=0 "
check_file_lacks disarm.on_again.survived_no_line "$wl" 'still alive after the provocation that follows rearm'
