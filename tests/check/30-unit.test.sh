#!/usr/bin/env bash
# The unit tests of bpk's C modules, built with ASan and UBSan by make:
# the run record (writer and reader, against analysis/run.schema.json),
# the JSON writer, the guest protocol, argv building and the escape of
# guest text (protocol-test), the crash reservation's search (rsearch-test),
# the files that carry a campaign's words to its attempts (argsfile-test),
# and the collector's parsers of guest bytes
# (collector/unit-tests.c). Each prints PASS/FAIL lines of its own; a
# binary that is missing, dies (a sanitizer's abort) or exits non-zero
# after passing lines is a failure too.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out

# unit NAME BINARY [ARGS...]: run one unit test binary
unit() {
	local name=$1 bin=$2 rc=0 fails
	shift 2
	if [[ ! -x $bin ]]; then
		fail "unit.$name.built" "$bin missing: run make check"
		return
	fi
	"$bin" "$@" >"$out/$name.txt" 2>&1 || rc=$?
	cat "$out/$name.txt"
	fails=$(grep -c '^FAIL ' "$out/$name.txt" || true)
	# a sanitizer report, a crash or a bad exit with no FAIL line of its own
	if ((rc != 0 && fails == 0)); then
		fail "unit.$name.exit" "exit $rc with no FAIL line: $(grep -m1 -E 'ERROR|runtime error' "$out/$name.txt" || tail -1 "$out/$name.txt")"
	fi
	if grep -q -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out/$name.txt"; then
		fail "unit.$name.sanitizers" "$(grep -m1 -E 'ERROR: |runtime error:' "$out/$name.txt")"
	fi
}

unit record "$build/bpk/record-test" "$top/analysis/run.schema.json"
unit json-writer "$build/bpk/json-writer-test"
unit protocol "$build/bpk/protocol-test"
unit prog "$build/bpk/prog-test" "$build/bpk/prog-test.bpf.o"
unit kconfig "$build/bpk/kconfig-test"
unit rsearch "$build/bpk/rsearch-test"
unit argsfile "$build/bpk/argsfile-test"
unit collector "$build/collector/unit-tests"
