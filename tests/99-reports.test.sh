#!/usr/bin/env bash
# Every report.json the test run made (all tests' runs under
# build/test-out, 99 runs last): each validates against
# analysis/report.schema.json; the run kinds bpf_panic, crash_kexec, oops,
# warning and failed are among them; and on every run whose trigger fired, the fire
# record drgn decoded equals crash's, field by field, with neither side
# missing where both analyzers opened the dump (issue 10).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

py=/usr/bin/python3 # Debian's, which has python3-jsonschema

# --- every report.json so far (all tests' runs)
mapfile -t reports < <(find "$build/test-out" -name report.json | sort)
if ((${#reports[@]} == 0)); then
	fail json.validates "no report.json found"
else
	rc=0
	analysis/report-check.py "${reports[@]}" >"$out/check.txt" 2>&1 || rc=$?
	kinds=$("$py" -c 'import json, sys
kinds = set()
for p in sys.argv[1:]:
    d = json.load(open(p))
    f = d["fire"]["fields"] or {}
    kinds.add("failed" if d["run"]["status"] == "failed" else
              f.get("action") if d["panic"] and d["panic"]["cause"] == "trigger" and f else
              (d["panic"] or {}).get("cause", "?"))
print(" ".join(sorted(str(k) for k in kinds)))' "${reports[@]}")
	check json.validates "${#reports[@]} report.json, kinds: $kinds; $(grep -c '^invalid' "$out/check.txt") invalid $(grep -m1 -v '^ok ' "$out/check.txt" || true)" \
		test "$rc" = 0 -a "$(grep -c '^ok ' "$out/check.txt")" = "${#reports[@]}"
	for k in bpf_panic crash_kexec oops warning failed; do
		check "json.kind_$k" "kinds validated: $kinds" grep -qw "$k" <<<"$kinds"
	done
	# the fire record, field by field, on every run where a trigger fired
	"$py" tests/reports/fire-compare.py "${reports[@]}" >"$out/fire-compare.txt"
	compared=$(tail -1 "$out/fire-compare.txt")
	check json.fire_crash_equals_drgn "$compared $(grep -m1 '^DIFF' "$out/fire-compare.txt" || true)" \
		grep -qE '^[1-9][0-9]* fired records compared, 0 differ ' <<<"$compared"
fi

