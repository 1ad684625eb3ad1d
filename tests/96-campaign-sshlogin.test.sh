#!/usr/bin/env bash
# --sshlogin goes to GNU parallel: here ":" (parallel's name for this
# machine), with -- CMD as the workload. The attempts run, the joblog names
# the host, parallel was given --sshlogin and --return, each attempt was
# given the command line word for word, and the first fire is filed with
# its vmcore, the fire record read from it naming the command's process.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

# GNU parallel behind a stand-in on PATH that writes the arguments it was
# given, one a line, then runs it with them
real=$(command -v parallel)
mkdir -p "$out/shim"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\nexec "%s" "$@"\n' "$out/parallel.args" "$real" >"$out/shim/parallel"
chmod +x "$out/shim/parallel"
PATH=$out/shim:$PATH run_campaign ssh 0 syscall_errno syscall=openat errno=ENOENT comm=sh --attempts 2 --jobs 1 \
	--sshlogin : --runs "$out/runs" --timeout 120 -- sh -c 'exec 3</no-such-file-from-cmd' || exit 0
pa=$(tr '\n' ' ' <"$out/parallel.args" 2>/dev/null || true)
check ssh.parallel_given "parallel's arguments: ${pa:-none}" \
	grep -qF -- "--sshlogin : --return $camp/attempts/{1} " <<<"${pa:-none}"
check_file_has ssh.joblog_host "$camp/joblog" $'^1\t:\t'
# the command line reaches each attempt's bpk run word for word, after --
cmd=$(sed -n '/^--$/,$p' "$out/parallel.args" 2>/dev/null | tr '\n' '|' || true)
check ssh.cmd_workload "parallel's arguments from --: ${cmd:-none}" test "$cmd" = "--|sh|-c|exec 3</no-such-file-from-cmd|"
run=$(summary "$camp" first_fire_run)
check ssh.first_fire_filed "run ${run:-none}" test -n "$run" -a -s "$run/vmcore"
# the fire record read from the dump: the command's process hit the trigger
got=$(fire_fields "${run:-/nonexistent}")
check ssh.fire_is_cmd "fire record: $got" test "$got" = "syscall_errno sh syscall=257 errno=2"
