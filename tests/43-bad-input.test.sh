#!/usr/bin/env bash
# Bad input gives one line on stderr that names what is wrong, and a
# non-zero exit, before anything boots.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

run=$top/appliance/run.sh
runs=$out/runs

one_line bad_input.unknown_trigger "unknown trigger 'nosuch'" "$run" --trigger nosuch --runs "$runs"
one_line bad_input.bad_trigger_arg "syscall=opnat: unknown x86_64 syscall" \
	"$run" --trigger syscall_errno --args "syscall=opnat" --runs "$runs"
one_line bad_input.unknown_trigger_key "colour: unknown parameter of trigger syscall_errno" \
	"$run" --trigger syscall_errno --args "syscall=openat colour=red" --runs "$runs"
one_line bad_input.missing_kernel "kernel not built" \
	env BUILD="$out/no-build" "$run" --trigger syscall_errno --runs "$runs"
one_line bad_input.missing_workload "/nonexistent/wl: workload not found" \
	"$run" --trigger syscall_errno --args "syscall=openat" --workload /nonexistent/wl --runs "$runs"
one_line bad_input.bad_crashkernel "--crashkernel 'lots'" \
	"$run" --trigger syscall_errno --args "syscall=openat" --crashkernel lots --runs "$runs"
check bad_input.nothing_filed "runs dir: $(find "$runs" -mindepth 1 2>/dev/null | wc -l) entries" \
	test -z "$(find "$runs" -mindepth 1 2>/dev/null)"

one_line bad_input.report_missing_run "/nonexistent/run: not a readable run directory" \
	"$top/analysis/report.sh" /nonexistent/run
mkdir -p "$out/unreadable" && chmod 000 "$out/unreadable"
if ((EUID == 0)); then
	# root reads anything: a run dir that is not one stands in for it
	one_line bad_input.report_not_a_run "no run.meta" "$top/analysis/report.sh" "$out/unreadable"
else
	one_line bad_input.report_unreadable_run "not a readable run directory" "$top/analysis/report.sh" "$out/unreadable"
fi
chmod 755 "$out/unreadable"
mkdir -p "$out/failed-run" && printf 'status=failed\nreason=the guest refused to arm: x\n' >"$out/failed-run/run.meta"
one_line bad_input.report_run_without_vmcore "no vmcore to open (run status: failed: the guest refused to arm: x)" \
	"$top/analysis/report.sh" "$out/failed-run"
one_line bad_input.crash_missing_run "/nonexistent/run: not a readable run directory" \
	"$top/analysis/open-crash.sh" /nonexistent/run
one_line bad_input.collect_missing_staging "/nonexistent/stage/console.log" \
	"$build/collector/bpk-collect" --staging /nonexistent/stage --runs "$runs" --trigger x
one_line bad_input.collect_bad_trigger_name "--trigger '../x': not a trigger name" \
	"$build/collector/bpk-collect" --staging "$out" --runs "$runs" --trigger ../x

# Trigger parameters are checked before anything is loaded (here: on the host).
tc=$build/triggers/triggerctl
one_line bad_input.param_bad_signal "signal=SIGFOO: unknown signal" "$tc" parse fatal_signal signal=SIGFOO
one_line bad_input.param_errno_number_unknown "errno=9999: unknown errno" "$tc" parse syscall_errno syscall=openat errno=9999
one_line bad_input.param_count_zero "count=0: not a whole number >= 1" "$tc" parse proc_exit count=0
one_line bad_input.param_count_text "count=many: not a whole number >= 1" "$tc" parse proc_exit count=many
one_line bad_input.param_flag_value "dry_run=2: a flag is given alone" "$tc" parse proc_exit dry_run=2
one_line bad_input.param_comm_too_long "longer than 15 characters" "$tc" parse proc_exit comm=a-very-long-command-name
one_line bad_input.param_uprobe_target "target=main: not /path/to/binary:symbol" "$tc" parse uprobe target=main
one_line bad_input.param_tracepoint "tp=sched_switch: not category:name" "$tc" parse tracepoint tp=sched_switch
one_line bad_input.param_func_name "func=do;reboot: not a kernel function name" "$tc" parse func_entry "func=do;reboot"
one_line bad_input.param_missing_required "trigger func_entry needs func=" "$tc" parse func_entry
one_line bad_input.param_given_twice "errno: given twice" "$tc" parse syscall_errno syscall=openat errno=EIO errno=EAGAIN
one_line bad_input.param_needs_value "syscall: needs a value" "$tc" parse syscall_errno syscall
check bad_input.param_by_number "$("$tc" parse syscall_errno syscall=257 errno=28)" \
	test "$("$tc" parse syscall_errno syscall=257 errno=28)" = "syscall_errno syscall=openat errno=ENOSPC"

# triggerctl's list works on the host, with no kernel of ours.
check bad_input.triggerctl_list_on_host "$("$build/triggers/triggerctl" list | head -1)" \
	grep -q '^syscall_errno: ' <("$build/triggers/triggerctl" list)
