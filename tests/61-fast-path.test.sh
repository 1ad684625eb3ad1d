#!/usr/bin/env bash
# The loop's fast path, on one real demo run with its console
# stamped on the host's clock, as make bench does:
#  - the kdump image has our /init and none of dracut's shell init or udev;
#    the capture kernel runs the capture step straight from it;
#  - makedumpfile's errors and step times reach the console;
#  - the report prints its first look (drgn) before the full report, with
#    the cause the run's record (run.json) names and the dump's own, and
#    times it in report.json;
#  - bench/phases.py splits the run into phases, every one observed and not
#    negative, which add up to the panic-to-power-off interval; it refuses a
#    console without the markers it needs, naming the missing one.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

py=/usr/bin/python3
img=$build/appliance/kdump.img

# --- the image: our /init, no dracut init, no udev
lsinitrd "$img" >"$out/kdump-files.txt" 2>/dev/null || true
check_file_has image.own_init "$out/kdump-files.txt" ' init$'
check_file_has image.capture_step "$out/kdump-files.txt" ' usr/lib/bpk/bpk-capture.sh$'
check_file_lacks image.no_udev "$out/kdump-files.txt" 'udevadm|systemd-udevd|dracut-lib\.sh'
(cd "$out" && rm -rf unpacked && mkdir unpacked && cd unpacked && lsinitrd --unpack "$img" >/dev/null 2>&1) || true
check_has image.init_is_ours "$(grep -m1 '^\. /usr/lib/bpk/bpk-capture.sh' "$out/unpacked/init" 2>/dev/null || true)" \
	'. /usr/lib/bpk/bpk-capture.sh'

# --- one stamped demo run
runs=$out/runs
mkdir -p "$runs"
# booted (--cold), as make bench's phase table: the phases split a boot
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh --timeout 240 --cold >"$out/run.out" 2>"$out/run.err" &
pid=$!
bench/console-stamp.sh "$runs" "$pid" "$out/stamped.txt" &
spid=$!
rc=0
wait "$pid" || rc=$?
wait "$spid" || true
run=$(filed_runs "$runs" | tail -1)
if ((rc != 0)) || [[ -z $run ]]; then
	fail run "exit $rc: $(grep -m1 'error:' "$out/run.err" || tail -1 "$out/run.err")"
	exit 0
fi
pass run "$run"

# the capture kernel: straight from /init to the capture step
check_file_has capture.step_ran "$run/console.log" '^bpk-capture: crash kernel up'
check_file_lacks capture.no_dracut_init "$run/console.log" '^dracut: |dracut Warning|udevd'
# no PS/2 probing beside the dump (the mouse's polls the controller for
# most of a second under TCG): the capture kernel's part of the console
awk '/Linux version/ { n++ } n >= 2' "$run/console.log" >"$out/capture-console.txt"
check_file_has capture.console_split "$out/capture-console.txt" '^bpk-capture: crash kernel up'
check_file_lacks capture.no_ps2 "$out/capture-console.txt" 'serio: i8042 (KBD|AUX) port|AT Translated|ImExPS/2|PS/2 Generic'
check_file_has capture.makedumpfile_steps "$run/console.log" 'STEP \[Copying data *\] : [0-9.]+ seconds'
# the reservation check sees the smaller image: kernel + image + runtime
need=$(sed -n 's/^bpk: the capture kernel needs \([0-9.]*\) MiB.*/\1/p' "$run/guest.log" | head -1)
packed=$(sed -n 's/.*initramfs \([0-9.]*\) packed.*/\1/p' "$run/guest.log" | head -1)
unpacked=$(sed -n 's/.* \([0-9.]*\) unpacked.*/\1/p' "$run/guest.log" | head -1)
check capture.image_small "kdump image as loaded: ${packed:-not in guest.log} MiB, unpacked ${unpacked:-?} MiB (dracut's init and udev made it 9.7 and 22.8); need ${need:-?} MiB" \
	awk -v p="${packed:-99}" -v u="${unpacked:-99}" 'BEGIN { exit !(p > 0 && p < 8 && u > 0 && u < 8) }'
# a plain cpio: nothing for the capture kernel to decompress
check capture.image_plain_cpio "first bytes of kdump.img: $(head -c 6 "$img" | od -An -c | tr -s ' ')" \
	test "$(head -c 6 "$img")" = 070701

# --- the first look, before the report, with the record's cause
first=$(grep -n -m1 '^== First look (drgn' "$out/run.out" | cut -d: -f1 || true)
report=$(grep -n -m1 '^bpf-panic kdump report' "$out/run.out" | cut -d: -f1 || true)
check report.first_look_before_report "first look at line ${first:-none}, report at line ${report:-none} of bpk run's output" \
	test -n "$first" -a -n "$report" -a "${first:-0}" -lt "${report:-0}"
cause=$(record_field "$run" cause.run || true)
look_cause=$(sed -n 's/^   cause:  \([a-z]*\):.*/\1/p' "$out/run.out" | head -1)
check report.first_look_cause "first look: ${look_cause:-none}; run.json: ${cause:-none}" \
	test -n "$cause" -a "$look_cause" = "$cause"
# the dump's own cause, from drgn alone: the demo trigger's fire record
look_dump=$(grep -m1 '^   dump:   ' "$out/run.out" || true)
check report.first_look_dump_cause "${look_dump:-no dump: line in the first look}" \
	grep -q '^   dump:   trigger: fire record: syscall_errno fired through bpf_panic$' <<<"$look_dump"
check_has report.first_look_fire "$(grep -m1 '^   fire:   ' "$out/run.out" || true)" 'trigger=syscall_errno'
read -r fl rs < <("$py" -c 'import json, sys; t = json.load(open(sys.argv[1]))["timings"]; print(t.get("first_look_s", -1), t.get("report_s", -1))' "$run/report.json" || echo "-1 -1")
check report.first_look_timed "report.json: first_look_s=$fl report_s=$rs" \
	awk -v f="$fl" -v r="$rs" 'BEGIN { exit !(f > 0 && r > 0 && f <= r) }'

# --- the phases
rc=0
bench/phases.py "$out/stamped.txt" >"$out/phases.txt" 2>"$out/phases.err" || rc=$?
n=$(grep -vc '^@' "$out/phases.txt" || true)
check phases.split "exit $rc, $n phases: $(tr '\t\n' '= ' <"$out/phases.txt" | cut -c1-300)" \
	test "$rc" -eq 0 -a "$n" -ge 15
neg=$(awk -F '\t' '$1 !~ /^@/ && $2 < 0 { print $1 "=" $2 }' "$out/phases.txt")
check phases.none_negative "${neg:-none negative}" test -z "$neg" -a -s "$out/phases.txt"
# the capture's phases add up to panic-to-power-off (they share boundaries)
read -r sum total < <(awk -F '\t' '$1 ~ /^(panic to capture console|capture: )/ { s += $2 }
	$1 == "panic to capture kernel powered off" { t = $2 } END { printf "%.3f %.3f\n", s, t }' "$out/phases.txt")
check phases.add_up "capture phases sum to $sum s, panic to power off $total s" \
	awk -v s="$sum" -v t="$total" 'BEGIN { d = s - t; exit !(t > 0 && d < 0.01 && d > -0.01) }'
# a console without what it needs: one line naming the marker, exit 1
head -3 "$out/stamped.txt" >"$out/cut.txt"
one_line phases.refuses_cut_console "no console line with" bench/phases.py "$out/cut.txt"
: >"$out/empty.txt"
one_line phases.refuses_empty "no stamped lines" bench/phases.py "$out/empty.txt"
