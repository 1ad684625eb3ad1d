# shellcheck shell=bash disable=SC2154 # out: set by tests/lib.sh, sourced first
# Helpers of the campaign tests (90-96), on top of tests/lib.sh.

# campaign_of RUNS: the campaign dir made under RUNS (the newest)
campaign_of() {
	{ find "$1" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | sort | tail -1
}

# summary CAMP KEY: KEY's value in CAMP/summary (nothing when absent)
summary() { sed -n "s/^$2=//p" "$1/summary" 2>/dev/null; }

# records CAMP OUTCOME: how many attempt.rec files say outcome=OUTCOME
records() {
	local f n=0
	for f in "$1"/attempts/*/attempt.rec; do
		[[ -e $f ]] && grep -qx "outcome=$2" "$f" && n=$((n + 1))
	done
	echo "$n"
}

# check_counts NAME CAMP: the summary's counts are those of the attempt
# records, and attempts.tsv has one line per record
check_counts() {
	local name=$1 camp=$2 o recs tsv made sum=0 want got
	if [[ ! -s $camp/summary ]]; then
		fail "$name.summary" "$camp/summary: missing or empty"
		return
	fi
	recs=$(find "$camp/attempts" -name attempt.rec 2>/dev/null | wc -l)
	tsv=$(($(wc -l <"$camp/attempts.tsv" 2>/dev/null || echo 1) - 1))
	made=$(summary "$camp" attempts_made)
	check "$name.attempts_made" "summary ${made:-none}, attempt records $recs, attempts.tsv lines $tsv" \
		test -n "$made" -a "$made" = "$recs" -a "$recs" = "$tsv" -a "$recs" -gt 0
	for o in fired ran-out failed stopped; do
		want=$(summary "$camp" "${o/-/_}")
		got=$(records "$camp" "$o")
		sum=$((sum + got))
		check "$name.count_$o" "summary ${want:-none}, records $got" test -n "$want" -a "$want" = "$got"
	done
	check "$name.outcomes_add_up" "fired+ran-out+failed+stopped $sum of $recs records" test "$sum" = "$recs"
}

# check_no_qemu NAME CAMP: no QEMU (or any process) whose command line
# names the campaign dir is left; any found is killed after the check
check_no_qemu() {
	local left
	left=$(pgrep -f -- "$2/attempts" || true)
	check "$1.no_qemu_left" "processes naming $2/attempts: ${left:-none}" test -z "$left"
	# shellcheck disable=SC2086 # one pid a line
	[[ -z $left ]] || kill -9 $left 2>/dev/null || true
}

# campaign_checks NAME RC WANT: after a campaign under $out/runs that
# exited RC (its stderr in $out/stderr): the exit status is WANT, it made a
# campaign dir (sets camp), no process naming it is left, its counts add
# up. False when there is no campaign dir to check further.
campaign_checks() {
	local name=$1 rc=$2 want=$3
	# shellcheck disable=SC2034 # camp: for the test that called this
	camp=$(campaign_of "$out/runs")
	check "$name.exit_$want" "exit $rc: $(tail -1 "$out/stderr")" test "$rc" = "$want"
	if [[ -z $camp ]]; then
		fail "$name.campaign_dir" "nothing under $out/runs"
		return 1
	fi
	check_no_qemu "$name" "$camp"
	check_counts "$name" "$camp"
}

# run_campaign NAME WANT ARGS...: appliance/campaign.sh ARGS (which give
# --runs "$out/runs"), its stdout and stderr in $out, then campaign_checks
run_campaign() {
	local name=$1 want=$2 rc=0
	shift 2
	appliance/campaign.sh "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
	campaign_checks "$name" "$rc" "$want"
}

# vmcores CAMP: every vmcore filed under the campaign
vmcores() { find "$1/attempts" -name vmcore -type f 2>/dev/null | sort; }
