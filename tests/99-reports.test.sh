#!/usr/bin/env bash
# runs last: it reads the reports every other script made
# Every report.json the test run made (all tests' runs under
# build/test-out, 99 runs last): each validates against
# analysis/report.schema.json (the run record in it against
# run.schema.json); the run kinds bpf_panic, crash_kexec, oops, warning,
# sysrq and failed are among them; on every run whose trigger fired, the fire
# record drgn decoded equals crash's, field by field, with neither side
# missing where both analyzers opened the dump; every report's cause
# comparison is consistent (agree exactly when the run's and the dump's
# causes are the same word, a disagreement listed exactly when not);
# every report.txt has one Cause and one Fire record section; and the
# hung_task README example's reports (60's, 51's, 71's) name the hung task
# from the fire record and show it first, in D, with its stack.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

py=/usr/bin/python3 # Debian's, which has python3-jsonschema

# --- every report.json so far (all tests' runs)
mapfile -t newer < <(this_invocation)
mapfile -t reports < <(find "$build/test-out" -name report.json "${newer[@]}" | sort)
if ((${#reports[@]} == 0)); then
	fail json.validates "no report.json found"
else
	rc=0
	analysis/report-check.py "${reports[@]}" >"$out/check.txt" 2>&1 || rc=$?
	# (a report.json that is not valid counts as kind "invalid": the
	# check above names it)
	kinds=$("$py" -c 'import json, sys
kinds = set()
for p in sys.argv[1:]:
    try:
        d = json.load(open(p))
        f = d["fire"]["fields"] or {}
        kinds.add("failed" if d["run"]["status"] == "failed" else
                  f.get("action") if d["cause"]["dump"] == "trigger" and f else
                  d["cause"]["dump"] or "?")
    except (ValueError, KeyError, TypeError):
        kinds.add("invalid")
print(" ".join(sorted(str(k) for k in kinds)))' "${reports[@]}")
	check json.validates "${#reports[@]} report.json, kinds: $kinds; $(grep -c '^invalid' "$out/check.txt") invalid $(grep -m1 -v '^ok ' "$out/check.txt" || true)" \
		test "$rc" = 0 -a "$(grep -c '^ok ' "$out/check.txt")" = "${#reports[@]}"
	for k in bpf_panic crash_kexec oops warning sysrq failed; do
		check "json.kind_$k" "kinds validated: $kinds" grep -qw "$k" <<<"$kinds"
	done
	# the fire record, field by field, on every run where a trigger fired
	"$py" tests/reports/fire-compare.py "${reports[@]}" >"$out/fire-compare.txt"
	compared=$(tail -1 "$out/fire-compare.txt")
	check json.fire_crash_equals_drgn "$compared $(grep -m1 '^DIFF' "$out/fire-compare.txt" || true)" \
		grep -qE '^[1-9][0-9]* fired records compared, 0 differ ' <<<"$compared"
	# the cause: compared in every report that read the dump, agreeing
	# exactly when the two words are the same (or the dump names the kind
	# of a stall the run could only call a stall), listed when they are not
	"$py" -c 'import json, sys
n = bad = 0
for p in sys.argv[1:]:
    try:
        doc = json.load(open(p))
        c = doc["cause"]
        listed = [x for x in doc["disagreements"] if x["what"] == "cause"]
    except (ValueError, KeyError, TypeError) as e:
        bad += 1
        print(f"BAD {p}: no cause comparison ({type(e).__name__}: {e})")
        continue
    if c["dump"] is None:
        ok = c["agree"] is None and not listed
    else:
        n += 1
        same = c["run"] == c["dump"] or (c["run"], c["dump"]) == ("stall", "hard_lockup")
        want = True if same else None if c["run"] in ("kexec", "unknown") else False
        ok = c["agree"] is want and len(listed) == (1 if want is False else 0) and \
            all((x["run"], x["dump"]) == (c["run"], c["dump"]) for x in listed)
    if not ok:
        bad += 1
        print(f"BAD {p}: cause {c}, listed {listed}")
print(f"{n} causes compared, {bad} inconsistent")' "${reports[@]}" >"$out/causes.txt"
	compared=$(tail -1 "$out/causes.txt")
	check json.cause_compared "$compared $(grep -m1 '^BAD' "$out/causes.txt" || true)" \
		grep -qE '^[1-9][0-9]* causes compared, 0 inconsistent$' <<<"$compared"
	# report.txt next to each report.json: one Cause, one Fire record
	wrong=$(for r in "${reports[@]}"; do
		t=${r%.json}.txt
		[[ -e $t ]] || continue
		n=$(grep -c -e '^== Cause' -e '^== Fire record' "$t" || true)
		[[ $n == 2 && $(grep -c '^== Cause' "$t") == 1 ]] || echo "$t: $n"
	done)
	texts=$(for r in "${reports[@]}"; do [[ ! -e ${r%.json}.txt ]] || echo x; done | wc -l)
	check json.one_cause_one_fire_section "$texts report.txt; wrong: ${wrong:-none}" test "$texts" -gt 0 -a -z "$wrong"
	# the analyzers: every report that read a dump names them; the
	# toolbox's, unless a test asked for Debian 12's or took the toolbox
	# away (62-toolbox); where the toolbox's crash and drgn both read the
	# dump, crash counts every task drgn lists, on every kernel
	"$py" -c 'import json, sys
tb = sysn = bad = 0
for p in sys.argv[1:]:
    doc = json.load(open(p))
    a = doc["analyzers"]
    if not (a["crash"]["ran"] or a["drgn"]["ran"]):
        continue
    ch = a.get("chosen") or {}
    if ch.get("source") == "system":
        sysn += 1
        if ch.get("wanted") == "toolbox" and "/62-toolbox.test/" not in p:
            bad += 1
            why = ch.get("why_not_toolbox")
            print(f"BAD {p}: system analyzers, not asked for: {why}")
        continue
    if ch.get("source") != "toolbox" or not ch.get("crash_version") or not ch.get("drgn_version"):
        bad += 1
        print(f"BAD {p}: analyzers not named: {ch}")
        continue
    tb += 1
    t = doc["tasks"]
    if a["crash"].get("retried_from") and not (a["crash"].get("retried_with") or "").startswith("Debian sid"):
        continue  # the Debian 12 crash read it (said in the report): it sees a few tasks
    if a["crash"]["ok"] and a["drgn"]["ok"] and t and t["crash_count"] != t["total"]:
        bad += 1
        cc, tt = t["crash_count"], t["total"]
        print(f"BAD {p}: crash counts {cc} tasks, drgn {tt}")
print(f"{tb} reports by the toolbox, {sysn} by the system analyzers, {bad} wrong")' "${reports[@]}" >"$out/analyzers.txt" 2>&1 || true
	said=$(tail -1 "$out/analyzers.txt")
	check json.toolbox_whole_system "$said $(grep -m1 '^BAD' "$out/analyzers.txt" || true)" \
		grep -qE '^[1-9][0-9]* reports by the toolbox, [0-9]+ by the system analyzers, 0 wrong$' <<<"$said"
fi

# --- hung_task, the README example (a task in D on a mutex): the reports
# of 60 and 51 (our kernel) and 71 (Debian's). Read here, after every
# script: run-all runs two at a time, so 60 cannot know whether 51 and 71
# are done.
mapfile -t newer < <(this_invocation)
for t in 51-triggers-real 60-analysis 71-debian-examples; do
	mapfile -t hung < <(find "$build/test-out/$t.test" -path '*-hung_task/report.json' "${newer[@]}" 2>/dev/null | sort)
	if ((${#hung[@]} == 0)); then
		fail "hung.$t.test.report" "no hung_task report.json under $build/test-out/$t.test"
		continue
	fi
	pass "hung.$t.test.report" "${#hung[@]} hung_task report(s)"
	for h in "${hung[@]}"; do
		r=$(dirname "$h")
		name=hung.$t.test
		hpid=$(json_value "$h" "next((n['pid'] for n in d['tasks']['named'] if n['role'] == 'hung'), None)")
		check "$name.named_from_fire_record" "hung_pid $hpid; detail $(json_value "$h" "d['fire']['fields']['detail']")" \
			grep -q "hung_pid=$hpid " <<<"$(json_value "$h" "d['fire']['fields']['detail']") "
		check "$name.hung_task_D" "pid $hpid: $(json_value "$h" "[(t['comm'], t['state']) for t in d['tasks']['list'] if t['pid'] == $hpid]")" \
			test "$(json_value "$h" "[(t['comm'], t['state']) for t in d['tasks']['list'] if t['pid'] == $hpid]")" = '[["hanger", "D"]]'
		first=$(sed -n '/^== Tasks (drgn)/,$p' "$r/report.txt" | grep -m1 '^-- ' || true)
		check "$name.hung_stack_first" "${first:-no task section after == Tasks (drgn)}" grep -q "^-- hung task (fire record hung_pid=$hpid): pid $hpid ppid [0-9]* hanger, state D" <<<"$first"
		stack=$(sed -n "/^-- hung task/,/^-- /p" "$r/report.txt" | grep -E '^   #' | head -6 | tr -s ' \n' ' ')
		# (on the Debian kernel, 71's runs, gcc split it into direct_entry.cold)
		check "$name.hung_stack" "${stack:-no frames under the hung task}" grep -qE 'schedule\+0x.* direct_entry(\.cold)?\+0x' <<<"$stack"
	done
done
