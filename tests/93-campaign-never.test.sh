#!/usr/bin/env bash
# A reproducer that never hits: every attempt is recorded as ran out, the
# campaign exits 1 and files no vmcore. The workload is a bash script: it
# runs from the host's /usr over 9p, which QEMU cannot migrate, so the
# campaign boots every attempt and says why.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

# shellcheck disable=SC2016 # expanded in the guest
printf '#!/bin/bash\necho "never (bash): attempt ${BPK_ATTEMPT:-none}"\n' >"$out/never.bash"
chmod +x "$out/never.bash"
made=1
run_campaign never 1 syscall_errno syscall=openat errno=ENOSPC --attempts 3 --jobs 2 \
	--workload "$out/never.bash" --runs "$out/runs" --timeout 120 || made=0
check_has never.says_no_fire "$(tail -1 "$out/stderr")" "no attempt fired"
((made)) || exit 0
check_summary never.all_ran_out "$camp" ran_out '^3$'
check_summary never.none_fired "$camp" fired '^0$'
got="$(summary "$camp" first_fire_attempt)$(summary "$camp" first_fire_run)"
check never.no_first_fire "first_fire_attempt, first_fire_run in campaign.json: ${got:-null}" \
	test -s "$camp/campaign.json" -a -z "$got"
all=$(vmcores "$camp")
runs=$(find "$camp/attempts" -name run.json | wc -l)
check never.no_vmcore "vmcores: ${all:-none}; runs filed: $runs" test -z "$all" -a "$runs" = 3
check_summary never.fresh_fallback "$camp" fresh_why '^the workload is a script for /bin/bash: .*9p.*cannot migrate'
check_file_has never.says_fallback "$out/stderr" 'fresh boots, no snapshot: the workload is a script for /bin/bash'
ran=$(cat "$camp"/attempts/*/runs/*/workload.log 2>/dev/null | grep -c "^never (bash): attempt [123]$" || true)
check never.workload_ran "workload lines in the workload logs: ${ran:-0}" test "${ran:-0}" = 3
