#!/usr/bin/env bash
# A campaign refuses bad input with one line and exit 2, before it makes a
# campaign dir or boots anything; --help answers.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

c=appliance/campaign.sh
r=(--runs "$out/runs")
one_line bad.no_trigger "a trigger is required" $c --attempts 2 --jobs 1 "${r[@]}"
one_line bad.no_attempts "--attempts '' is not a number" $c syscall_errno --jobs 1 "${r[@]}"
one_line bad.zero_attempts "--attempts '0' is not a number from 1" $c syscall_errno --attempts 0 --jobs 1 "${r[@]}"
one_line bad.jobs "--jobs 'x' is not a number" $c syscall_errno --attempts 2 --jobs x "${r[@]}"
one_line bad.jobs_no_value "--jobs needs a value" $c syscall_errno --attempts 2 "${r[@]}" --jobs
one_line bad.option "unknown option '--bogus'" $c syscall_errno --attempts 2 --jobs 1 --bogus "${r[@]}"
one_line bad.trigger "unknown trigger 'nosuch'" $c nosuch --attempts 2 --jobs 1 "${r[@]}"
one_line bad.trigger_arg "syscall=nosuch" $c syscall_errno syscall=nosuch --attempts 2 --jobs 1 "${r[@]}"
one_line bad.two_triggers "one trigger only" $c syscall_errno func_entry --attempts 2 --jobs 1 "${r[@]}"
one_line bad.arg_first "the trigger's name comes first" $c syscall=openat syscall_errno --attempts 2 --jobs 1 "${r[@]}"
one_line bad.workload "/nonexistent: workload not found" $c syscall_errno --attempts 2 --jobs 1 --workload /nonexistent "${r[@]}"
one_line bad.workload_and_cmd "give one of them" $c syscall_errno --attempts 2 --jobs 1 \
	--workload tests/campaign/flaky.sh "${r[@]}" -- true
one_line bad.timeout "--timeout '0' is not a positive" $c syscall_errno --attempts 2 --jobs 1 --timeout 0 "${r[@]}"
one_line bad.mem "--mem '1T' is not a size" $c syscall_errno --attempts 2 --jobs 1 --mem 1T "${r[@]}"

made=$({ find "$out/runs" -mindepth 1 2>/dev/null || true; } | head -3 | tr "\n" " ")
check bad.nothing_made "under $out/runs: ${made:-nothing}" test -z "$made"
left=$(pgrep -f -- "$out/runs" || true)
check bad.nothing_booted "processes naming $out/runs: ${left:-none}" test -z "$left"

help=$($c --help 2>&1 | grep -m1 'campaign.sh TRIGGER' || true)
check_has bad.help "$help" "--attempts N --jobs J"

# make campaign: TRIGGER= is required; the rest becomes campaign.sh's arguments
rc=0
msg=$(make -s campaign 2>&1 >/dev/null) || rc=$?
check_has make.no_trigger "exit $rc: $(head -1 <<<"$msg")" "exit 2: make campaign: TRIGGER= is required"
cmd=$(make -s -n campaign TRIGGER=syscall_errno ARGS="syscall=openat errno=ENOENT" WORKLOAD=tests/campaign/flaky.sh \
	ATTEMPTS=7 JOBS=2 RUNS=/nonexistent/runs FRESH=1 SSHLOGIN=: 2>/dev/null | tr -d '\\\n\t' |
	grep -o 'appliance/campaign\.sh.*' || true)
check_has make.campaign_args "$cmd" 'appliance/campaign.sh "syscall_errno" syscall=openat errno=ENOENT --attempts "7" --jobs "2"'
check_has make.campaign_options "$cmd" '--workload "tests/campaign/flaky.sh" --runs "/nonexistent/runs"'
check_has make.campaign_fresh "$cmd" '"1G" --fresh'
check_has make.campaign_ssh "$cmd" '--sshlogin ":"'
