#!/usr/bin/env bash
# Bad input gives one line on stderr that names what is wrong, and a
# non-zero exit, before anything boots.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

# one_line NAME WANT CMD...: CMD fails, with exactly one stderr line containing WANT
one_line() {
	local name=$1 want=$2 rc=0 msg
	shift 2
	msg=$("$@" 2>&1 >/dev/null) || rc=$?
	if ((rc != 0)) && [[ $(wc -l <<<"$msg") -eq 1 && $msg == *"$want"* ]]; then
		pass "bad_input.$name" "exit $rc: $msg"
	else
		fail "bad_input.$name" "exit $rc: $msg"
	fi
}
run=$top/appliance/run.sh
runs=$out/runs

one_line unknown_trigger "unknown trigger 'nosuch'" "$run" --trigger nosuch --runs "$runs"
one_line bad_trigger_arg "syscall=opnat: unknown x86_64 syscall" \
	"$run" --trigger syscall_errno --args "syscall=opnat" --runs "$runs"
one_line unknown_trigger_key "colour: unknown parameter of trigger syscall_errno" \
	"$run" --trigger syscall_errno --args "syscall=openat colour=red" --runs "$runs"
one_line missing_kernel "kernel not built" \
	env BUILD="$out/no-build" "$run" --trigger syscall_errno --runs "$runs"
one_line missing_workload "/nonexistent/wl: workload not found" \
	"$run" --trigger syscall_errno --args "syscall=openat" --workload /nonexistent/wl --runs "$runs"
one_line bad_crashkernel "--crashkernel 'lots'" \
	"$run" --trigger syscall_errno --args "syscall=openat" --crashkernel lots --runs "$runs"
check bad_input.nothing_filed "runs dir: $(ls -A "$runs" 2>/dev/null | wc -l) entries" \
	test -z "$(ls -A "$runs" 2>/dev/null)"

one_line report_missing_run "/nonexistent/run: not a readable run directory" \
	"$top/analysis/report.sh" /nonexistent/run
mkdir -p "$out/unreadable" && chmod 000 "$out/unreadable"
if ((EUID == 0)); then
	# root reads anything: a run dir that is not one stands in for it
	one_line report_not_a_run "no run.meta" "$top/analysis/report.sh" "$out/unreadable"
else
	one_line report_unreadable_run "not a readable run directory" "$top/analysis/report.sh" "$out/unreadable"
fi
chmod 755 "$out/unreadable"
mkdir -p "$out/failed-run" && printf 'status=failed\nreason=the guest refused to arm: x\n' >"$out/failed-run/run.meta"
one_line report_run_without_vmcore "no vmcore to open (run status: failed: the guest refused to arm: x)" \
	"$top/analysis/report.sh" "$out/failed-run"
one_line crash_missing_run "/nonexistent/run: not a readable run directory" \
	"$top/analysis/open-crash.sh" /nonexistent/run
one_line collect_missing_staging "/nonexistent/stage/console.log" \
	"$build/collector/bpk-collect" --staging /nonexistent/stage --runs "$runs" --trigger x
one_line collect_bad_trigger_name "--trigger '../x': not a trigger name" \
	"$build/collector/bpk-collect" --staging "$out" --runs "$runs" --trigger ../x

# triggerctl's list works on the host, with no kernel of ours.
check bad_input.triggerctl_list_on_host "$("$build/triggers/triggerctl" list | head -1)" \
	grep -q '^syscall_errno: ' <("$build/triggers/triggerctl" list)
