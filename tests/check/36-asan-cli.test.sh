#!/usr/bin/env bash
# The command-line tests again, against bpk built with ASan and UBSan
# (make asan): every bad argument, help text, run lookup, list and check
# path of bpk's own parsers runs under the sanitizers. The inner tests'
# PASS/FAIL lines count here, prefixed "asan."; a sanitizer report
# anywhere (its own log file, or bpk's stderr as an inner test kept it)
# fails, so a check that only wants "exit non-zero" cannot mistake a
# sanitizer's exit for a refusal.
# Leaks are not checked: bpk is a short-lived command that leaves its
# memory to exit on its error paths.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out

asan_bpk=$build/bpk/asan/bpk
if [[ ! -x $asan_bpk ]]; then
	fail asan.built "$asan_bpk missing: run make asan"
	exit 1
fi
check asan.is_instrumented "$(nm "$asan_bpk" 2>/dev/null | grep -c -E ' __(asan|ubsan)_' || true) sanitizer symbols" \
	test "$(nm "$asan_bpk" 2>/dev/null | grep -c -E ' __(asan|ubsan)_handle|__asan_report' || true)" -gt 0

export BPK_UNDER_TEST=$asan_bpk
export ASAN_OPTIONS="log_path=$out/asan:detect_leaks=0:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$out/ubsan:halt_on_error=1:print_stacktrace=1"
for t in 43-bad-input 80-bpk-cli 90-campaign-bad-input; do
	rc=0
	BPK_PROG=asan-$t.test.sh bash "$(dirname "$0")/$t.test.sh" >"$out/$t.txt" 2>&1 || rc=$?
	sed -E 's/^(PASS|FAIL) /\1 asan./' "$out/$t.txt" | grep -E '^(PASS|FAIL) '
	n=$(grep -c -E '^(PASS|FAIL) ' "$out/$t.txt" || true)
	if ((rc != 0)) && ! grep -q '^FAIL ' "$out/$t.txt"; then
		fail "asan.$t.exit" "exit $rc with no FAIL line: $(tail -1 "$out/$t.txt")"
	fi
	check "asan.$t.ran" "$n results" test "$n" -gt 0
done
# where a report can be: the sanitizers' own files (ASan's log_path), and
# what the inner tests kept of bpk's stderr (UBSan in an ASan build prints
# there whatever UBSAN_OPTIONS says)
pattern='ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|Undefined)'
reports=$(
	find "$out" -maxdepth 1 \( -name 'asan.*' -o -name 'ubsan.*' \) -print
	grep -r -l -a -E "$pattern" "$out"/*.txt "$build"/test-out/asan-*.test 2>/dev/null || true
)
reports=$(sort -u <<<"$reports" | sed '/^$/d')
first=''
if [[ -n $reports ]]; then
	mapfile -t files <<<"$reports"
	first=$(grep -h -a -m1 -E "$pattern" "${files[@]}" | head -1)
fi
check asan.no_sanitizer_report "${reports:+$(wc -l <<<"$reports") file(s) with a report: ${first:-?} (${reports%%$'\n'*})}" test -z "$reports"
