#!/usr/bin/env bash
# console-stamp.sh RUNS PID OUT: follow the console of the run that PID (a
# bpk run) stages under RUNS and write each line to OUT prefixed with the host
# time (ms since this script started): the only clock that spans the guest,
# the crash kernel (which has none of its own) and the host. Ends with PID.
set -euo pipefail
runs=$1 pid=$2 out=$3
t0=${EPOCHREALTIME/./}
console=''
while [[ -z $console ]]; do
	console=$(find "$runs" -maxdepth 2 -path '*/.staging-*/console.log' 2>/dev/null | head -1)
	[[ -n $console ]] && break
	kill -0 "$pid" 2>/dev/null || exit 0
	sleep 0.01
done
# EPOCHREALTIME is bash's own clock: no process per line
tail --pid="$pid" -F -n +1 "$console" 2>/dev/null | while IFS= read -r line; do
	printf '%d %s\n' $(((${EPOCHREALTIME/./} - t0) / 1000)) "$line"
done >"$out"
