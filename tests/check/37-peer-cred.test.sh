#!/usr/bin/env bash
# needs root: a client of another uid (nobody) connects to a live-dump socket
# The socket of a run in progress (bpk dump) answers this user and root
# only: a client of another uid is refused by the run's end, the peer named
# by its uid (SO_PEERCRED, checked by bpk/tests/protocol-test as root).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out
bin=$build/bpk/protocol-test
if [[ ! -x $bin ]]; then
	fail peer.built "$bin missing: run make check"
	exit 0
fi
rc=0
"$bin" --peer-other-uid >"$out/peer.txt" 2>&1 || rc=$?
cat "$out/peer.txt"
if ((rc != 0)) && ! grep -q '^FAIL ' "$out/peer.txt"; then
	fail peer.exit "exit $rc with no FAIL line: $(tail -1 "$out/peer.txt")"
fi
