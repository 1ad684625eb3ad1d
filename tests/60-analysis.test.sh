#!/usr/bin/env bash
# The report's two analyzers and report.json, on real runs:
#  - tasks: the guest leaves a sleeping task and one blocked in D state
#    (LKDTM HUNG_TASK), then the demo trigger fires; the report lists at
#    least the processes the guest counted before, with the states the test
#    made, their stacks and the workload's;
#  - hung_task: the README example's trigger and workload, fired through
#    crash_kexec (sysctl off); its report (the hung task first, in D state,
#    with its stack) is read by 99 with 51's and 71's;
#  - oops: no trigger, an LKDTM oops with panic_on_oops: cause oops;
#  - sysrq: no trigger, echo c > /proc/sysrq-trigger: the run and the dump
#    both say sysrq;
#  - one Cause section (the run's cause against the dump's) and one Fire
#    record section (crash's decode against drgn's) per report; a run
#    record whose cause differs from the dump's is a disagreement;
#  - the dump-level cause from made-up logs (bpk_protocol.dump_cause);
#  - a failed run (no crash kernel): report.json from run.json alone;
#  - a vmcore crash cannot open (its linux_banner page swapped with the
#    next) and one drgn cannot open (its VMCOREINFO without KERNELOFFSET): each report says so and keeps the
#    other analyzer's part;
#  (every report.json of the whole test run is validated, and drgn's fire
#  record compared with crash's, by 99-reports.)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

runs=$out/runs
py=/usr/bin/python3 # Debian's, which has python3-drgn and python3-jsonschema

# run_one NAME TRIGGER [k=v ...] [bpk run options]: bpk run into $runs/NAME;
# sets rc and run
run_one() {
	local name=$1
	shift
	rc=0
	"$bpk" --runs "$runs/$name" run "$@" --timeout 240 >"$out/$name.out" 2>&1 || rc=$?
	run=$(find "$runs/$name" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -1)
}
# task_field RUN COMM KEY: KEY of the task named COMM in RUN's report.json
task_field() {
	json_value "$1/report.json" "next((t['$3'] for t in d['tasks']['list'] if t['comm'] == '$2'), None)"
}
# sections RUN: "N Cause, M Fire record" sections in RUN's report.txt
sections() {
	echo "$(grep -c '^== Cause' "$1/report.txt" 2>/dev/null || true) Cause, $(grep -c '^== Fire record' "$1/report.txt" 2>/dev/null || true) Fire record"
}
# cause_checks NAME RUN CAUSE: the run's record and the dump both say
# CAUSE; report.txt says so in its one Cause section, with no cause
# disagreement; report.json's cause the same
cause_checks() {
	local name=$1 r=$2 want=$3 sec
	sec=$(sed -n '/^== Cause/,/^$/p' "$r/report.txt" 2>/dev/null)
	check "$name.cause_sections" "$(sections "$r")" test "$(sections "$r")" = "1 Cause, 1 Fire record"
	check "$name.cause_run_and_dump" "$(tr -s ' \n' ' ' <<<"${sec:-no Cause section}")" \
		test "$(grep -c -e "^   run:   $want\$" -e "^   dump:  $want\$" -e "^   the run and the dump agree: $want\$" <<<"$sec")" = 3 -a \
		"$(grep -c 'DISAGREE cause' "$r/report.txt")" = 0
	check "$name.cause_json" "record: $(record_field "$r" cause.run 2>&1); report.json: $(json_value "$r/report.json" "d['cause']")" \
		test "$(json_value "$r/report.json" "[d['cause']['run'], d['cause']['dump'], d['cause']['agree'], [x for x in d['disagreements'] if x['what'] == 'cause'], d['record']['cause']['run']]")" = "[\"$want\", \"$want\", true, [], \"$want\"]" -a \
		"$(record_field "$r" cause.run)" = "$want"
}

# --- the dump-level cause from made-up logs: each kind the vocabulary has
"$py" tests/analysis/dump-cause.py >"$out/dump-cause.txt" 2>&1 || true
while read -r verdict name detail; do
	name=${name%:}
	if [[ $verdict == ok ]]; then pass "dump_cause.$name" "$detail"; else fail "dump_cause.$name" "$detail"; fi
done < <(grep -E '^(ok|bad) ' "$out/dump-cause.txt")
check dump_cause.all_cases "$(grep -c '^ok ' "$out/dump-cause.txt") ok, $(grep -c '^bad ' "$out/dump-cause.txt") bad; $(grep -v -m1 -E '^(ok|bad) ' "$out/dump-cause.txt" || true)" \
	test "$(grep -c '^ok ' "$out/dump-cause.txt")" -ge 10 -a "$(grep -c -v '^ok ' "$out/dump-cause.txt")" = 0

# --- tasks: a sleeper, a D-state task, the demo trigger
run_one tasks syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--workload tests/analysis/tasks.sh --repeat 2
tasks_run=$run
if ((rc != 0)) || [[ -z $run || ! -s $run/report.json ]]; then
	fail tasks.run "exit $rc: $(grep -m1 'error:' "$out/tasks.out" || tail -1 "$out/tasks.out")"
else
	pass tasks.run "$run"
	ps_count=$(sed -n 's/^bpk: before workload run 2: \([0-9]*\) processes (ps)$/\1/p' "$run/guest.log")
	procs=$(json_value "$run/report.json" "len({t['tgid'] for t in d['tasks']['list'] if t['pid'] > 0})")
	total=$(json_value "$run/report.json" "d['tasks']['total']")
	# every process the guest's ps listed is in the report, with its state
	# (those that were ps's own pipeline had exited)
	# (ps, its sed and their shell, run 1's workload, had exited by then)
	sed -n 's/^tasks-workload: ps: *\([0-9][0-9]*\) *\([0-9][0-9]*\) *\([A-Z]\)[^ ]* *\(.*\)$/\1 \3 \4 \2/p' "$run/workload.log" >"$out/guest-ps.all"
	lister=$(awk '$3 == "ps" { print $4 }' "$out/guest-ps.all")
	awk -v l="${lister:-none}" '$3 != "ps" && $3 != "sed" && $1 != l' "$out/guest-ps.all" >"$out/guest-ps.txt"
	# the count the guest logged before run 2 covers at least what run 1's
	# listing still had (a count of 1 was the glob itself, under set -f)
	listed=$(grep -c . "$out/guest-ps.txt" || true)
	check tasks.at_least_guest_ps "guest counted ${ps_count:-nothing} processes before the trigger, its ps listing $listed; report: $procs processes, $total tasks" \
		test -n "$ps_count" -a "${ps_count:-0}" -ge "$listed" -a "$listed" -gt 1 -a "$procs" -ge "${ps_count:-999999}"
	missing=$(while read -r pid _ _ _; do
		[[ $(json_value "$run/report.json" "any(t['pid'] == $pid for t in d['tasks']['list'])") == true ]] || echo "$pid"
	done <"$out/guest-ps.txt" | tr '\n' ' ')
	check tasks.every_guest_process "$(wc -l <"$out/guest-ps.txt") processes in the guest's ps listing (ps's own pipeline, pid ${lister:-?}, left out); missing from the report: ${missing:-none}" \
		test -s "$out/guest-ps.txt" -a -z "$missing"
	for want in "bpk-sleeper S" "bpk-dstate D"; do
		comm=${want% *} state=${want#* }
		guest=$(awk -v c="$comm" '$3 == c { print $2 }' "$out/guest-ps.txt" | head -1)
		got=$(task_field "$run" "$comm" state)
		check "tasks.state_$comm" "guest ps: ${guest:-none}, report: $got (made: $state)" \
			test "$got" = "\"$state\"" -a "${guest:-}" = "$state"
	done
	# run 2's workload shell (started after the listing) waits for bpk-demo
	got=$(task_field "$run" workload state)
	check tasks.state_workload "report: $got (waiting in wait4 for bpk-demo: S)" test "$got" = '"S"'
	dstack=$(task_field "$run" bpk-dstate stack)
	check tasks.dstate_stack "$(json_value "$run/report.json" "[f['symbol'] for t in d['tasks']['list'] if t['comm'] == 'bpk-dstate' for f in t.get('stack', []) if f['symbol']][:4]")" \
		grep -q '"schedule+0x[0-9a-f]*/0x[0-9a-f]*".*"direct_entry+' <<<"$dstack"
	check tasks.dstate_in_text "$(grep -m1 '^-- D state' "$run/report.txt" || echo 'no D-state stack in report.txt')" \
		grep -q '^-- D state (uninterruptible): pid [0-9]* ppid [0-9]* bpk-dstate, state D' "$run/report.txt"
	wstack=$(task_field "$run" bpk-demo stack)
	check tasks.workload_stack "$(json_value "$run/report.json" "[f['symbol'] for t in d['tasks']['list'] if t['comm'] == 'bpk-demo' for f in t.get('stack', []) if f['symbol']][:4]")" \
		grep -q '"bpf_panic+0x.*"bpf_prog_[0-9a-f]*_syscall_errno+0x' <<<"$wstack"
	check tasks.panicking_task_text "$(grep -m1 '^-- the panicking task' "$run/report.txt" || echo none)" \
		grep -q '^-- the panicking task: pid [0-9]* ppid [0-9]* bpk-demo, state R' "$run/report.txt"
	check tasks.state_counts "$(grep -m1 '^== Tasks (drgn)' "$run/report.txt" || echo none)" \
		grep -qE '^== Tasks \(drgn\): [0-9]+ tasks: R [0-9]+, D 1, S [0-9]+' "$run/report.txt"
	check tasks.cause "$(json_value "$run/report.json" "d['cause']['dump'], d['panic']['task']")" \
		test "$(json_value "$run/report.json" "[d['cause']['dump'], d['panic']['task']['comm']]")" = '["trigger", "bpk-demo"]'
	cause_checks tasks "$run" trigger
	# one Fire record section: crash's decode, then drgn's compared with it
	rec=$(sed -n '/^== Fire record (read from the vmcore/,/^$/p' "$run/report.txt")
	check tasks.fire_record_one_section "$(sections "$run"); $(grep -E '^ +(comm=|drgn.s decode|DISAGREE)' <<<"$rec" | tr -s ' \n' ' ')" \
		test "$(sections "$run")" = "1 Cause, 1 Fire record" -a "$(grep -cx '   comm=bpk-demo' <<<"$rec")" = 1 -a \
		"$(grep -c '^   drgn.s decode agrees, field by field' <<<"$rec")" = 1
	# the toolbox's crash walks 6.1's pid hash: it counts what drgn lists
	check tasks.crash_count_same "$(grep -m1 -e 'crash counts the same' -e 'DISAGREE task count' "$run/report.txt" || echo 'not said')" \
		grep -q "^   crash counts the same: sys TASKS $total, ps $total lines" "$run/report.txt"
	bpf=$(json_value "$run/report.json" "[(p['name'], p['attach']) for p in d['bpf']['programs']]")
	check tasks.bpf_program "${bpf:-no BPF programs in report.json}" grep -qF '["syscall_errno", "raw_tp sys_exit"]' <<<"$bpf"
	files=$(json_value "$run/report.json" "[f['path'] for p in d['processes'] if p['comm'] == 'bpk-demo' for f in p['files']]")
	check tasks.open_files "bpk-demo: $files" grep -qF '"/tmp/bpk-demo"' <<<"$files"
	# bpk drgn: the helpers answer from the same vmcore (lines on stdin),
	# drgn-shell.py run as bpk runs it
	printf '%s\n' 'print("fire", fire()["comm"], fire()["action"])' \
		'print("D", [t.comm.string_().decode() for t in tasks(state="D")])' 'bt(tasks(comm="bpk-dstate")[0])' |
		"$py" -i analysis/drgn-shell.py --vmcore "$run/vmcore" --vmlinux "$(record_field "$run" guest.vmlinux)" \
			>"$out/drgn-shell.out" 2>"$out/drgn-shell.err" || true
	check drgn_shell.fire "$(grep -m1 "^fire " "$out/drgn-shell.out" || tail -1 "$out/drgn-shell.err")" \
		grep -qx 'fire bpk-demo bpf_panic' "$out/drgn-shell.out"
	check drgn_shell.tasks_D "$(grep -m1 '^D ' "$out/drgn-shell.out" || echo none)" grep -qx "D \['bpk-dstate'\]" "$out/drgn-shell.out"
	check drgn_shell.bt "$(grep -m1 'schedule+' "$out/drgn-shell.out" || echo 'no stack')" \
		grep -q '^#[0-9]* *direct_entry+0x' "$out/drgn-shell.out"
fi

# --- hung_task, fired through crash_kexec
run_one hung hung_task secs=2 comm=hanger action=crash_kexec --workload triggers/examples/hung_task.sh
if ((rc != 0)) || [[ -z $run || ! -s $run/report.json ]]; then
	fail hung.run "exit $rc: $(grep -m1 'error:' "$out/hung.out" || tail -1 "$out/hung.out")"
else
	pass hung.run "$run"
	check hung.action "$(json_value "$run/report.json" "d['fire']['fields']['action'], d['panic']['message']")" \
		test "$(json_value "$run/report.json" "[d['fire']['fields']['action'], d['panic']['message'], d['cause']['dump']]")" = '["crash_kexec", null, "trigger"]'
	cause_checks hung "$run" trigger
fi

# --- an oops, no trigger
run_one oops none --workload tests/analysis/oops.sh
if ((rc != 0)) || [[ -z $run || ! -s $run/report.json ]]; then
	fail oops.run "exit $rc: $(grep -m1 'error:' "$out/oops.out" || tail -1 "$out/oops.out")"
else
	pass oops.run "$run"
	check oops.cause "$(json_value "$run/report.json" "[d['cause']['dump'], d['cause']['dump_from'], d['fire']['record']]")" \
		test "$(json_value "$run/report.json" "[d['cause']['dump'], d['fire']['record'], d['panic']['task']['comm']]")" = '["oops", false, "workload"]'
	cause_checks oops "$run" oops
	# oops_end() goes to crash_kexec() before panic(): no panic message;
	# crash's PANIC is the Oops line, which drgn's oops lines must hold
	check oops.lines "$(json_value "$run/report.json" "[d['panic']['message'], d['panic']['oops']]")" \
		test "$(json_value "$run/report.json" "[d['panic']['message'], d['panic']['oops'][0], any(l.startswith('Oops: ') for l in d['panic']['oops'])]")" = '[null, "BUG: kernel NULL pointer dereference, address: 0000000000000000", true]'
	check oops.crash_agrees "$(grep -m1 '^PANIC:' "$run/report.txt"); $(grep -c 'DISAGREE panic message' "$run/report.txt") panic message disagreement(s)" \
		test "$(grep -c 'DISAGREE panic message' "$run/report.txt")" = 0 -a -n "$(grep -m1 '^PANIC: "Oops: ' "$run/report.txt")"
fi

# --- a sysrq crash, no trigger: the run and the dump both say sysrq
run_one sysrq none --workload tests/analysis/sysrq.sh
if ((rc != 0)) || [[ -z $run || ! -s $run/report.json ]]; then
	fail sysrq.run "exit $rc: $(grep -m1 'error:' "$out/sysrq.out" || tail -1 "$out/sysrq.out")"
else
	pass sysrq.run "$run"
	cause_checks sysrq "$run" sysrq
	check sysrq.dump_from_panic_message "$(json_value "$run/report.json" "d['cause']['dump_from']")" \
		test "$(json_value "$run/report.json" "d['cause']['dump_from']")" = '"panic message: Kernel panic - not syncing: sysrq triggered crash"'
fi

# --- a failed run: no crash kernel, nothing armed
run_one failed syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh --crashkernel none
if [[ -z $run || ! -s $run/report.json ]]; then
	fail failed.report_json "exit $rc, no report.json in ${run:-no run dir}"
else
	check failed.report_json "$(json_value "$run/report.json" "[d['run']['status'], d['run']['reason'], d['vmcore'], sorted(d['timings'])]")" \
		test "$rc" = 1 -a "$(json_value "$run/report.json" "[d['run']['status'], d['vmcore'], d['panic'], 'qemu_wall_s' in d['timings'], len(d['run']['reason']) > 0]")" = '["failed", null, null, true, true]'
fi

# --- a vmcore each analyzer cannot open: copies of the tasks run
if [[ -n ${tasks_run:-} && -s $tasks_run/vmcore ]]; then
	# crash cannot: the page holding linux_banner reads as its neighbour
	# (crash refuses a dump whose banner differs from the vmlinux's; drgn
	# never reads it). A cut at a fixed fraction of the file was flaky:
	# physical KASLR decides where the pages drgn needs sit in it.
	cut=$out/cut/$(basename "$tasks_run")
	mkdir -p "$cut"
	cp "$tasks_run/run.json" "$cut/"
	swapped=$("$py" tests/analysis/swap-page.py "$tasks_run/vmcore" "$(record_field "$tasks_run" guest.vmlinux)" \
		linux_banner "$cut/vmcore" 2>&1) || fail cut.swap_page "$swapped"
	rc=0
	analysis/report.py "$cut" >"$out/cut.out" 2>&1 || rc=$?
	check cut.crash_failed_said "exit $rc: $(grep -m1 '^== crash part' "$cut/report.txt" 2>/dev/null || echo 'not said')" \
		grep -q '^== crash part: FAILED: crash could not open' "$cut/report.txt"
	check cut.drgn_part_kept "$(grep -m1 '^   panic message (drgn' "$cut/report.txt" || echo none)" \
		grep -q '^   panic message (drgn, the dump.s log): Kernel panic - not syncing: bpf_panic trigger syscall_errno fired' "$cut/report.txt"
	check cut.json "$(json_value "$cut/report.json" "[d['analyzers']['crash']['ok'], d['analyzers']['drgn']['ok'], d['cause']['dump']]")" \
		test "$(json_value "$cut/report.json" "[d['analyzers']['crash']['ok'], d['analyzers']['drgn']['ok'], d['cause']['dump']]")" = '[false, true, "trigger"]'
	# drgn alone still decodes the fire record, in the one Fire record section
	rec=$(sed -n '/^== Fire record (read from the vmcore/,/^$/p' "$cut/report.txt")
	check cut.fire_record_drgn "$(sections "$cut"); $(grep -E '^ +(comm=|crash.s decode)' <<<"$rec" | tr -s ' \n' ' ')" \
		test "$(sections "$cut")" = "1 Cause, 1 Fire record" -a "$(grep -cx '   comm=bpk-demo' <<<"$rec")" = 1 -a \
		"$(grep -c "^   crash's decode: not available" <<<"$rec")" = 1
	# drgn cannot: VMCOREINFO's KERNELOFFSET renamed (crash finds the KASLR
	# offset itself with --kaslr=auto; drgn needs it), in the dump's note
	# and in the kernel's own copy where makedumpfile kept its page
	# uncompressed
	noko=$out/noko/$(basename "$tasks_run")
	mkdir -p "$noko"
	cp "$tasks_run/run.json" "$noko/"
	"$py" -c 'import sys
b = open(sys.argv[1], "rb").read()
n = b.count(b"\nKERNELOFFSET=")
open(sys.argv[2], "wb").write(b.replace(b"\nKERNELOFFSET=", b"\nXERNELOFFSET="))
sys.exit(n < 1)' "$tasks_run/vmcore" "$noko/vmcore" || fail noko.patch "KERNELOFFSET= not found in the vmcore"
	rc=0
	analysis/report.py "$noko" >"$out/noko.out" 2>&1 || rc=$?
	check noko.drgn_failed_said "exit $rc: $(grep -m1 '^== drgn part' "$noko/report.txt" 2>/dev/null || echo 'not said')" \
		grep -q '^== drgn part: FAILED: drgn cannot open' "$noko/report.txt"
	check noko.crash_part_kept "$(grep -m1 '^PANIC:' "$noko/report.txt" || echo 'no PANIC'); $(grep -m1 -E '^ +comm=' "$noko/report.txt" || echo 'no fire record')" \
		grep -qx '   comm=bpk-demo' "$noko/report.txt"
	check noko.crash_bt_kept "$(grep -m1 '^PID:' "$noko/report.txt" || echo 'no bt')" \
		grep -q '^PID: .*COMMAND: "bpk-demo"' "$noko/report.txt"
	check noko.json "$(json_value "$noko/report.json" "[d['analyzers']['crash']['ok'], d['analyzers']['drgn']['ok'], d['fire']['source'], d['cause']['dump']]")" \
		test "$(json_value "$noko/report.json" "[d['analyzers']['crash']['ok'], d['analyzers']['drgn']['ok'], d['fire']['source'], d['cause']['dump']]")" = '[true, false, "crash", "trigger"]'
	# the two analyzers disagree on the kernel release (a crash whose sys
	# says another RELEASE): both kept, the report says so. The same copy's
	# record says the run-level cause was an unclassified panic: the dump
	# says trigger, and that difference is a disagreement too.
	rel=$out/rel/$(basename "$tasks_run")
	mkdir -p "$rel" "$out/rel-crash"
	cp "$tasks_run/run.json" "$tasks_run/vmcore" "$rel/"
	"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["cause"] = {"run": "panic", "detail": "a record that says panic: tests/60-analysis.test.sh"}
json.dump(d, open(sys.argv[1], "w"))' "$rel/run.json"
	printf '#!/bin/bash\n# crash, its sys RELEASE changed: tests/60-analysis.test.sh\n/usr/bin/crash "$@" | sed -u "s/^\\( *RELEASE: \\).*/\\19.9.9-other/"\n' >"$out/rel-crash/crash"
	chmod 755 "$out/rel-crash/crash"
	# (the system analyzers: the changed crash is found through PATH)
	PATH=$out/rel-crash:$PATH analysis/report.py --analyzers system "$rel" >"$out/rel.out" 2>&1 || true
	got=$(json_value "$rel/report.json" "[(x['crash'], x['drgn']) for x in d['disagreements'] if x['what'] == 'kernel release']" 2>/dev/null || echo 'no report.json')
	want="[[\"9.9.9-other\", $(json_value "$tasks_run/report.json" "d['kernel']['release']")]]"
	check release.disagreement_kept "$got (want $want); $(grep -m1 'kernel release' "$rel/report.txt" 2>/dev/null || echo 'not in report.txt')" \
		test "$got" = "$want"
	got=$(json_value "$rel/report.json" "[[x['run'], x['dump']] for x in d['disagreements'] if x['what'] == 'cause'], d['cause']['agree']" 2>/dev/null || echo 'no report.json')
	check cause.disagreement_kept "$got; $(grep -m1 'DISAGREE cause' "$rel/report.txt" 2>/dev/null || echo 'not in report.txt')" \
		test "$got" = '[[["panic", "trigger"]], false]' -a \
		"$(grep -c '^   DISAGREE cause: the console says panic, the dump says trigger' "$rel/report.txt")" = 1
else
	fail cut.setup "no vmcore from the tasks run to cut"
fi

