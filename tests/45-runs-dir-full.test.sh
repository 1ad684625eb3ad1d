#!/usr/bin/env bash
# needs root: it mounts a small tmpfs as the runs dir
# Nothing is lost when the runs dir is too small or fills up.
#  1. Too small to start with (a 4 MiB tmpfs, less than the guest's memory
#     and the logs' caps): bad input, refused before anything boots, one
#     line naming what is free and what a run may need; no staging dir, no
#     QEMU.
#  2. Full while the guest dumps (room for the check, then filled by
#     another writer once the trigger is armed): a run failure, not bad
#     input: QEMU is stopped at once (not at the timeout), bpk exits 3
#     naming the cause (No space left on device, the file system is full),
#     and what the guest sent (console.log, guest.log, the dump stream as
#     far as it got) is kept in RUNS/<id>.unfiled/, named on stderr.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tiny=$out/tiny
# an earlier, interrupted run of this test may have left it mounted
if mountpoint -q "$tiny" 2>/dev/null; then umount "$tiny"; fi
fresh_out
mkdir -p "$tiny"
trap 'umount "$tiny" 2>/dev/null || true' EXIT
# mount_tiny SIZE: a fresh tmpfs of SIZE at $tiny
mount_tiny() {
	if mountpoint -q "$tiny"; then umount "$tiny"; fi
	if ! mount -t tmpfs -o "size=$1" bpk-test-45 "$tiny" 2>"$out/mount.err"; then
		fail full.tmpfs "cannot mount a $1 tmpfs: $(cat "$out/mount.err")"
		exit 1
	fi
}
runs=$tiny/runs
timeout=240

# --- 1. too small before the boot
mount_tiny 4m
one_line full.small.refused_before_boot "a run may need" \
	"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo --timeout "$timeout"
msg=$("$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo 2>&1 >/dev/null || true)
check_has full.small.names_free_and_need "$msg" "4 MiB free, a run may need 1217 MiB (guest memory 1G + 3 logs of up to 64 MiB)"
check full.small.nothing_staged "runs dir: $(listing "$runs")" test -z "$(listing "$runs")"

# --- 2. full while the guest dumps: room for a 512M guest whose logs are
# capped at 1M (the check asks 512 + 3 + 1 MiB), filled once armed
mem=512M
# the demo's workload, 3 s after arming: the filler lands before the dump
wl=$out/late-demo.sh
printf '#!/bin/sh\nsleep 3\n' >"$wl"
sed 1d "$top/triggers/examples/syscall_errno.sh" >>"$wl"
chmod 755 "$wl"
mount_tiny 520m
t0=$(now_ms)
rc=0
watch_qemu "$runs/"
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--mem "$mem" --log-cap 1M --timeout "$timeout" --workload "$wl" >"$out/run.out" 2>"$out/run.err" &
pid=$!
until=$(($(now_ms) + 180000))
until armed "$runs" || ! kill -0 "$pid" 2>/dev/null || (($(now_ms) > until)); do sleep 0.2; done
if armed "$runs"; then
	# another writer takes all but 1 MiB: the dump cannot fit
	free_kib=$(df --output=avail -k "$tiny" | tail -1 | tr -d ' ')
	# (the guest's logs may take the last of it first: dd's own status
	# says less than what is left)
	rc_dd=0
	dd if=/dev/zero of="$tiny/filler" bs=1K count=$((free_kib - 1024)) status=none 2>"$out/dd.err" || rc_dd=$?
	left=$(df --output=avail -k "$tiny" | tail -1 | tr -d ' ')
	check full.filled_once_armed "dd exit $rc_dd ($(head -1 "$out/dd.err")); ${left:-?} KiB left after the filler" \
		test -n "$left" -a "${left:-99999}" -le 2048
else
	fail full.filled_once_armed "the guest never armed (bpk: $(tail -1 "$out/run.err"))"
fi
wait "$pid" || rc=$?
secs=$((($(now_ms) - t0) / 1000))
rm -f "$tiny/filler"
# a copy of what the tmpfs held, for whoever reads this test's output
cp -a "$tiny" "$out/tiny-copy" 2>/dev/null || true

cause=$(grep -m1 'error:.*No space left on device' "$out/run.err" || true)
check full.exit_3_names_the_cause "exit $rc: ${cause:-no error line names No space left on device}" \
	test "$rc" = 3 -a -n "$cause"
full=$(grep -m1 'the file system is full' "$out/run.err" || true)
check full.stopped_before_the_timeout "${secs}s (timeout ${timeout}s): ${full:-no message says the file system is full}" \
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
no_qemu_left full.no_qemu_left "$runs/"
