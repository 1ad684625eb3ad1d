#!/usr/bin/env bash
# A dump for hangs that never panic by themselves, on our kernel:
#  1. LKDTM's hard lockup (a CPU spinning with interrupts off: nothing in
#     the guest can see it under TCG) with --stall 10: no output for 10 s,
#     the host injects an NMI, the guest panics on it (unknown_nmi_panic)
#     and dumps through kdump; the run says stall, the dump hard_lockup,
#     naming the CPU found with interrupts off in lkdtm_HARDLOCKUP, and
#     the report shows every CPU's stack;
#  2. LKDTM's soft lockup with --panic-on softlockup (watchdog_thresh=5):
#     the soft-lockup detector's panic, cause soft_lockup;
#  3. LKDTM's hung task with --panic-on hung (hung_task_timeout_secs=5):
#     cause hung_task;
#  4. the soft lockup again, grace periods asked for on the other CPU
#     (tests/stall/rcu-stall.sh), with --panic-on rcu and no --stall
#     (rcu_cpu_stall_timeout=5, the soft-lockup detector pushed out to
#     120 s): the RCU stall detector panics, cause rcu_stall;
#  5. a workload that prints a line a second on its own port for 12 s,
#     with --stall 5: its output is progress, no NMI, and its sysrq is
#     the cause.
# For 2-4 the task the detector names (the hung task, the soft-locked
# CPU's task, the task on the CPU RCU says stalls) is the one report.json
# names from the kernel log, with the pid the console printed, and
# report.txt's "Who blocked whom" comes before its panic.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"
watch_qemu "$out/"

# one NAME ARGS...: bpk run none ... filed under $out/NAME; sets run, rc
one() {
	local name=$1
	shift
	rc=0
	"$bpk" --runs "$out/$name" run none --timeout 300 "$@" >"$out/$name.out" 2>&1 || rc=$?
	run=$(filed_runs "$out/$name" | tail -1)
	check "$name.dumped" "exit $rc: $(grep -m1 -E 'error:|run filed' "$out/$name.out" || tail -1 "$out/$name.out")" \
		test "$rc" = 0 -a -n "$run" -a -s "${run:-/nonexistent}/vmcore"
}
# report_cause NAME WANT: report.json's cause.dump
report_cause() {
	local got
	got=$(json_value "${run:-/nonexistent}/report.json" "[d['cause']['dump'], d['cause']['agree']]")
	check "$1.report_cause" "report.json cause.dump, agree: $got" test "$got" = "[\"$2\", true]"
}
# named NAME ROLE PID: report.json names pid PID from the kernel log as
# ROLE, and report.txt puts who blocked whom before the panic
named() {
	local got
	got=$(json_value "${run:-/nonexistent}/report.json" "[(n['role'], n['pid'], n.get('from')) for n in d['tasks']['named']]")
	check "$1.named_from_log" "report.json tasks.named: $got; the console's pid: ${3:-none}" \
		test -n "$3" -a "$got" = "[[\"$2\", $3, \"kernel log\"]]"
	got=$(grep -oE '^== (Who blocked whom|Panic$)' "${run:-/nonexistent}/report.txt" 2>/dev/null | cut -c4- | tr '\n' ',' || true)
	check "$1.waits_first" "report.txt sections in order: ${got:-none}" test "$got" = "Who blocked whom,Panic,"
}

# --- 1. the hard lockup, found by the host
one hard --workload tests/stall/hardlockup.sh --stall 10
check_field_match hard.watchdog_said "${run:-/nonexistent}" qemu.stall '^no output and no state from the guest for 10s: NMI injected$'
check_field_match hard.nmi_injected "${run:-/nonexistent}" qemu.nmi_injected_ms '^[0-9]+$'
check_field hard.run_cause "${run:-/nonexistent}" cause.run stall
report_cause hard hard_lockup
got=$(json_value "${run:-/nonexistent}/report.json" "[(c['nmi_rip'] or '').split('+')[0] for c in d['cpus'] or [] if c['irqs_off']]")
check hard.cpu_irqs_off "CPUs with interrupts off, where: $got" test "$got" = '["lkdtm_HARDLOCKUP"]'
got=$(json_value "${run:-/nonexistent}/report.json" "len(d['cpus'] or [])")
check hard.every_cpu "CPUs in report.json: $got" test "$got" = 2
check_file_has hard.report_names_it "${run:-/nonexistent}/report.txt" '^      the host.s NMI \(--stall\) found interrupts off: CPU [0-9] \(pid [0-9]+ .*\) at lkdtm_HARDLOCKUP\+'
check_file_has hard.report_every_cpu "${run:-/nonexistent}/report.txt" '^   CPU [0-9]: pid [0-9]+ .*, interrupted at lkdtm_HARDLOCKUP\+.* with interrupts off$'
check_file_has hard.said_on_terminal "$out/hard.out" 'no output and no state from the guest for 10s: NMI injected'
# no task blocked, so no graph: bpk show --graph says so
rc=0
got=$("$bpk" show "${run:-/nonexistent}" --graph 2>&1) || rc=$?
check hard.show_no_graph "exit $rc: $got" test "$rc" = 1 -a "$got" = "bpk: error: $run: no wait-for graph: no task was blocked in the dump"

# --- 2. the soft lockup, by the guest's own detector
one soft --workload tests/stall/softlockup.sh --panic-on softlockup --append watchdog_thresh=5
check_field soft.run_cause "${run:-/nonexistent}" cause.run soft_lockup
report_cause soft soft_lockup
got=$(record_field "${run:-/nonexistent}" qemu.nmi_injected_ms 2>&1 || true)
check soft.no_nmi_injected "qemu.nmi_injected_ms=${got:-absent}" test -n "$run" -a -z "$got"
named soft stuck "$(sed -n 's/.*soft lockup - CPU#[0-9]* stuck for [0-9]*s! \[.*:\([0-9]*\)\].*/\1/p' "${run:-/nonexistent}/console.log" | head -1)"

# --- 3. the hung task
one hung --workload tests/stall/hung.sh --panic-on hung --append sysctl.kernel.hung_task_timeout_secs=5
check_field hung.run_cause "${run:-/nonexistent}" cause.run hung_task
report_cause hung hung_task
named hung hung "$(sed -n 's/.*INFO: task .*:\([0-9]*\) blocked for more than.*/\1/p' "${run:-/nonexistent}/console.log" | head -1)"
# the graph of the hung task, named by bpk show --graph
got=$("$bpk" show "${run:-/nonexistent}" --graph 2>&1 || true)
check hung.show_graph "bpk show --graph: $got" test -n "$run" -a "$got" = "$run/waits.svg" -a -s "${run:-/nonexistent}/waits.svg"

# --- 4. a CPU that never passes a quiescent state, seen by RCU
one rcu --workload tests/stall/rcu-stall.sh --panic-on rcu --append 'rcupdate.rcu_cpu_stall_timeout=5 watchdog_thresh=60'
check_field rcu.run_cause "${run:-/nonexistent}" cause.run rcu_stall
report_cause rcu rcu_stall
# the console names the CPU; the task on it is the workload spinning there
cpu=$(sed -n 's/.*rcu: *\t*\([0-9]*\)-.*: (.*/\1/p' "${run:-/nonexistent}/console.log" | head -1)
named rcu rcu_stalling "$(json_value "${run:-/nonexistent}/report.json" "[c['pid'] for c in d['cpus'] if c['cpu'] == ${cpu:-99} and c['comm'] == 'workload'][0]" 2>/dev/null || true)"

# --- 5. a workload that prints on its own port and nothing else, longer
# than --stall: not a stall (its output is progress too), then a sysrq
one chatty --workload tests/stall/chatty.sh --stall 5
check_field chatty.run_cause "${run:-/nonexistent}" cause.run sysrq
got=$(record_field "${run:-/nonexistent}" qemu.stall 2>&1 || true)
check chatty.no_nmi "qemu.stall: ${got:-none}" test -n "$run" -a -z "$got"

no_qemu_left stalls.no_qemu_left "$out/"
