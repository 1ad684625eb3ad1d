#!/usr/bin/env bash
# Bad input gives one line on stderr that names what is wrong, and a
# non-zero exit, before anything boots.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out

runs=$out/runs
run=("$bpk" --runs "$runs" run)

one_line bad_input.unknown_trigger "unknown trigger 'nosuch'" "${run[@]}" nosuch
one_line bad_input.bad_trigger_arg "syscall=opnat: unknown x86_64 syscall" \
	"${run[@]}" syscall_errno syscall=opnat
one_line bad_input.unknown_trigger_key "colour: unknown parameter of trigger syscall_errno" \
	"${run[@]}" syscall_errno syscall=openat colour=red
# the trigger's parameters are good: only the kernel is missing
one_line bad_input.missing_kernel "not built: $out/no-build/kernel/bzImage" \
	env BUILD="$out/no-build" "${run[@]}" syscall_errno syscall=openat
one_line bad_input.missing_workload "/nonexistent/wl: no such readable file" \
	"${run[@]}" syscall_errno syscall=openat --workload /nonexistent/wl
one_line bad_input.bad_crashkernel "--crashkernel 'lots'" \
	"${run[@]}" syscall_errno syscall=openat --crashkernel lots
one_line bad_input.stall_zero "--stall '0' is not a positive number" \
	"${run[@]}" syscall_errno syscall=openat --stall 0
one_line bad_input.stall_word "--stall 'soon' is not a positive number" \
	"${run[@]}" syscall_errno syscall=openat --stall soon
one_line bad_input.panic_on_unknown "--panic-on 'softlockup,oom': 'oom' is not softlockup, hung or rcu" \
	"${run[@]}" syscall_errno syscall=openat --panic-on softlockup,oom
one_line bad_input.cold_restore "--cold and --restore exclude each other" \
	"${run[@]}" syscall_errno syscall=openat --cold --restore /nonexistent/snapshot
# names of the kernel that would boot, checked against its symbol table
one_line bad_input.tp_category "tp=bogus:sched_switch: no trace event category bogus in this kernel" \
	"${run[@]}" tracepoint tp=bogus:sched_switch
one_line bad_input.tp_event "tp=sched:sched_swtch: no tracepoint sched_swtch in this kernel" \
	"${run[@]}" tracepoint tp=sched:sched_swtch
one_line bad_input.func_name "func=do_unlinkt: no function do_unlinkt in this kernel" \
	"${run[@]}" func_entry func=do_unlinkt comm=rm
# (an event, not a category: without its debug package, which the first
# report fetches, a Debian kernel's names are its BTF's, and BTF does not
# name trace event categories)
one_line bad_input.tp_event_debian "tp=sched:sched_swtch: no tracepoint sched_swtch in this kernel (debian:" \
	"${run[@]}" --kernel debian tracepoint tp=sched:sched_swtch
check bad_input.nothing_filed "runs dir: $(find "$runs" -mindepth 1 2>/dev/null | wc -l) entries" \
	test -z "$(find "$runs" -mindepth 1 2>/dev/null)"

report=(/usr/bin/python3 "$top/analysis/report.py")
one_line bad_input.report_missing_run "/nonexistent/run: not a readable run directory" \
	"${report[@]}" /nonexistent/run
mkdir -p "$out/unreadable" && chmod 000 "$out/unreadable"
if ((EUID == 0)); then
	# root reads anything: a run dir that is not one stands in for it
	one_line bad_input.report_not_a_run "run.json: no run record" "${report[@]}" "$out/unreadable"
else
	one_line bad_input.report_unreadable_run "not a readable run directory" "${report[@]}" "$out/unreadable"
fi
chmod 755 "$out/unreadable"
mkdir -p "$out/failed-run" &&
	printf '{"schema_version": 1, "status": "failed", "reason": "the guest refused to arm: x"}\n' >"$out/failed-run/run.json"
one_line bad_input.report_run_without_vmcore "no vmcore to open (run status: failed: the guest refused to arm: x)" \
	"${report[@]}" "$out/failed-run"
one_line bad_input.crash_missing_run "/nonexistent/run: not a run directory" \
	"$bpk" crash /nonexistent/run
one_line bad_input.collect_missing_staging "/nonexistent/stage/console.log" \
	"$bpk" --runs "$runs" collect --staging /nonexistent/stage --trigger x
one_line bad_input.collect_bad_trigger_name "trigger '../x': not a trigger name" \
	"$bpk" --runs "$runs" collect --staging "$out" --trigger ../x

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
one_line bad_input.param_action_unknown "action=panic: not a fire action (auto, bpf_panic or crash_kexec)" "$tc" parse proc_exit action=panic
one_line bad_input.param_needs_value "syscall: needs a value" "$tc" parse syscall_errno syscall
# a trigger's name, never a path (disarm empties the directory it names)
one_line bad_input.disarm_not_a_trigger "unknown trigger '../../tmp'" "$tc" disarm ../../tmp
one_line bad_input.status_not_a_trigger "unknown trigger '../x'" "$tc" status ../x
# numbers beyond what the kernel can hold are refused, not wrapped or cut
one_line bad_input.param_pid_wraps "pid=4294967297: out of range (0-4194303" "$tc" parse proc_exit pid=4294967297
one_line bad_input.param_pid_above_limit "pid=4194304: out of range (0-4194303" "$tc" parse proc_exit pid=4194304
one_line bad_input.param_status_256 "status=256: out of range (0-255" "$tc" parse proc_exit status=256
one_line bad_input.param_signal_65 "signal=65: unknown signal" "$tc" parse fatal_signal signal=65
one_line bad_input.param_signal_0 "signal=0: unknown signal" "$tc" parse fatal_signal signal=0
one_line bad_input.param_tp_syscall_unknown "tp=syscalls:sys_enter_opnat: no syscall opnat" \
	"$tc" parse tracepoint tp=syscalls:sys_enter_opnat
one_line bad_input.param_tp_syscall_table_name "the event of syscall fstat is sys_enter_newfstat" \
	"$tc" parse tracepoint tp=syscalls:sys_enter_fstat
one_line bad_input.param_tp_syscall_form "tp=syscalls:openat: not syscalls:sys_enter_NAME or syscalls:sys_exit_NAME" \
	"$tc" parse tracepoint tp=syscalls:openat
# parsed: "trigger k=v ...", canonical
parsed() { # parsed NAME WANT TRIGGER ARGS...
	local name=$1 want=$2 got
	shift 2
	got=$("$tc" parse "$@" 2>&1) || true
	if [[ -n $got && $got == "$want" ]]; then
		pass "bad_input.$name" "$got"
	else
		fail "bad_input.$name" "want '$want', got: ${got:-nothing}"
	fi
}
parsed param_pid_max "proc_exit pid=4194303" proc_exit pid=4194303
parsed param_status_255 "proc_exit status=255" proc_exit status=255
# every signal has its name (libc's real-time numbering: SIGRTMIN is 34),
# and a name and its number give the same canonical text
for sig in SIGSTKFLT:16:SIGSTKFLT SIGPROF:27:SIGPROF SIGIO:29:SIGIO SIGPOLL:29:SIGIO \
	SIGPWR:30:SIGPWR SIGWINCH:28:SIGWINCH SIGRTMIN:34:SIGRTMIN RTMIN+1:35:SIGRTMIN+1 \
	SIGRTMAX-1:63:SIGRTMAX-1 SIGRTMAX:64:SIGRTMAX; do
	IFS=: read -r name num canon <<<"$sig"
	parsed "param_signal_$name" "fatal_signal signal=$canon" fatal_signal "signal=$name"
	parsed "param_signal_${name}_by_number" "fatal_signal signal=$canon" fatal_signal "signal=$num"
done
parsed param_signal_32 "fatal_signal signal=32" fatal_signal signal=32
parsed param_tp_syscall_exit "tracepoint tp=syscalls:sys_exit_newfstat" tracepoint tp=syscalls:sys_exit_newfstat

check bad_input.param_by_number "$("$tc" parse syscall_errno syscall=257 errno=28)" \
	test "$("$tc" parse syscall_errno syscall=257 errno=28)" = "syscall_errno syscall=openat errno=ENOSPC"

# triggerctl's list works on the host, with no kernel of ours.
check bad_input.triggerctl_list_on_host "$("$build/triggers/triggerctl" list | head -1)" \
	grep -q '^syscall_errno: ' <("$build/triggers/triggerctl" list)
