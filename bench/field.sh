# shellcheck shell=bash
# make bench, section "field", sourced by run-bench.sh:
#  - the demo loop on our kernel and on Debian's (KERNEL=debian), side by
#    side in one run: QEMU start to armed (guest uptime), fire to report
#    (host clock: from the moment the guest said "armed", plus its own
#    armed-to-panic time, to the report written), the vmcore at -d 31;
#  - a Python workload's start in the guest (the host's /usr over 9p) and,
#    the same script, on the host.
# Uses run-bench.sh's run, demo, rounds, accel, work, top, here, build.
# shellcheck disable=SC2154 # those globals

# armed_at_ms RUNS-DIR PID: host time (ms) when the run's guest wrote
# "BPK-STATE armed" to its results port (polled every 50 ms), or "" if the
# run ended first
armed_at_ms() {
	local runs=$1 pid=$2 f
	while kill -0 "$pid" 2>/dev/null; do
		f=$(find "$runs" -path '*/.staging-*/results.txt' 2>/dev/null | head -1 || true)
		if [[ -n $f ]] && grep -q '^BPK-STATE armed' "$f" 2>/dev/null; then
			now_ms
			return 0
		fi
		sleep 0.05
	done
}

field_loop() {
	local kernel=$1 runs r t0 ta t2 pid boot=() f2r=() vmcore=() total=()
	# ours starts warm, as a user's run does: its idle snapshot made first,
	# outside the figures
	if [[ $kernel == ours ]]; then
		"$bpk" snapshot --accel "$accel" --quiet >/dev/null || die "the idle snapshot could not be made"
	fi
	for _ in $(seq "$rounds"); do
		runs=$work/field-$kernel
		mkdir -p "$runs"
		t0=$(now_ms)
		run "${demo[@]}" --kernel "$kernel" --accel "$accel" --runs "$runs" --no-report \
			--timeout 600 >"$work/run.out" 2>&1 &
		pid=$!
		ta=$(armed_at_ms "$runs" "$pid")
		wait "$pid" || { tail -3 "$work/run.out" >&2; die "field loop run ($kernel) failed"; }
		[[ -n $ta ]] || die "field loop run ($kernel): never saw BPK-STATE armed"
		r=$(newest_run "$runs")
		"$top/analysis/report.py" "$r" >/dev/null
		t2=$(now_ms)
		boot+=("$(meta "$r" timings.boot_to_armed_s)")
		f2r+=("$(awk -v a="$ta" -v e="$t2" -v f="$(meta "$r" timings.armed_to_panic_s)" 'BEGIN { printf "%.2f", (e - a) / 1000 - f }')")
		vmcore+=("$(awk -v b="$(meta "$r" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
		total+=("$(seconds $((t2 - t0)))")
	done
	record "field $kernel" "QEMU start to trigger armed" s "guest uptime" "${boot[@]}"
	record "field $kernel" "fire to report ready" s "host clock from 'armed' + armed-to-panic" "${f2r[@]}"
	record "field $kernel" "total, command to report" s "wall" "${total[@]}"
	record "field $kernel" "vmcore, idle 1 GiB guest" MiB "makedumpfile $(meta "$r" dump.makedumpfile_opts)" "${vmcore[@]}"
}

field_bench() {
	local kernel r first=() second=() hfirst=() hsecond=() line
	for kernel in ours debian; do
		field_loop "$kernel"
	done
	for _ in $(seq "$rounds"); do
		run none --workload "$here/guest/pystart.sh" --host-fs on --accel "$accel" \
			--runs "$work/pystart" --no-report --timeout 300 >"$work/run.out" 2>&1 ||
			{ tail -3 "$work/run.out" >&2; die "python start run failed"; }
		r=$(newest_run "$work/pystart")
		line=$(grep -m1 '^PYSTART ' "$r/workload.log") || die "$r/workload.log: no PYSTART line"
		first+=("$(sed -n 's/.*first=\([0-9.]*\).*/\1/p' <<<"$line")")
		second+=("$(sed -n 's/.*second=\([0-9.]*\).*/\1/p' <<<"$line")")
		line=$("$here/guest/pystart.sh") || die "pystart.sh on the host failed"
		hfirst+=("$(sed -n 's/.*first=\([0-9.]*\).*/\1/p' <<<"$line")")
		hsecond+=("$(sed -n 's/.*second=\([0-9.]*\).*/\1/p' <<<"$line")")
	done
	record "field python" "python3 start in the guest, first (cold 9p)" s "our kernel, host /usr over 9p" "${first[@]}"
	record "field python" "python3 start in the guest, second" s "" "${second[@]}"
	record "field python" "python3 start on the host, first" s "page cache warm" "${hfirst[@]}"
	record "field python" "python3 start on the host, second" s "" "${hsecond[@]}"
}
