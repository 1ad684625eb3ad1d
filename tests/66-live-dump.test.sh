#!/usr/bin/env bash
# A dump of a live guest on demand, on our kernel:
#  - bad input: bpk dump with no run in progress, or a directory that is
#    no run, is refused with one line, exit 2;
#  - a run with --repeat 0 whose workload sleeps, then fires syscall_errno
#    comm=late-open: once it is armed, bpk dump takes QEMU's dump of the
#    running guest, paused for the copy (measured and said), files it as a
#    run of its own (RUNS/<time>-syscall_errno-live: dump.path live, cause
#    none, QEMU still running) and reports it: crash and drgn read it, the
#    dump's cause is none, the workload's sleep is in its task list, and
#    crash counts the tasks drgn counts;
#  - the run itself goes on, fires later and is filed with its own dump
#    through kdump, its output naming the live dump;
#  - the same on Debian's kernel, whose vmcoreinfo reaches QEMU only once
#    the guest has loaded qemu_fw_cfg: drgn reads the live dump too.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

# --- bad input: one line, exit 2, nothing filed
mkdir -p "$out/empty-runs"
one_line live.bad.no_run "no run in progress in $out/empty-runs" "$bpk" --runs "$out/empty-runs" dump
one_line live.bad.not_a_dir "not a directory" "$bpk" dump /nonexistent
one_line live.bad.no_run_here "no run in progress in /etc" "$bpk" dump /etc
check live.bad.nothing_filed "runs: $(listing "$out/empty-runs")" test -z "$(listing "$out/empty-runs")"

# sleeping RUNS: the workload of the run staging under RUNS has started
# its sleep
sleeping() { grep -qs '^late-open: sleeping' "$1"/.staging-*/workload.txt; }

# --- the run, in the background
runs=$out/runs
rc_file=$out/run.rc
watch_qemu "$out/"
("$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=late-open \
	--workload tests/live/late-open.sh --repeat 0 --timeout 400 >"$out/run.out" 2>&1
echo $? >"$rc_file") &
runner=$!
# armed, and the workload's sleep running (its own log says so)
for _ in $(seq 1 600); do
	armed "$runs" && sleeping "$runs" && break
	[[ -s $rc_file ]] && break
	sleep 0.5
done
check live.armed "the run armed its trigger: $(grep -m1 'armed' "$out/run.out" || echo 'not yet')" armed "$runs"

# --- the dump of the live guest
rc=0
"$bpk" --runs "$runs" dump >"$out/dump.out" 2>"$out/dump.err" || rc=$?
said=$(grep -m1 'a dump of the live guest filed in' "$out/dump.err" || true)
live=$(sed -n 's/.*a dump of the live guest filed in \(.*\): [0-9]* MiB, .*/\1/p' <<<"$said")
check live.dump_exit "exit $rc: ${said:-$(tail -1 "$out/dump.err")}" test "$rc" = 0 -a -n "$live"
check live.pause_said "$said" grep -qE 'the guest paused [0-9.]+(ms|s) ' <<<"$said"
check_field live.path "${live:-/nonexistent}" dump.path live
check_field live.cause "${live:-/nonexistent}" cause.run none
check_field live.status "${live:-/nonexistent}" status success
check_field live.qemu_running "${live:-/nonexistent}" qemu.exit -1
check_field_match live.pause_recorded "${live:-/nonexistent}" timings.dump_s '^[0-9]+\.[0-9]+$'
check_field_match live.id "${live:-/nonexistent}" id '^[0-9]{8}T[0-9]{6}Z-syscall_errno-live$'
check live.beside "$live under $runs" test "$(dirname "${live:-/x}")" = "$runs"
got=$(json_value "${live:-/nonexistent}/report.json" "[d['cause']['run'], d['cause']['dump'], d['cause']['agree']]")
check live.report_cause "report.json cause run, dump, agree: $got" test "$got" = '["none", "none", true]'
got=$(json_value "${live:-/nonexistent}/report.json" "sorted({t['comm'] for t in d['tasks']['list'] if t['comm'] in ('sleep', 'late-open.sh', 'workload')})")
check live.workload_running "the workload's tasks in the live dump: $got" grep -q '"sleep"' <<<"$got"
# crash (sid's when trixie's stops on the live guest's exception stacks)
# sees every task drgn sees
got=$(json_value "${live:-/nonexistent}/report.json" "[d['tasks']['crash_count'], d['tasks']['total']]")
check live.crash_whole "crash's task count, drgn's: $got" grep -qE '^\[([1-9][0-9]*), \1\]$' <<<"$got"
check_file_has live.report_header "${live:-/nonexistent}/report.txt" '^dump: +of the live guest, its run going on: bpk dump'
check_field live.report_state "${live:-/nonexistent}" report.state written
check_file_has live.crash_read "${live:-/nonexistent}/report.txt" '^kernel: +6\.1\.'
check_kdump_header live.kdump_compressed "${live:-/nonexistent}"

# --- the run goes on and fires
wait "$runner" || true
rc=$(cat "$rc_file" 2>/dev/null || echo none)
run=$(filed_runs "$runs" | grep -v -- '-live$' | tail -1)
check live.run_fired "exit $rc: $(grep -m1 -E 'error:|run filed' "$out/run.out" || tail -1 "$out/run.out")" \
	test "$rc" = 0 -a -n "$run" -a -s "${run:-/nonexistent}/vmcore"
check_field live.run_cause "${run:-/nonexistent}" cause.run trigger
check_field live.run_path "${run:-/nonexistent}" dump.path kdump
got=$(json_value "${run:-/nonexistent}/report.json" "[d['fire']['fields']['trigger'], d['cause']['dump']]")
check live.run_fire_record "fire record trigger, dump cause: $got" test "$got" = '["syscall_errno", "trigger"]'
check_file_has live.run_said_it "$out/run.out" "bpk dump: a dump of the live guest filed in .*/$(basename "${live:-none}") "
check live.no_socket_left "files of the run: $(listing "${run:-/nonexistent}" | tr ' ' '\n' | grep -c sock || true) sockets" \
	test -n "$run" -a ! -e "${run:-/nonexistent}/dump.sock"

# --- Debian's kernel: drgn finds the kernel in the host's dump
druns=$out/debian-runs
drc_file=$out/debian-run.rc
("$bpk" --runs "$druns" run syscall_errno syscall=openat errno=ENOENT comm=late-open --kernel debian \
	--workload tests/live/late-open.sh --repeat 0 --timeout 400 >"$out/debian-run.out" 2>&1
echo $? >"$drc_file") &
runner=$!
for _ in $(seq 1 600); do
	armed "$druns" && sleeping "$druns" && break
	[[ -s $drc_file ]] && break
	sleep 0.5
done
check live.debian.armed "the run armed its trigger: $(grep -m1 'armed' "$out/debian-run.out" || echo 'not yet')" armed "$druns"
rc=0
"$bpk" --runs "$druns" dump >"$out/debian-dump.out" 2>"$out/debian-dump.err" || rc=$?
said=$(grep -m1 'a dump of the live guest filed in' "$out/debian-dump.err" || true)
dlive=$(sed -n 's/.*a dump of the live guest filed in \(.*\): [0-9]* MiB, .*/\1/p' <<<"$said")
check live.debian.dump_exit "exit $rc: ${said:-$(tail -1 "$out/debian-dump.err")}" test "$rc" = 0 -a -n "$dlive"
got=$(json_value "${dlive:-/nonexistent}/report.json" "[d['analyzers']['drgn']['ok'], d['analyzers']['crash']['ok'], d['tasks']['total'] > 0]")
check live.debian.both_read_it "drgn ok, crash ok, drgn's tasks: $got" test "$got" = '[true, true, true]'
check_file_has live.debian.kernel "${dlive:-/nonexistent}/report.txt" '^kernel: +6\.1\.'
check_kdump_header live.debian.kdump_compressed "${dlive:-/nonexistent}"
wait "$runner" || true
rc=$(cat "$drc_file" 2>/dev/null || echo none)
drun=$(filed_runs "$druns" | grep -v -- '-live$' | tail -1)
check live.debian.run_fired "exit $rc: $(grep -m1 -E 'error:|run filed' "$out/debian-run.out" || tail -1 "$out/debian-run.out")" \
	test "$rc" = 0 -a -n "$drun" -a -s "${drun:-/nonexistent}/vmcore"

no_qemu_left live.no_qemu_left "$out/"
