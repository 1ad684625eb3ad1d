# shellcheck shell=bash
# Helpers for test scripts. A test script prints one line per check:
#   PASS <name>: <what was observed>
#   FAIL <name>: <what was observed instead>
# and run-all.sh counts them. Paths below are relative to the repository.

BPK_PROG=${BPK_PROG:-${0##*/}}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"

# shellcheck disable=SC2034 # used by the test scripts that source this
build=${BUILD:-$top/build}
# shellcheck disable=SC2034
kernel=$build/kernel
# shellcheck disable=SC2034
out=$build/test-out/${BPK_PROG%.sh}

pass() {
	printf 'PASS %s: %s\n' "$1" "$2"
}

fail() {
	printf 'FAIL %s: %s\n' "$1" "$2"
}

# check NAME DETAIL CMD...: PASS if CMD succeeds, FAIL otherwise.
check() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then pass "$name" "$detail"; else fail "$name" "$detail"; fi
}

# fresh_out: an empty output directory for this test script
fresh_out() {
	rm -rf "$out"
	mkdir -p "$out"
}

# guest_results FILE PREFIX ID...: a PASS or FAIL line per expected ID, from
# the "RESULT PASS|FAIL <id>: detail" lines a guest job wrote to FILE; an ID
# the guest did not report is a failure.
guest_results() {
	local file=$1 prefix=$2 id line
	shift 2
	for id in "$@"; do
		line=$(grep -F "RESULT " "$file" | grep -F " $id: " | head -1 || true)
		case $line in
		"RESULT PASS "*) pass "$prefix.$id" "${line#RESULT PASS "$id": }" ;;
		"RESULT FAIL "*) fail "$prefix.$id" "${line#RESULT FAIL "$id": }" ;;
		*) fail "$prefix.$id" "no result from the guest (console: $(dirname "$file")/console.log)" ;;
		esac
	done
}
