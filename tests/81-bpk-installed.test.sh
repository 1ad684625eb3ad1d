#!/usr/bin/env bash
# The installed bpk, from outside the clone: make install DESTDIR=...
# PREFIX=/usr, then from /tmp the installed bpk runs --version, list,
# check, a real run at a terminal (each stage on its updating line, its
# QEMU gone with it), runs, show, show --json (checked against the
# schema), drgn and selftest;
# the installed completion and man page work; make uninstall leaves the
# DESTDIR as it was, and the runs.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

dest=$out/destdir
runs=$out/runs
mkdir -p "$dest"
before=$(listing "$dest")
rc=0
make -s install DESTDIR="$dest" PREFIX=/usr RUNS="$runs" >"$out/install.out" 2>&1 || rc=$?
want="usr usr/bin usr/bin/bpk usr/include usr/include/bpk usr/include/bpk/fire.h usr/include/bpk/trigger-impl.bpf.h usr/include/bpk/trigger.bpf.h \
usr/include/bpk/vmlinux.h usr/share usr/share/bash-completion usr/share/bash-completion/completions \
usr/share/bash-completion/completions/bpk usr/share/bpk usr/share/bpk/bpk.conf usr/share/bpk/manifest \
usr/share/man usr/share/man/man1 usr/share/man/man1/bpk.1 usr/share/pkgconfig usr/share/pkgconfig/bpk.pc "
got=$(listing "$dest")
check install.files "exit $rc: ${got:-nothing}" test "$rc" = 0 -a "$got" = "$want"
# installing again replaces the first install, exactly
rc=0
make -s install DESTDIR="$dest" PREFIX=/usr RUNS="$runs" >"$out/install2.out" 2>&1 || rc=$?
again=$(listing "$dest")
check install.again "exit $rc: $(grep -c '^file ' "$dest/usr/share/bpk/manifest" 2>/dev/null || echo no) files in the manifest, same files: $([[ $again == "$got" ]] && echo yes || echo "no: $again")" \
	test "$rc" = 0 -a "$again" = "$got"
bpk=$dest/usr/bin/bpk
[[ -x $bpk ]] || {
	fail install.bpk "$bpk not installed: $(tail -1 "$out/install.out")"
	exit 1
}

# everything below runs from /tmp: nothing may depend on the clone as cwd
cd /tmp
got=$("$bpk" --version 2>&1 || true)
want="bpk $(git -C "$top" describe --tags --always --dirty)"
check installed.version "${got:-nothing} (want $want)" test "$got" = "$want"
"$bpk" list >"$out/list.txt" 2>&1 || true
"$build/triggers/triggerctl" list >"$out/triggerctl-list.txt"
check installed.list "$(grep -c '' "$out/list.txt") lines, $(grep -c '^[a-z_]*: ' "$out/list.txt") triggers" \
	cmp -s "$out/list.txt" "$out/triggerctl-list.txt"
rc=0
"$bpk" check >"$out/check.txt" 2>&1 || rc=$?
check_file_has installed.check_bpf_panic "$out/check.txt" '^yes  bpf_panic\(\) helper: BPF_FUNC_panic val=[0-9]+$'
check_file_has installed.check_kfunc "$out/check.txt" '^yes  crash_kexec kfunc'
check_file_has installed.check_sysctl "$out/check.txt" '^yes  kernel.destructive_bpf_enabled sysctl'
check installed.check_exit "exit $rc" test "$rc" = 0

# --- a real run at a terminal (a pty): one updating line per stage; the
# QEMUs whose guest writes under the runs dir are noted while it runs
rc=0
python3 -c 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)' \
	"$bpk" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh </dev/null >"$out/run.tty" 2>&1 &
pid=$!
seen_qemu=''
while kill -0 "$pid" 2>/dev/null; do
	for q in $(qemu_on "$runs"); do
		[[ " $seen_qemu " == *" $q "* ]] || seen_qemu+=" $q"
	done
	sleep 0.2
done
wait "$pid" || rc=$?
# the lines as the terminal shows them: the last state of each \r-updated line
tr -d '\033' <"$out/run.tty" | sed 's/\[K//g' | tr '\r' '\n' | awk 'NF' >"$out/run.lines"
mapfile -t filed < <(filed_runs "$runs")
run=${filed[0]:-}
check installed.run "exit $rc, ${#filed[@]} run(s): ${run:-none} ($(tail -2 "$out/run.lines" | head -1))" \
	test "$rc" = 0 -a "${#filed[@]}" = 1 -a -n "$run" -a -s "${run:-/nonexistent}/vmcore"
stages=$(awk '{ print $1 }' "$out/run.lines" | grep -xE 'prepare|boot|arm|fire|capture|dump|collect|report' | uniq | tr '\n' ' ' || true)
check installed.run_stages "${stages:-no stage lines}" test "$stages" = "prepare boot arm fire capture dump collect report "
line=$(grep -m1 -E '^  dump +[0-9]+\.[0-9]s  [0-9]+ MB received \([0-9]+ bytes\)$' "$out/run.lines" || true)
check installed.run_dump_bytes "${line:-no dump line with bytes and elapsed time}" test -n "$line"
n=$(grep -cE '^  boot +[0-9]+\.[0-9]s ' "$out/run.lines" || true)
check installed.run_line_updates "$n boot lines with an elapsed time" test "${n:-0}" -ge 2
line=$(grep -m1 '^run filed: ' "$out/run.lines" || true)
check installed.run_summary "${line:-no 'run filed:' line}" test "${line%% (*}" = "run filed: ${run:-?}"
# what the terminal said is filed: the run's record, read back through the
# installed bpk
got=$("$bpk" show last --field status 2>&1 || true)/$("$bpk" show last --field report.state 2>&1 || true)
check installed.run_record_kept "status/report.state of the last run: $got" test -n "$run" -a "$got" = "success/written"
left=''
for q in $seen_qemu; do
	! kill -0 "$q" 2>/dev/null || left+=" $q"
done
check installed.no_qemu_left "QEMU seen under $runs during the run:${seen_qemu:- none}; left:${left:- none}" \
	test -n "$seen_qemu" -a -z "$left"
# shellcheck disable=SC2086 # pids
[[ -z $left ]] || kill -9 $left 2>/dev/null || true

if [[ -n $run ]]; then
	id=${run##*/}
	# runs: the row of this run, against report.json and the vmcore's size
	row=$("$bpk" runs 2>&1 | awk -v id="$id" '$1 == id' || true)
	fire=$(python3 -c 'import json, sys; print("%.3fs" % (json.load(open(sys.argv[1]))["fire"]["fields"]["time_ns"] / 1e9))' "$run/report.json" 2>&1 || true)
	size=$(python3 -c 'import os, sys; print("%.1fM" % (os.path.getsize(sys.argv[1]) / 1048576))' "$run/vmcore")
	check installed.runs_row "${row:-no row for $id}" test "$(tr -s ' ' <<<"$row")" = "$id syscall_errno success trigger $size $fire"
	"$bpk" show last --json >"$out/show.json" 2>&1 || true
	v=$(/usr/bin/python3 "$top/analysis/report-check.py" "$out/show.json" 2>&1 || true)
	check installed.show_json_schema "${v:-no answer from report-check.py}" test "$v" = "ok $out/show.json"
	got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["run"]["id"], d["run"]["status"], d["trigger"]["name"])' "$out/show.json" 2>&1 || true)
	check installed.show_json_run "${got:-nothing}" test "$got" = "$id success syscall_errno"
	"$bpk" show "${id:0:14}" >"$out/show.txt" 2>&1 || true
	check installed.show_report "$(grep -c '' "$out/show.txt") lines, $(grep -m1 '^PANIC:' "$out/show.txt" || echo 'no PANIC line')" \
		cmp -s "$out/show.txt" "$run/report.txt"
	got=$(echo 'print("trigger", fire()["trigger"])' | "$bpk" drgn "$id" 2>&1 | grep -o 'trigger [a-z_]*$' | head -1 || true)
	check installed.drgn "${got:-no fire() output}" test "$got" = "trigger syscall_errno"
fi

# --- selftest's codes for a vmcore missing (4) and a report failed (5),
# judged on copies of this real run (hard links; the changed file replaced)
if [[ -n $run ]]; then
	fx=$out/judged
	mkdir -p "$fx"
	cp -al "$run" "$fx/${id%Z-*}Z-novmcore" && rm "$fx/${id%Z-*}Z-novmcore/vmcore"
	# the record replaced, not changed in place: it is a hard link to the run's
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["dump"]["state"] = "incomplete"
json.dump(d, open(sys.argv[2], "w"))' "$run/run.json" "$fx/run.json"
	mv "$fx/run.json" "$fx/${id%Z-*}Z-novmcore/run.json"
	rc=0
	got=$("$bpk" --runs "$fx" selftest --run "${id%Z-*}Z-novmcore" 2>&1) || rc=$?
	check installed.selftest_no_vmcore "exit $rc: $(tail -1 <<<"${got:-nothing}")" \
		test "$rc" = 4 -a "$(grep -c '^ok   ' <<<"$got")" = 3 -a -n "$(grep '^FAIL vmcore: no verified vmcore (dump=incomplete' <<<"$got")"
	cp -al "$run" "$fx/${id%Z-*}Z-noreport"
	grep -v '^   trigger=' "$run/report.txt" >"$fx/report.txt" && mv "$fx/report.txt" "$fx/${id%Z-*}Z-noreport/report.txt"
	rc=0
	got=$("$bpk" --runs "$fx" selftest --run "${id%Z-*}Z-noreport" 2>&1) || rc=$?
	check installed.selftest_report_failed "exit $rc: $(tail -1 <<<"${got:-nothing}")" \
		test "$rc" = 5 -a "$(grep -c '^ok   ' <<<"$got")" = 4 -a -n "$(grep '^FAIL report: .*fire record not in it' <<<"$got")"
	rc=0
	got=$("$bpk" selftest --run "$id" 2>&1) || rc=$?
	check installed.selftest_judges_run "exit $rc: $(tail -1 <<<"${got:-nothing}")" \
		test "$rc" = 0 -a "$(grep -c '^ok   ' <<<"$got")" = 5
fi

# --- selftest, not at a terminal: one line per stage, exit 0
rc=0
"$bpk" selftest </dev/null >"$out/selftest.txt" 2>&1 || rc=$?
stages=$(sed -n 's/^ok   \([a-z]*\): .*/\1/p' "$out/selftest.txt" | tr '\n' ' ')
check installed.selftest "exit $rc: ${stages:-no ok lines} ($(tail -1 "$out/selftest.txt"))" \
	test "$rc" = 0 -a "$stages" = "boot arm fire vmcore report "
n=$(filed_runs "$runs" | wc -l)
check installed.selftest_filed "$n runs under $runs" test "$n" = 2

# --- the installed completion and man page
comp=$dest/usr/share/bash-completion/completions/bpk
got=$(PATH=$dest/usr/bin:$PATH bash -c '. "$1"; COMP_WORDS=(bpk run func_); COMP_CWORD=2; _bpk; printf "%s " "${COMPREPLY[@]}"' _ "$comp" 2>&1 || true)
check installed.completion "bpk run func_<TAB>: ${got:-nothing}" test "$got" = "func_entry func_error "
got=$(man -l "$dest/usr/share/man/man1/bpk.1" 2>/dev/null | head -1 | tr -s ' ' || true)
check installed.man "${got:-nothing}" test "$got" = "bpk(1) General Commands Manual bpk(1)"

# --- uninstall: exactly what install wrote, the runs stay
cd "$top"
rc=0
make -s uninstall DESTDIR="$dest" PREFIX=/usr >"$out/uninstall.out" 2>&1 || rc=$?
after=$(listing "$dest")
check uninstall.nothing_left "exit $rc, left: ${after:-nothing}" test "$rc" = 0 -a "$after" = "$before"
n=$(filed_runs "$runs" | wc -l)
check uninstall.runs_kept "$n runs under $runs" test "$n" = 2
