#!/usr/bin/env bash
# A campaign refuses bad input with one line and exit 2, before it makes a
# campaign dir or boots anything (no QEMU under its runs dir or snapshot
# cache while it ran); --help answers. make campaign hands its variables
# to bpk campaign: bad ones come back as bpk's one line, and a campaign
# started through it (GNU parallel replaced by a stand-in that records its
# arguments and starts nothing) has them.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out
cd "$top"

# a snapshot a campaign would make (its first boot) goes into this cache
export BPK_CACHE=$out/cache
c=("$bpk" campaign)
r=(--runs "$out/runs")
# refused NAME WANT CMD...: one_line, while the QEMUs whose guest writes
# under $out/runs (an attempt's run) or $BPK_CACHE (a snapshot) are added
# to $seen_qemu; a command still running after 30 s is stopped (a refusal
# is at once)
seen_qemu=''
refused() {
	local name=$1 want=$2 rc=0 msg pid q t=0
	shift 2
	"$@" >/dev/null 2>"$out/refused.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		for q in $(qemu_on "$out/runs") $(qemu_on "$BPK_CACHE"); do
			[[ " $seen_qemu " == *" $q "* ]] || seen_qemu+=" $q"
		done
		((t++ < 300)) || kill "$pid" 2>/dev/null || true
		sleep 0.1
	done
	wait "$pid" || rc=$?
	msg=$(cat "$out/refused.err")
	if ((rc != 0)) && [[ -n $msg && $(wc -l <<<"$msg") -eq 1 && $msg == *"$want"* ]]; then
		pass "$name" "exit $rc: $msg"
	else
		fail "$name" "exit $rc, want one line with '$want': ${msg:-no message}"
	fi
}
refused bad.no_trigger "a trigger (or --prog FILE) is required" "${c[@]}" --attempts 2 --jobs 1 "${r[@]}"
refused bad.prog_and_trigger "a trigger's name and --prog FILE exclude each other" "${c[@]}" syscall_errno --prog /nonexistent.bpf.c --attempts 2 --jobs 1 "${r[@]}"
refused bad.prog_missing "--prog /nonexistent.bpf.c: No such file or directory" "${c[@]}" --prog /nonexistent.bpf.c --attempts 2 --jobs 1 "${r[@]}"
refused bad.no_attempts "--attempts is required" "${c[@]}" syscall_errno --jobs 1 "${r[@]}"
refused bad.zero_attempts "--attempts '0' is not a number from 1" "${c[@]}" syscall_errno --attempts 0 --jobs 1 "${r[@]}"
refused bad.jobs "--jobs 'x' is not a number" "${c[@]}" syscall_errno --attempts 2 --jobs x "${r[@]}"
refused bad.jobs_no_value "--jobs needs a value" "${c[@]}" syscall_errno --attempts 2 "${r[@]}" --jobs
refused bad.option "unknown option '--bogus'" "${c[@]}" syscall_errno --attempts 2 --jobs 1 --bogus "${r[@]}"
refused bad.trigger "unknown trigger 'nosuch'" "${c[@]}" nosuch --attempts 2 --jobs 1 "${r[@]}"
refused bad.trigger_arg "syscall=nosuch" "${c[@]}" syscall_errno syscall=nosuch --attempts 2 --jobs 1 "${r[@]}"
refused bad.two_triggers "one trigger only" "${c[@]}" syscall_errno func_entry --attempts 2 --jobs 1 "${r[@]}"
refused bad.arg_first "the trigger's name comes first" "${c[@]}" syscall=openat syscall_errno --attempts 2 --jobs 1 "${r[@]}"
refused bad.workload "/nonexistent: workload not found" "${c[@]}" syscall_errno syscall=openat --attempts 2 --jobs 1 --workload /nonexistent "${r[@]}"
refused bad.workload_and_cmd "give one of them" "${c[@]}" syscall_errno --attempts 2 --jobs 1 \
	--workload tests/campaign/flaky.sh "${r[@]}" -- true
refused bad.timeout "--timeout '0' is not a positive" "${c[@]}" syscall_errno --attempts 2 --jobs 1 --timeout 0 "${r[@]}"
refused bad.mem "--mem '1T' is not a size" "${c[@]}" syscall_errno --attempts 2 --jobs 1 --mem 1T "${r[@]}"

made=$({ find "$out/runs" "$BPK_CACHE" -mindepth 1 2>/dev/null || true; } | head -3 | tr "\n" " ")
check bad.nothing_made "under $out/runs and $BPK_CACHE: ${made:-nothing}" test -z "$made"
check bad.nothing_booted "QEMU under $out/runs or $BPK_CACHE while they ran: ${seen_qemu:-none}" test -z "$seen_qemu"

help=$("${c[@]}" --help 2>&1 | grep -m1 'bpk campaign TRIGGER' || true)
check_has bad.help "$help" "--attempts N --jobs J"

# make campaign: TRIGGER= is required; the rest becomes bpk campaign's arguments
rc=0
msg=$(make -s campaign 2>&1 >/dev/null) || rc=$?
check_has make.no_trigger "exit $rc: $(head -1 <<<"$msg")" "exit 2: make campaign: TRIGGER= is required"
# make_says NAME WANT VAR=VALUE...: make campaign with a bad variable: bpk's
# one error line names it, and make says the recipe exited 2 (bad input)
make_says() {
	local name=$1 want=$2 rc=0 msg line
	shift 2
	msg=$(make -s campaign TRIGGER=syscall_errno ARGS="syscall=openat" ATTEMPTS=2 JOBS=1 RUNS="$out/make-bad" "$@" 2>&1 >/dev/null) || rc=$?
	line=$(grep '^bpk: error: ' <<<"$msg" || true)
	if ((rc != 0)) && [[ $(grep -c . <<<"$line") == 1 && $line == *"$want"* && $msg == *"] Error 2"* ]]; then
		pass "$name" "exit $rc: $line"
	else
		fail "$name" "exit $rc, want bpk's one line with '$want' and the recipe's exit 2: ${msg:-no message}"
	fi
}
make_says make.bad_trigger "unknown trigger 'nosuch'" TRIGGER=nosuch
make_says make.bad_args "syscall=nosuch" ARGS="syscall=nosuch errno=ENOENT"
make_says make.bad_attempts "--attempts '0' is not a number" ATTEMPTS=0
make_says make.bad_jobs "--jobs 'x' is not a number" JOBS=x
make_says make.bad_workload "/nonexistent/wl: workload not found" WORKLOAD=/nonexistent/wl
make_says make.bad_timeout "--timeout '0' is not a positive" TIMEOUT=0
make_says make.bad_mem "--mem '1T' is not a size" MEM=1T
make_says make.bad_sshlogin "--sshlogin: a control character" SSHLOGIN=$'a\tb'
check make.bad_nothing_made "under $out/make-bad: $(find "$out/make-bad" -mindepth 1 2>/dev/null | head -3 | tr '\n' ' ')" \
	test -z "$(find "$out/make-bad" -mindepth 1 2>/dev/null)"

# A campaign started through make, GNU parallel replaced by a stand-in on
# PATH that writes its arguments, one a line, and starts no attempt
mkdir -p "$out/shim"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\nexit 1\n' "$out/parallel.args" >"$out/shim/parallel"
chmod +x "$out/shim/parallel"
rc=0
PATH=$out/shim:$PATH make -s campaign TRIGGER=syscall_errno ARGS="syscall=openat errno=ENOENT" \
	WORKLOAD=tests/campaign/flaky.sh ATTEMPTS=7 JOBS=2 RUNS="$out/make-runs" FRESH=1 SSHLOGIN=: TIMEOUT=77 MEM=512M \
	>"$out/make.out" 2>"$out/make.err" || rc=$?
camp=$({ find "$out/make-runs" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | head -1)
# field KEY: campaign.json's KEY, as JSON text
field() {
	/usr/bin/python3 -c 'import json, sys
try:
    print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))
except (OSError, ValueError, KeyError) as e:
    print("(%s: %s)" % (sys.argv[1], e))' "$camp/campaign.json" "$1"
}
got="$(field trigger) $(field args) $(field attempts_planned) $(field jobs)"
check make.campaign_args "exit $rc, ${camp:-no campaign dir under $out/make-runs}: $got" \
	test -n "$camp" -a "$got" = '"syscall_errno" "syscall=openat errno=ENOENT" 7 2'
got=$(field workload)
check make.campaign_options "campaign dir ${camp:-none}; workload $got" \
	test -n "$camp" -a "$got" = "\"$top/tests/campaign/flaky.sh\""
got="$(field mode) $(field fresh_why)"
check make.campaign_fresh "$got" test "$got" = '"fresh" "asked for (--fresh)"'
pa=$(tr '\n' ' ' <"$out/parallel.args" 2>/dev/null || true)
at=${camp##*/}
check make.campaign_ssh "parallel's arguments: ${pa:-none}" \
	grep -qF -- "--sshlogin : --basefile $top/tests/campaign/flaky.sh --return $at/attempts/{1} --basefile $at/attempt-args " <<<"${pa:-none}"
# parallel's template holds only what bpk wrote; the user's words are in
# the attempts' words file
check make.campaign_template "parallel's arguments: ${pa:-none}" \
	grep -qE -- " bpk --runs $at/attempts/\\{1\\}/runs run --kernel \\{2\\} --crashkernel \\{3\\} --attempt \\{1\\} --campaign $at --args-file $at/attempt-args \$" <<<"${pa:-none}"
check make.campaign_no_user_word_in_template "parallel's arguments: ${pa:-none}" \
	test -n "$pa" -a -n "${pa##*syscall=openat*}" -a -n "${pa##*--workload*}" -a -n "${pa##*--mem*}"
words=$(tr '\0' ' ' <"${camp:-/nonexistent}/attempt-args" 2>/dev/null || true)
check make.campaign_run_options "the attempts' words: ${words:-none}" \
	test "$words" = "syscall_errno syscall=openat errno=ENOENT --timeout 77 --mem 512M --repeat 1 --no-build --quiet --workload $top/tests/campaign/flaky.sh "
check make.campaign_fresh_boots "the attempts' words: ${words:-none}" \
	test -n "$words" -a -n "${words##*--restore*}"
