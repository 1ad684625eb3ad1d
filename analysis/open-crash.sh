#!/usr/bin/env bash
# Reopen a run: print its report (writing it first if needed), then, on a
# terminal, an interactive crash session on its vmcore.
#
#   open-crash.sh [--no-report] [RUN-DIR]   default: the newest run under
#                                           $RUNS (runs/) that has a vmcore
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
	# run names start with their UTC time: the newest run that has a vmcore
	# (a failed run has none, an .unfiled one is not a run)
	mapfile -t all < <(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' ! -name '*.unfiled' 2>/dev/null | sort)
	((${#all[@]})) || die "no runs under $runs (make demo or make run first)"
	for ((i = ${#all[@]} - 1; i >= 0; i--)); do
		if [[ -r ${all[i]}/vmcore ]]; then
			run=${all[i]}
			break
		fi
	done
	newest=${all[-1]}
	status_of() { sed -n 's/^status=//p' "$1/run.meta" 2>/dev/null || true; }
	reason_of() { sed -n 's/^reason=//p' "$1/run.meta" 2>/dev/null || true; }
	if [[ -z $run ]]; then
		die "none of the ${#all[@]} run(s) under $runs has a vmcore; the newest, ${newest##*/}, is $(status_of "$newest"): $(reason_of "$newest")"
	fi
	[[ $run == "$newest" ]] ||
		say "the newest run, ${newest##*/}, has no vmcore ($(status_of "$newest"): $(reason_of "$newest")): opening ${run##*/}, the newest that has one"
fi
[[ -d $run && -r $run ]] || die "$run: not a readable run directory"
[[ -r $run/vmcore ]] || die "$run: no vmcore (run status: $(sed -n 's/^reason=//p' "$run/run.meta" 2>/dev/null || echo unknown))"
if [[ ! -r $run/report.txt ]]; then
	"$here/report.sh" "$run" >/dev/null ||
		say "the report of $run is incomplete (the error above); crash itself may still read the vmcore"
fi
((show_report == 0)) || cat "$run/report.txt"
vmlinux=$(sed -n 's/^vmlinux=//p' "$run/run.meta")
[[ -r $vmlinux ]] || die "$vmlinux: the run's vmlinux is gone (rebuild the kernel: make kernel)"
if [[ -t 0 && -t 1 ]]; then
	say "opening $run/vmcore in crash (quit with 'q')"
	exec crash --kaslr=auto "$vmlinux" "$run/vmcore"
fi
say "not a terminal: no interactive crash session (crash --kaslr=auto $vmlinux $run/vmcore)"
