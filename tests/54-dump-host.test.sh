#!/usr/bin/env bash
# --dump host: the guest loads no crash kernel (a warm one unloads its
# snapshot's); its panic reaches pvpanic, QEMU pauses it, and the host
# dumps it (kdump-compressed, the same report). A run from the idle
# snapshot, one booted cold, a hang brought down by --stall's NMI, and the
# refusals: a fire action that cannot take the guest down without a crash
# kernel (crash_kexec), a kernel that has no bpf_panic (Debian's), words
# that mean nothing without a crash kernel.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

runs=$out/runs
a=(--runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=warm-fire --workload tests/warm/state.sh -q)

# run NAME ARGS...: one run with --dump host, its dir in $dir ("" if none
# filed); stderr kept as $out/NAME.err
run() {
	local name=$1
	shift
	dir=$("$bpk" "$@" 2>"$out/$name.err" | tail -1) || true
	[[ -n $dir && -d $dir ]] || dir=
}
# states RUN: the guest's progress lines, on one line
states() { grep -a '^BPK-STATE' "$1/guest.log" 2>/dev/null | cut -d' ' -f2 | tr '\n' ' '; }

idle=$("$bpk" snapshot --quiet 2>"$out/snapshot.err" || true)
check dump_host.idle_snapshot "${idle:-none}: $(tail -1 "$out/snapshot.err")" test -n "$idle" -a -r "$idle/ok"
watch_qemu "$runs/"

# --- warm, with the report
run warm "${a[@]}" --dump host
warm=$dir
check_field dump_host.warm.ok "$warm" status success
check_field dump_host.warm.restored "$warm" guest.restored_from "$idle"
check_field dump_host.warm.path "$warm" dump.path host
check_field_match dump_host.warm.path_why "$warm" dump.path_why "^--dump host: the guest's pvpanic told QEMU of the panic"
check_field dump_host.warm.cause "$warm" cause.run trigger
check_field dump_host.warm.confirmed "$warm" cause.confirmed true
check_field_match dump_host.warm.down_to_filed "$warm" timings.down_to_filed_s '^[0-9.]+$'
# restored from a snapshot with a crash kernel: unloaded, then the
# pvpanic device found
check dump_host.warm.states "$(states "$warm")" \
	grep -q 'restored host-dump-ready armed $' <<<"$(states "$warm")"
check_file_has dump_host.warm.unloaded "$warm/guest.log" '^BPK-STATE host-dump-ready t=[0-9.]+ pvpanic=[^ ]+ restored=1$'
check_file_lacks dump_host.warm.no_capture "$warm/console.log" 'Command line:.*elfcorehdr='
got=$(kdump_header "$warm/vmcore")
check dump_host.warm.vmcore "vmcore: $got; the guest's kernel: $(record_field "$warm" guest.kernel_release 2>&1 || true)" \
	test "${got% *}" = "KDUMP $(record_field "$warm" guest.kernel_release 2>/dev/null || echo none)"
# one report process (--as-filed): report.json's record is run.json
same=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1] + "/report.json"))["record"] == json.load(open(sys.argv[1] + "/run.json")))' "${warm:-/nonexistent}" 2>&1 || true)
check dump_host.warm.report_record "report.json's record is run.json: $same" test "$same" = True
check_field dump_host.warm.report_state "$warm" report.state written
check_file_has dump_host.warm.report_says "$warm/report.txt" "^dump: +from the host .*--dump host: the guest's pvpanic"
fire=$(json_value "$warm/report.json" "[d['fire']['fields'][k] for k in ('trigger', 'comm', 'action')]")
check dump_host.warm.report_fire "report.json fire.fields trigger, comm, action: $fire" \
	test "$fire" = '["syscall_errno", "warm-fire", "bpf_panic"]'

# --- cold: no crash kernel loaded at all
run cold "${a[@]}" --dump host --cold --no-report
cold=$dir
check_field dump_host.cold.ok "$cold" status success
check_field dump_host.cold.path "$cold" dump.path host
check_field dump_host.cold.booted "$cold" guest.cold_why --cold
check dump_host.cold.states "$(states "$cold")" \
	grep -q '^booted host-dump-ready armed $' <<<"$(states "$cold")"
check_file_lacks dump_host.cold.no_kexec "$cold/guest.log" 'loading the crash kernel'

# --- a hang: the host's NMI panics it, pvpanic tells QEMU
run stall --runs "$runs" run none --workload tests/stall/hardlockup.sh --stall 5 --dump host --no-report -q --timeout 300
stall=$dir
check_field dump_host.stall.ok "$stall" status success
check_field dump_host.stall.path "$stall" dump.path host
check_field dump_host.stall.cause "$stall" cause.run stall
check_field_match dump_host.stall.nmi "$stall" qemu.nmi_injected_ms '^[0-9]+$'

# --- refused in the guest: crash_kexec returns without a crash kernel
run kexec "${a[@]}" --dump host action=crash_kexec --no-report
check_field dump_host.crash_kexec.failed "$dir" status failed
check_field_match dump_host.crash_kexec.why "$dir" console.refused "the crash_kexec kfunc does nothing without a loaded crash kernel"

# --- refused before anything boots (exit 2, nothing filed)
bad() { # bad NAME WANT ARGS...: exit 2, WANT on stderr's one line
	local name=$1 want=$2 rc=0
	shift 2
	"$bpk" --runs "$out/bad-runs" run syscall_errno --no-build "$@" >"$out/$name.out" 2>"$out/$name.err" || rc=$?
	check "dump_host.bad.$name" "exit $rc: $(head -c 300 "$out/$name.err")" \
		test "$rc" = 2 -a "$(wc -l <"$out/$name.err")" = 1 -a -z "$(ls -A "$out/bad-runs" 2>/dev/null)"
	check_file_has "dump_host.bad.$name.says" "$out/$name.err" "$want"
}
bad word "^bpk: error: --dump 'crash' must be kdump or host" --dump crash
bad capture_append "^bpk: error: --capture-append: --dump host loads no crash kernel" --dump host --capture-append initcall_debug
bad debian "^bpk: error: --dump host: not on Debian's kernel .*crash_kexec kfunc" --dump host --kernel debian

no_qemu_left dump_host.no_qemu_left "$runs/"
