#!/usr/bin/env bash
# make drgn: drgn on a run's vmcore, the project's helpers loaded
# (drgn-shell.py: fire(), tasks(state="D"), ps(), bt(pid), bpf(), panic() ...).
#
#   open-drgn.sh [RUN-DIR]   default: the newest run under runs/
#
# At a terminal: the interactive prompt. Otherwise the Python lines on stdin
# are run (echo 'print(fire())' | make drgn).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

runs=${RUNS:-$here/../runs}
run=${1:-}
if [[ -z $run ]]; then
	# run names start with their UTC time: the last in order is the newest
	run=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -1)
	[[ -n $run ]] || die "no runs under $runs (make demo or make run first)"
fi
[[ -d $run && -r $run ]] || die "$run: not a readable run directory"
[[ -r $run/vmcore ]] || die "$run: no vmcore (run status: $(sed -n 's/^reason=//p' "$run/run.meta" 2>/dev/null || echo unknown))"
vmlinux=$(sed -n 's/^vmlinux=//p' "$run/run.meta")
[[ -r $vmlinux ]] || die "${vmlinux:-the vmlinux named in run.meta}: the run's vmlinux is gone (rebuild the kernel: make kernel)"
# Debian's python3-drgn is installed for /usr/bin/python3, which need not be
# the first python3 in PATH.
if ! /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	die "drgn not found for /usr/bin/python3: install Debian package python3-drgn (make deps)"
fi
[[ -t 0 ]] && say "opening $run/vmcore in drgn (quit with Ctrl-D)"
exec /usr/bin/python3 -i "$here/drgn-shell.py" --vmcore "$run/vmcore" --vmlinux "$vmlinux"
