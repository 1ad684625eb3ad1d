# shellcheck shell=bash disable=SC2154 # out, bpk: set by tests/lib.sh, sourced first
# Helpers of the campaign tests (90-97), on top of tests/lib.sh.

# campaign_of RUNS: the campaign dir made under RUNS (the newest)
campaign_of() {
	{ find "$1" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | sort | tail -1
}

# json_value FILE KEY: KEY's value in the JSON object of FILE: a string as
# it is, a number or boolean as JSON writes it, null or absent as nothing;
# fails with one line on stderr when FILE is missing or not JSON
json_value() {
	/usr/bin/python3 -c 'import json, sys
try:
    v = json.load(open(sys.argv[1])).get(sys.argv[2])
except (OSError, ValueError, AttributeError) as e:
    sys.exit("%s: %s" % (sys.argv[1], e))
if v is not None:
    print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

# summary CAMP KEY: KEY's value in CAMP/campaign.json (nothing when absent,
# null or unreadable)
summary() { json_value "$1/campaign.json" "$2" 2>/dev/null || true; }

# attempt_value CAMP N KEY: KEY's value in attempt N's record
# (CAMP/attempts/N/attempt.json; nothing when absent or unreadable)
attempt_value() { json_value "$1/attempts/$2/attempt.json" "$3" 2>/dev/null || true; }

# check_json NAME FILE KEY REGEX: PASS if FILE's KEY (json_value) is not
# empty and matches the extended REGEX; a missing file or key fails
check_json() {
	local name=$1 file=$2 key=$3 re=$4 got rc=0
	got=$(json_value "$file" "$key" 2>&1) || rc=$?
	if ((rc == 0)) && [[ -n $got ]] && grep -qE -- "$re" <<<"$got"; then
		pass "$name" "${file##*/}: $key=$got"
	else
		fail "$name" "${file##*/}: $key=${got:-nothing} (want a match of $re)"
	fi
}

# check_summary NAME CAMP KEY REGEX: check_json on CAMP/campaign.json
check_summary() { check_json "$1" "$2/campaign.json" "$3" "$4"; }

# records CAMP OUTCOME: how many attempt.json records say outcome OUTCOME
records() {
	local f n=0
	for f in "$1"/attempts/*/attempt.json; do
		[[ -e $f ]] && [[ $(json_value "$f" outcome 2>/dev/null) == "$2" ]] && n=$((n + 1))
	done
	echo "$n"
}

# check_counts NAME CAMP: the summary's counts are those of the attempt
# records, and attempts.tsv has one line per record
check_counts() {
	local name=$1 camp=$2 o recs tsv made sum=0 want got
	if [[ ! -s $camp/campaign.json ]]; then
		fail "$name.summary" "$camp/campaign.json: missing or empty"
		return
	fi
	recs=$(find "$camp/attempts" -name attempt.json 2>/dev/null | wc -l)
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

# check_no_qemu NAME CAMP: no QEMU (bpk names an attempt's staging dir,
# under CAMP/attempts, in its argv) nor any other process whose command
# line names the campaign's attempts is left; any found is killed after
# the check
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

# run_campaign NAME WANT ARGS...: bpk campaign ARGS (which give --runs
# "$out/runs"), its stdout and stderr in $out, then campaign_checks
run_campaign() {
	local name=$1 want=$2 rc=0
	shift 2
	"$bpk" campaign "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
	campaign_checks "$name" "$rc" "$want"
}

# vmcores CAMP: every vmcore filed under the campaign
vmcores() { find "$1/attempts" -name vmcore -type f 2>/dev/null | sort; }

# fire_fields RUN: the fire record read from RUN's vmcore (report.json
# fire.fields) as "trigger comm detail" on one line, or what is missing
fire_fields() {
	/usr/bin/python3 -c 'import json, sys
try:
    f = json.load(open(sys.argv[1]))["fire"]["fields"]
    print(f["trigger"], f["comm"], f["detail"])
except (OSError, ValueError, KeyError, TypeError) as e:
    print("no fire record in %s: %s" % (sys.argv[1], e))' "$1/report.json"
}

# dump_cause RUN: the cause the report read from RUN's dump itself
# (report.json cause.dump), or what is missing
dump_cause() {
	/usr/bin/python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1]))["cause"]["dump"])
except (OSError, ValueError, KeyError, TypeError) as e:
    print("no dump-level cause in %s: %s" % (sys.argv[1], e))' "$1/report.json"
}
