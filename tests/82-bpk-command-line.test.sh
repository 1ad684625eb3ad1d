#!/usr/bin/env bash
# bpk run TRIGGER ... -- CMD ARGS: the README's example, run as written
# (with --quiet, and the runs filed here): the command line is the
# workload, run in the host's user space, its quoting kept; the fire record
# names the program's own comm; run.json keeps the command line and says
# why the host's file system was used; --quiet prints the run directory
# alone.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

runs=$out/runs
PATH=$(dirname "$bpk"):$PATH
line=$(grep -E "^bpk run [a-z_]+ .* -- " README.md | head -1 || true)
if [[ -z $line ]]; then
	fail command_line.readme_example "README.md has no 'bpk run TRIGGER ... -- CMD' line"
	exit 1
fi
pass command_line.readme_example "$line"
rc=0
# global options before the verb, --quiet before the --: the line as written
bash -c "${line/#bpk run /bpk --runs $runs run --quiet }" >"$out/run.out" 2>"$out/run.err" || rc=$?
mapfile -t filed < <(filed_runs "$runs")
run=${filed[0]:-}
check command_line.run "exit $rc, ${#filed[@]} run(s): ${run:-none} ($(grep -m1 'error:' "$out/run.err" || echo 'no error line'))" \
	test "$rc" = 0 -a "${#filed[@]}" = 1 -a -s "${run:-/nonexistent}/vmcore"
got=$(cat "$out/run.out")
check command_line.quiet_prints_run "${got:-nothing}" test -n "$run" -a "$got" = "$run"
check_file_has command_line.fire_comm "${run:-/nonexistent}/report.txt" '^   comm=python3$'
check_file_has command_line.fire_signal "${run:-/nonexistent}/report.txt" '^   detail=signal=6 '
check_field command_line.meta_workload "${run:-/nonexistent}" guest.workload "-- python3 -c 'import os; os.abort()'"
check_field_match command_line.host_fs "${run:-/nonexistent}" guest.host_fs '^on: a command line given after --'
