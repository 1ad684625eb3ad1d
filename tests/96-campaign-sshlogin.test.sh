#!/usr/bin/env bash
# --sshlogin goes to GNU parallel: here ":" (parallel's name for this
# machine), with -- CMD as the workload. The attempts run, the joblog names
# the host, parallel was given --sshlogin, --basefile and --return, and
# the first fire is filed with its vmcore.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

run_campaign ssh 0 syscall_errno syscall=openat errno=ENOENT comm=sh --attempts 2 --jobs 1 \
	--sshlogin : --runs "$out/runs" --timeout 120 -- sh -c 'exec 3</no-such-file-from-cmd' || exit 0
check_file_has ssh.parallel_given "$camp/campaign.log" 'parallel .*--sshlogin : --basefile .*--return '
check_file_has ssh.joblog_host "$camp/joblog" $'^1\t:\t'
check_file_has ssh.cmd_workload "$camp/workload.sh" "^exec 'sh' '-c' 'exec 3</no-such-file-from-cmd'$"
run=$(summary "$camp" first_fire_run)
check ssh.first_fire_filed "run ${run:-none}" test -n "$run" -a -s "$run/vmcore"
check_file_has ssh.fire_is_cmd "${run:-/nonexistent}/run.meta" '^cause_detail=.*comm=sh'
