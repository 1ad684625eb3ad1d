#!/usr/bin/env bash
# Ctrl-C (SIGINT to the campaign's process group) while two attempts run:
# exit 130, every guest stopped, each attempt recorded (stopped) with its
# run filed as interrupted, the summary says so; no vmcore.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

# armed_count: attempts whose staging results show the trigger armed
armed_count() {
	{ grep -l '^BPK-STATE armed' "$out"/runs/campaign-*/attempts/*/runs/.staging-*/results.txt 2>/dev/null || true; } | wc -l
}
# a background job starts with SIGINT ignored: env gives it back
setsid env --default-signal=INT "$bpk" campaign syscall_errno syscall=openat errno=ENOSPC \
	--attempts 6 --jobs 2 --repeat 0 --workload tests/campaign/never.sh --runs "$out/runs" --timeout 120 \
	>"$out/stdout" 2>"$out/stderr" &
pid=$!
until=$(($(now_ms) + 120000))
while (($(armed_count) < 2)) && (($(now_ms) < until)); do sleep 0.2; done
n=$(armed_count)
check interrupt.two_armed "$n attempt(s) armed before the signal" test "$n" -ge 2
sleep 1
kill -INT -- "-$pid" 2>/dev/null || true
rc=0
until=$(($(now_ms) + 120000))
while kill -0 "$pid" 2>/dev/null && (($(now_ms) < until)); do sleep 0.2; done
kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid"
wait "$pid" || rc=$?
campaign_checks interrupt "$rc" 130 || exit 0
check_summary interrupt.summary_says "$camp" interrupted '^SIGINT$'
check_file_has interrupt.log_says "$camp/campaign.log" 'interrupted by SIGINT: every guest stopped'
stopped=$(summary "$camp" stopped)
check interrupt.attempts_stopped "stopped=${stopped:-none}" test "${stopped:-0}" -ge 2
bad=''
for f in "$camp"/attempts/*/attempt.json; do
	[[ -e $f ]] || continue
	[[ $(json_value "$f" outcome 2>/dev/null) == stopped ]] || continue
	r=$(json_value "$f" run 2>/dev/null || true)
	[[ -n $r && $(record_field "$r" status 2>/dev/null) == interrupted ]] || bad+=" ${f%/attempt.json}"
done
check interrupt.runs_filed_interrupted "stopped attempts whose run is not filed as interrupted:${bad:- none}" test -z "$bad"
all=$(vmcores "$camp")
check interrupt.no_vmcore "vmcores: ${all:-none}" test -z "$all"
left=$(find "$camp" -name '.staging-*' | head -3)
check interrupt.no_staging_left "${left:-no staging dir left}" test -z "$left"
