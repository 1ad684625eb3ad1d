#!/usr/bin/env bash
# Nothing is lost when the runs dir fills up: RUNS is a 4 MiB tmpfs, less
# than the dump. That is a run failure, not bad input: QEMU is stopped once
# the disk is full (not at the timeout), bpk exits 3 naming the cause (No
# space left on device), and what the guest sent (console.log, guest.log,
# the dump stream as far as it got) is kept in RUNS/<id>.unfiled/, named on
# stderr.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tiny=$out/tiny
# an earlier, interrupted run of this test may have left it mounted
if mountpoint -q "$tiny" 2>/dev/null; then umount "$tiny"; fi
fresh_out
mkdir -p "$tiny"
if ! mount -t tmpfs -o size=4m bpk-test-45 "$tiny" 2>"$out/mount.err"; then
	fail full.tmpfs "cannot mount a 4 MiB tmpfs: $(cat "$out/mount.err")"
	exit 1
fi
trap 'umount "$tiny" 2>/dev/null || true' EXIT
runs=$tiny/runs
timeout=240

t0=$(now_ms)
rc=0
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--timeout "$timeout" >"$out/run.out" 2>"$out/run.err" || rc=$?
secs=$((($(now_ms) - t0) / 1000))
# a copy of what the tmpfs held, for whoever reads this test's output
cp -a "$tiny" "$out/tiny-copy" 2>/dev/null || true

cause=$(grep -m1 'error:.*No space left on device' "$out/run.err" || true)
check full.exit_3_names_the_cause "exit $rc: ${cause:-no error line names No space left on device}" \
	test "$rc" = 3 -a -n "$cause"
full=$(grep -m1 -i 'full' "$out/run.err" || true)
check full.stopped_before_the_timeout "${secs}s (timeout ${timeout}s): ${full:-no message says the disk is full}" \
	test "$secs" -lt $((timeout - 30)) -a -n "$full"

kept=$(grep -o 'is kept in [^ ]*' "$out/run.err" | tail -1 | sed 's/^is kept in //' || true)
if [[ -z $kept || ! -d $kept ]]; then
	fail full.kept_dir_named "no directory named on stderr (${kept:-no 'is kept in' line}): $(grep 'error:' "$out/run.err" | tail -1)"
	exit 1
fi
check full.kept_dir_named "$kept" test "$(dirname "$kept")" = "$runs" -a "${kept%.unfiled}" != "$kept"
check_file_has full.console_kept "$kept/console.log" 'Linux version'
check_file_has full.guest_log_kept "$kept/guest.log" '^BPK-STATE armed'
stream=''
for f in "$kept"/*; do
	[[ -f $f && $(head -c 12 "$f") == makedumpfile ]] && stream=$f
done
check full.dump_stream_kept "${stream:-no file starting with the makedumpfile signature in $kept}${stream:+, $(stat -c %s "$stream") bytes}" \
	test -n "$stream" -a -s "$stream"
left=$(find "$runs" -maxdepth 1 -name '.staging-*' 2>/dev/null)
check full.no_staging_dir_left "${left:-none}" test -z "$left"
qemu=$(qemu_on "$runs/")
check full.no_qemu_left "QEMU processes on a console under $runs: ${qemu:-none}" test -z "$qemu"
