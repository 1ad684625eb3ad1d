#!/usr/bin/env bash
# Every trigger for real: its README example, run as written (bpk run ...),
# panics the guest, and the filed run's report shows that trigger's fire
# record, read from the vmcore. Then the crash_kexec fallback: with the
# destructive sysctl off, bpf_panic() is unavailable and a trigger fires
# through the kfunc; a uprobe trigger, which cannot, is refused.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

# first FILE REGEX: the first line of FILE matching REGEX, or what is missing
# (a check's detail names what it observed, never nothing)
first() {
	[[ -r $1 ]] || { echo "no $1"; return; }
	grep -m1 -E "$2" "$1" || echo "no line like '$2' in $1"
}

runs=$out/runs
mkdir -p "$runs"
# the README's lines run bpk as installed: the clone's own build on PATH
PATH=$(dirname "$bpk"):$PATH
mapfile -t names < <("$build/triggers/triggerctl" list | sed -n 's/^\([a-z_]*\): .*/\1/p')
for name in "${names[@]}"; do
	line=$(grep -E "^bpk run $name .* --workload " README.md | head -1 || true)
	args=$("$build/triggers/triggerctl" list | awk -v n="$name" '$0 ~ "^" n ": " { on = 1 }
		on && /example: triggerctl arm/ { sub(/.*triggerctl arm [a-z_]+ /, ""); print; exit }')
	if [[ -z $line ]]; then
		fail "real.$name.readme_example" "README.md has no 'bpk run $name ... --workload FILE' line"
		continue
	fi
	check "real.$name.readme_matches_table" "$line" test -n "$args" -a "${line%% --workload *}" = "bpk run $name $args"
	rc=0
	before=$(find "$runs" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
	# the README line, as written, with the runs filed under this test
	bash -c "$line --runs $runs" >"$out/$name.out" 2>&1 || rc=$?
	run=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name "2*-$name" | sort | tail -1)
	after=$(find "$runs" -mindepth 1 -maxdepth 1 -type d | wc -l)
	if ((rc != 0)) || [[ -z $run ]] || ((after != before + 1)) || [[ ! -r $run/report.txt ]]; then
		fail "real.$name.run" "exit $rc: $(grep -m1 'error:' "$out/$name.out" || tail -1 "$out/$name.out")"
		continue
	fi
	pass "real.$name.run" "$run"
	rec=$(sed -n '/^== Fire record (read from the vmcore/,/^$/p' "$run/report.txt")
	fields=$(grep -E '^ +(trigger|comm|action|detail)=' <<<"$rec" | tr -s ' \n' ' ' || true)
	check "real.$name.fire_record" "${fields:-no fire record in $run/report.txt}" \
		grep -qx "   trigger=$name" <<<"$rec"
	check "real.$name.panic_message" "$(first "$run/report.txt" '^PANIC:')" \
		grep -q "^PANIC: \"Kernel panic - not syncing: bpf_panic trigger $name fired: " "$run/report.txt"
	if [[ $name == cpu_hog ]]; then
		# the perf_event path: bpf_panic() called from the sampling event's
		# overflow handler (under TCG a timer interrupt, not an NMI)
		bt=$(sed -n '/^== Backtrace of the panicking task (crash bt)/,/^$/p' "$run/report.txt")
		check real.cpu_hog.perf_event_path "$(grep -oE 'bpf_panic|bpf_overflow_handler|__perf_event_overflow|perf_swevent_hrtimer' <<<"$bt" | tr '\n' ' ' || true)" \
			test "$(grep -oE 'bpf_panic|bpf_overflow_handler|__perf_event_overflow|perf_swevent_hrtimer' <<<"$bt" | tr '\n' ' ' || true)" = "bpf_panic bpf_overflow_handler __perf_event_overflow perf_swevent_hrtimer "
	fi
done

# The kfunc path on our kernel: action=crash_kexec (a stock kernel's only
# action), with the switch on.
rc=0
"$bpk" --runs "$out/fallback" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	action=crash_kexec --workload triggers/examples/syscall_errno.sh \
	>"$out/fallback.out" 2>&1 || rc=$?
run=$(find "$out/fallback" -mindepth 1 -maxdepth 1 -type d -name '2*' | head -1)
check fallback.run_succeeds "exit $rc: $(first "$out/fallback.out" 'error:|run filed')" \
	test "$rc" = 0 -a -n "$run"
if [[ -n $run && -r $run/report.txt ]]; then
	check fallback.armed_with_kfunc "$(first "$run/guest.log" '^armed ')" \
		grep -Eq '^armed syscall_errno \(crash_kexec\) ' "$run/guest.log"
	check fallback.record_action "$(first "$run/report.txt" '^ +action=')" \
		grep -qx '   action=crash_kexec' "$run/report.txt"
	# crash_kexec() does not panic: crash has no panic message to show
	check fallback.no_panic_message "$(first "$run/report.txt" '^PANIC:')" \
		grep -qx 'PANIC: ""' "$run/report.txt"
	check fallback.record_trigger "$(first "$run/report.txt" '^ +trigger=')" \
		grep -qx '   trigger=syscall_errno' "$run/report.txt"
else
	fail fallback.report "no report: ${run:-no run filed under $out/fallback}"
fi
# a uprobe program cannot call the kfunc: refused before boot
rc=0
"$bpk" --runs "$out/fallback-uprobe" run uprobe target=/etc/bpk/workload:app_assert_failed \
	action=crash_kexec --workload "$build/examples/uprobe" \
	>"$out/fallback-uprobe.out" 2>&1 || rc=$?
err=$(grep -m1 'error:' "$out/fallback-uprobe.out" || true)
# an empty $err (no error line at all) must not pass
if [[ $rc == 2 && $err == *"action=crash_kexec: uprobe is not a tracing program"* ]]; then
	pass fallback.uprobe_refused "exit $rc: $err"
else
	fail fallback.uprobe_refused "exit $rc, want 2 and 'action=crash_kexec: uprobe is not a tracing program': ${err:-no error line}"
fi
# One switch: with kernel.destructive_bpf_enabled left at 0, our kernel
# refuses the kfunc as well as bpf_panic(), so nothing arms
rc=0
"$bpk" --runs "$out/switch-off" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	action=crash_kexec --sysctl-off --workload triggers/examples/syscall_errno.sh \
	>"$out/switch-off.out" 2>&1 || rc=$?
err=$(grep -m1 'error:' "$out/switch-off.out" || true)
if [[ $rc == 1 && $err == *"action=crash_kexec: kernel.destructive_bpf_enabled is 0, and it governs every destructive call"* ]]; then
	pass fallback.switch_off_refuses_kfunc "exit $rc: $err"
else
	fail fallback.switch_off_refuses_kfunc "exit $rc, want 1 and the switch named: ${err:-no error line}"
fi
