#!/usr/bin/env bash
# A flaky bug (1 in 3 per attempt, tests/campaign/flaky.sh) under
# --attempts 20 --jobs 2, restored from the armed snapshot: the first fire
# is filed with its vmcore, which crash and drgn both open, and its report
# shows the fire; every vmcore is a fired attempt's; the summary's counts
# are the attempt records'; the restored guest checked its crash kernel
# before arming; no QEMU is left.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

run_campaign flaky 0 syscall_errno syscall=openat errno=ENOENT comm=flaky --attempts 20 --jobs 2 \
	--workload tests/campaign/flaky.sh --runs "$out/runs" --timeout 120 || exit 0
check_summary flaky.snapshot_mode "$camp" mode '^snapshot$'
check_summary flaky.restored "$camp" restored '^true$'
check_summary flaky.snapshot_armed "$camp" snapshot_armed '^true$'
check_summary flaky.time_to_armed "$camp" mean_to_armed_s '^[0-9]+(\.[0-9]+)?$'
check_summary flaky.attempts_per_minute "$camp" attempts_per_minute '^[0-9]+(\.[0-9]+)?$'
check_summary flaky.time_to_first_fire "$camp" time_to_first_fire_s '^[0-9]+(\.[0-9]+)?$'
# parallel ran each attempt as bpk run, numbered, filed under its own dir
check_file_has flaky.joblog "$camp/joblog" " bpk --runs ${camp##*/}/attempts/([0-9]+)/runs run --kernel ours --crashkernel [0-9]+M --attempt \\1 --campaign ${camp##*/} --args-file ${camp##*/}/attempt-args"

run=$(summary "$camp" first_fire_run)
printed=$(tail -1 "$out/stdout" 2>/dev/null || true)
check flaky.prints_first_run "stdout: ${printed:-nothing}, summary: ${run:-none}" test -n "$run" -a "$printed" = "$run"
if [[ -z $run || ! -d $run ]]; then
	fail flaky.first_run "no first fire's run: ${run:-none}"
	exit 0
fi
all=$(vmcores "$camp")
n=$(grep -c . <<<"$all" || true)
check flaky.one_vmcore_per_fire "$n vmcore(s), summary fired=$(summary "$camp" fired): $(tr '\n' ' ' <<<"$all")" \
	test "$n" -ge 1 -a "$n" = "$(summary "$camp" fired)"
check flaky.first_has_vmcore "$(find "$run" -mindepth 1 -printf '%f ')" test -s "$run/vmcore"
check_field_match flaky.first_run_restored "$run" guest.restored_from '^/'
check_field_match flaky.restore_timed "$run" timings.restore_s '^[0-9.]+$'
check_field flaky.attempt_numbered "$run" campaign.attempt "$(summary "$camp" first_fire_attempt)"
# as on boot: the crash kernel checked before arming (in the snapshot's
# boot), and again after the restore, before the guest says it is armed
order=$(grep -o -E '^BPK-STATE (idle|restored|crash-kernel-loaded|armed)' "$run/guest.log" | cut -d' ' -f2 | tr '\n' ' ' || true)
check_has flaky.crash_kernel_checked_after_restore "$order" "crash-kernel-loaded armed idle restored crash-kernel-loaded armed"
check_file_has flaky.kexec_crash_loaded "$run/guest.log" 'crash kernel +loaded \(/sys/kernel/kexec_crash_loaded = 1\)'
# the report: the fire, from the dump, read by crash and drgn alike
if [[ -s $run/report.json ]]; then
	got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = d["fire"]["fields"]
print(d["cause"]["dump"], f["trigger"], f["comm"], f["detail"],
      "crash=%s" % d["analyzers"]["crash"]["ok"], "drgn=%s" % d["analyzers"]["drgn"]["ok"],
      "agree=%s" % d["fire"]["crash_drgn_agree"])' "$run/report.json" 2>&1 || true)
	check_has flaky.report_shows_fire "$got" "trigger syscall_errno flaky syscall=257 errno=2 crash=True drgn=True agree=True"
else
	fail flaky.report_shows_fire "$run/report.json: missing or empty"
fi
check_file_has flaky.report_txt_fire "$run/report.txt" 'comm.*flaky'
# the attempt that fired drew a multiple of 3; every attempt that ran out did not
draws=$(grep -h -o 'flaky: attempt [0-9]* drew [0-9]*' "$camp"/attempts/*/runs/*/workload.log | sort -t' ' -k3n | tr '\n' ';' || true)
drew=$(grep -o 'flaky: attempt [0-9]* drew [0-9]*' "$run/workload.log" | head -1 || true)
d=${drew##* drew } hit=no
[[ ! $d =~ ^[0-9]+$ ]] || ((d % 3 != 0)) || hit=yes
check flaky.fired_attempt_drew "${drew:-no draw in $run/workload.log} (first fire: attempt $(summary "$camp" first_fire_attempt), a multiple of 3: $hit)" \
	test -n "$drew" -a "${drew% drew *}" = "flaky: attempt $(summary "$camp" first_fire_attempt)" -a "$hit" = yes
bad=$(for f in "$camp"/attempts/*/attempt.json; do
	[[ $(json_value "$f" outcome 2>/dev/null) == ran-out ]] || continue
	d=$(grep -h -o 'drew [0-9]*' "${f%/attempt.json}"/runs/*/workload.log | cut -d' ' -f2)
	[[ -n $d ]] && (((d % 3) != 0)) || echo "${f%/attempt.json}:${d:-none}"
done)
check flaky.ran_out_drew_no_hit "draws: ${draws:-none}; ran-out with a hit: ${bad:-none}" test -n "$draws" -a -z "$bad"
