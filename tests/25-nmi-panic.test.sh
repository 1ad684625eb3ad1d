#!/usr/bin/env bash
# bpf_panic() in NMI context, dumped for real: the tracepoint trigger on
# nmi:nmi_handler, provoked by sysrq l (a backtrace of every CPU, asked
# for by NMI). The helper panics through nmi_panic() there; the dump's
# stack of the panicking CPU goes from the NMI entry through the program
# to nmi_panic(), in drgn's view (report.json, report.txt) and in crash's
# bt. A panic in NMI context prints nothing on the console before the
# capture kernel boots (printk defers the console there): the cause is the
# dump's, and the console's silence is not taken for a disagreement.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

rc=0
"$bpk" --runs "$out/runs" run tracepoint tp=nmi:nmi_handler --workload tests/nmi/sysrq-l.sh \
	--timeout 240 >"$out/run.out" 2>&1 || rc=$?
run=$(filed_runs "$out/runs" | tail -1)
check nmi.run_succeeds "exit $rc: $(grep -m1 -E 'error:|run filed' "$out/run.out" || echo 'no outcome line')" \
	test "$rc" = 0 -a -n "$run"
run=${run:-$out/runs/none}
check_file_has nmi.console_nmi_backtrace "$run/console.log" 'NMI backtrace for cpu [0-9]+'

# facts NAME: one fact of report.json, a line (nothing if it is missing)
facts() {
	/usr/bin/python3 - "$run/report.json" "$1" <<'PY' 2>&1 || true
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"{sys.argv[1]}: {e}")
what = sys.argv[2]
if what == "panic":
    print(d["panic"]["message"])
elif what == "stack":
    t = d["panic"]["task"]
    task = next(x for x in d["tasks"]["list"] if x["pid"] == t["pid"] and x["cpu"] == t["cpu"])
    print(" ".join(f["function"] or "?" for f in task["stack"]))
elif what == "cause":
    c = d["cause"]
    listed = [x for x in d["disagreements"] if x["what"] == "cause"]
    print(f'run={c["run"]} dump={c["dump"]} agree={json.dumps(c["agree"])} listed={len(listed)}')
PY
}
got=$(facts panic)
check nmi.panic_message "$got" \
	test "$got" = 'Kernel panic - not syncing: bpf_panic trigger tracepoint fired: tp=nmi:nmi_handler'
# The panicking stack, innermost first: nmi_panic, called by the helper's
# NMI branch, called by the program, run from the NMI handler.
stack=$(facts stack)
want='nmi_panic bpf_nmi_panic .*bpf_panic .*nmi_handle .*exc_nmi'
check nmi.stack_nmi_path "stack: ${stack:-none}" grep -qE "(^| )$want( |$)" <<<"$stack"
check_file_has nmi.report_shows_nmi_panic "$run/report.txt" '^ +#[0-9]+ +nmi_panic\+0x'
check_file_has nmi.crash_bt_nmi_stack "$run/report.txt" '^ *#[0-9]+ \[[0-9a-f]+\] nmi_panic at '
check_file_has nmi.crash_bt_nmi_exception_stack "$run/report.txt" '^--- <NMI exception stack> ---$'
check_field nmi.dump_cause_trigger "$run" cause.dump trigger
got=$(facts cause)
check nmi.console_silence_no_disagreement "$got" grep -qE '^run=(trigger dump=trigger agree=true|kexec dump=trigger agree=null) listed=0$' <<<"$got"
