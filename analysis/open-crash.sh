#!/usr/bin/env bash
# Reopen a run: print its report (writing it first if needed), then, on a
# terminal, an interactive crash session on its vmcore.
#
#   open-crash.sh [--no-report] [RUN-DIR]   default: the newest run under runs/
#
# --no-report: do not print the report (the caller just did).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

runs=${RUNS:-$here/../runs}
show_report=1
if [[ ${1:-} == --no-report ]]; then
	show_report=0
	shift
fi
run=${1:-}
if [[ -z $run ]]; then
	# run names start with their UTC time: the last in order is the newest
	run=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -1)
	[[ -n $run ]] || die "no runs under $runs (make demo or make run first)"
fi
[[ -d $run && -r $run ]] || die "$run: not a readable run directory"
[[ -r $run/vmcore ]] || die "$run: no vmcore (run status: $(sed -n 's/^reason=//p' "$run/run.meta" 2>/dev/null || echo unknown))"
if [[ ! -r $run/report.txt ]]; then
	"$here/report.sh" "$run" >/dev/null
fi
((show_report == 0)) || cat "$run/report.txt"
vmlinux=$(sed -n 's/^vmlinux=//p' "$run/run.meta")
[[ -r $vmlinux ]] || die "$vmlinux: the run's vmlinux is gone (rebuild the kernel: make kernel)"
if [[ -t 0 && -t 1 ]]; then
	say "opening $run/vmcore in crash (quit with 'q')"
	exec crash --kaslr=auto "$vmlinux" "$run/vmcore"
fi
say "not a terminal: no interactive crash session (crash --kaslr=auto $vmlinux $run/vmcore)"
