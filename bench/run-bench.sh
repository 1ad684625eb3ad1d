#!/usr/bin/env bash
# make bench: how fast the appliance turns a trigger into a report, what it
# costs, and how that grows. Prints one table (median, min, max) and writes a
# tab-separated copy to bench/results/<UTC time>.tsv.
#
# Environment: BENCH_ROUNDS (3) repeats of each measurement; BENCH_COLD=1
# also times a cold kernel build (about 5 min) in a scratch cache;
# BENCH_ACCEL (tcg: KVM hangs on these machines, see README);
# BENCH_SECTIONS (build loop scaling cost memory field campaign) to run only
# some; BENCH_ATTEMPTS (6) attempts per campaign of the campaign section.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

build=${BUILD:-$top/build}
rounds=${BENCH_ROUNDS:-3}
accel=${BENCH_ACCEL:-tcg}
sections=${BENCH_SECTIONS:-build loop scaling cost memory field campaign}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || bad_input "BENCH_ROUNDS '$rounds' is not a number >= 1"
mkdir -p "$here/results"
results=$here/results/$(date -u +%Y%m%dT%H%M%SZ).tsv
printf 'section\tmetric\tunit\tn\tmedian\tmin\tmax\tnote\n' >"$results"
work=$build/bench-work
rm -rf "$work"
mkdir -p "$work"
run=$top/appliance/run.sh
demo=(--trigger syscall_errno --args "syscall=openat errno=ENOENT comm=bpk-demo"
	--workload "$top/triggers/examples/syscall_errno.sh")
dirty=(--trigger syscall_errno --args "syscall=openat errno=ENOENT comm=dirty"
	--workload "$build/bench/dirty")
t_all=$(now_ms)

# time_ms CMD...: run CMD quietly, print how long it took (ms)
time_ms() {
	local t0
	t0=$(now_ms)
	"$@" >"$work/last.out" 2>&1 || { tail -5 "$work/last.out" >&2; die "failed: $*"; }
	echo $(($(now_ms) - t0))
}

want() { [[ " $sections " == *" $1 "* ]]; }

# --- 1. builds
if want build; then
	step "build"
	entry=$(readlink -f "$build/kernel")
	if [[ ${BENCH_COLD:-0} == 1 ]]; then
		ms=$(time_ms env BPK_CACHE="$work/cold-cache" "$top/kernel-series/build-kernel.sh" "$work/cold-kernel")
		record build "cold kernel build" s "scratch cache, -j$(($(nproc) + 1))" "$(seconds "$ms")"
		rm -rf "$work/cold-cache"
	else
		recorded=$(sed -n 's/^build_seconds=//p' "$entry/ok")
		record build "cold kernel build" s "SKIPPED (cached): as recorded when this cache entry was built; BENCH_COLD=1 to measure" "$recorded"
	fi
	v=()
	for _ in $(seq "$rounds"); do v+=("$(seconds "$(time_ms make -C "$top" -s kernel)")"); done
	record build "no-op rebuild (make kernel)" s "" "${v[@]}"
	v=()
	for _ in $(seq "$rounds"); do
		touch "$top"/kernel-series/0001-*.patch
		v+=("$(seconds "$(time_ms make -C "$top" -s kernel)")")
	done
	record build "rebuild after touching a patch" s "same content: the cache key is a content hash" "${v[@]}"
	v=()
	for _ in $(seq "$rounds"); do
		touch "$top/appliance/kdump/99bpkdump/bpk-capture.sh"
		v+=("$(seconds "$(time_ms make -C "$top" -s appliance)")")
	done
	record build "kdump (dracut) + root initramfs build" s "" "${v[@]}"
	step_done ""
fi

# --- 2. the loop, per phase, against the sysrq-c baseline
if want loop; then
	step "loop ($accel)"
	for kind in trigger sysrq; do
		declare -A col=()
		for i in $(seq "$rounds"); do
			runs=$work/loop-$kind
			if [[ $kind == trigger ]]; then
				args=("${demo[@]}")
			else
				args=(--trigger none --workload "$here/guest/sysrq.sh")
			fi
			t0=$(now_ms)
			"$run" "${args[@]}" --accel "$accel" --runs "$runs" --no-report >"$work/run.out" 2>&1 ||
				{ tail -3 "$work/run.out" >&2; die "loop run $kind $i failed"; }
			r=$(newest_run "$runs")
			t1=$(now_ms)
			"$top/analysis/report.sh" "$r" >/dev/null
			t2=$(now_ms)
			col[boot]+=" $(meta "$r" boot_to_armed_s)"
			col[fire]+=" $(meta "$r" armed_to_panic_s)"
			col[capture]+=" $(meta "$r" panic_to_capture_s)"
			col[dump]+=" $(awk -v a="$(meta "$r" dmesg_s)" -v b="$(meta "$r" dump_s)" 'BEGIN { print a + b }')"
			col[collect]+=" $(meta "$r" collect_s)"
			col[report]+=" $(seconds $((t2 - t1)))"
			# the report's two parts, run in parallel (report.json timings)
			col[crash]+=" $(json_timing "$r" crash_s)"
			col[drgn]+=" $(json_timing "$r" drgn_s)"
			col[total]+=" $(seconds $((t2 - t0)))"
			# from the panic to the report: everything after the guest's panic
			# uptime (an upper bound: it includes QEMU's own start)
			col[fire_to_report]+=" $(awk -v w="$(seconds $((t2 - t0)))" \
				-v p="$(meta "$r" boot_to_armed_s)" -v q="$(meta "$r" armed_to_panic_s)" \
				'BEGIN { print w - p - q }')"
			col[vmcore]+=" $(awk -v b="$(meta "$r" vmcore_bytes)" 'BEGIN { print b / 1048576 }')"
		done
		# shellcheck disable=SC2086 # the columns are lists of numbers
		{
			record "loop $kind" "QEMU start to trigger armed" s "guest uptime" ${col[boot]}
			record "loop $kind" "armed to panic" s "guest uptime" ${col[fire]}
			record "loop $kind" "panic to capture kernel running" s "capture kernel uptime" ${col[capture]}
			record "loop $kind" "dump (vmcore-dmesg + makedumpfile)" s "" ${col[dump]}
			record "loop $kind" "collect" s "" ${col[collect]}
			record "loop $kind" "analysis (report: crash + drgn in parallel)" s "" ${col[report]}
			record "loop $kind" "analysis: crash part" s "report.json timings.crash_s" ${col[crash]}
			record "loop $kind" "analysis: drgn part" s "report.json timings.drgn_s" ${col[drgn]}
			record "loop $kind" "total, command to report" s "wall" ${col[total]}
			record "loop $kind" "panic to report ready" s "upper bound" ${col[fire_to_report]}
			record "loop $kind" "vmcore, idle 1 GiB guest" MiB "makedumpfile -l -d 31" ${col[vmcore]}
		}
		unset col
	done
	step_done ""
fi

# dump_guest_memory MEM OUT: the host-side dump-guest-memory ELF of a guest
# whose memory is dirtied the same way; prints "seconds bytes".
dump_guest_memory() {
	local mem=$1 elf=$2 port runs pid results i t0 line
	port=$((20000 + RANDOM % 20000))
	runs=$work/hold-$mem
	"$run" --trigger none --workload "$build/bench/dirty-hold" --mem "$mem" --accel "$accel" \
		--runs "$runs" --no-report --timeout 600 \
		--qemu-arg -qmp --qemu-arg "tcp:127.0.0.1:$port,server=on,wait=off" >"$work/hold.out" 2>&1 &
	pid=$!
	for i in $(seq 600); do
		results=$(find "$runs" -path '*/.staging-*/results.txt' 2>/dev/null | head -1 || true)
		[[ -n $results ]] && grep -q DIRTY-DONE "$results" && break
		kill -0 "$pid" 2>/dev/null || die "dump-guest-memory guest ended early: $(tail -2 "$work/hold.out")"
		sleep 0.5
	done
	((i < 600)) || die "dirty-hold never finished"
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	read -r line <&3 # greeting
	echo '{"execute":"qmp_capabilities"}' >&3
	read -r line <&3
	t0=$(now_ms)
	printf '{"execute":"dump-guest-memory","arguments":{"paging":false,"protocol":"file:%s"}}\n' "$elf" >&3
	while read -r line <&3; do
		[[ $line == *'"return"'* || $line == *'"error"'* ]] && break
	done
	[[ $line == *'"return"'* ]] || die "dump-guest-memory failed: $line"
	echo "$(seconds $(($(now_ms) - t0))) $(stat -c %s "$elf")"
	echo '{"execute":"quit"}' >&3
	exec 3>&-
	wait "$pid" || true # the run is filed as failed: no panic, by design
	rm -f "$elf"
}

# --- 3. scaling with guest memory, compression and dump level
if want scaling; then
	step "scaling ($accel, 25% of memory dirtied)"
	for mem in 512M 1G 2G 4G; do
		d=() s=() e=() es=()
		for i in $(seq "$rounds"); do
			runs=$work/scale-$mem
			"$run" "${dirty[@]}" --mem "$mem" --accel "$accel" --runs "$runs" --no-report \
				--timeout 900 >"$work/run.out" 2>&1 || { tail -3 "$work/run.out" >&2; die "scaling run $mem failed"; }
			r=$(newest_run "$runs")
			d+=("$(meta "$r" dump_s)")
			s+=("$(awk -v b="$(meta "$r" vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
			read -r secs bytes < <(dump_guest_memory "$mem" "$work/guest.elf")
			es+=("$secs")
			e+=("$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')")
		done
		record "scaling $mem" "dump time (makedumpfile -l -d 31)" s "" "${d[@]}"
		record "scaling $mem" "vmcore size" MiB "" "${s[@]}"
		record "scaling $mem" "dump-guest-memory ELF size" MiB "host side, paging=false" "${e[@]}"
		record "scaling $mem" "dump-guest-memory time" s "host side" "${es[@]}"
	done
	# the same 1 GiB run with other makedumpfile options: the kdump image is
	# replaced by appending a cpio with another /boot/kdump.img (a later
	# entry of the initramfs wins)
	for opts in "-c -d 31" "-l -d 1"; do
		tag=${opts// /}
		mkdir -p "$work/img-$tag/boot"
		"$top/appliance/mkkdump.sh" "$work/img-$tag/boot/kdump.img" "$opts" 2>/dev/null
		(cd "$work/img-$tag" && find boot | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$work/kdump-$tag.cpio.gz"
		cat "$build/appliance/root.cpio.gz" "$work/kdump-$tag.cpio.gz" >"$work/root-$tag.cpio.gz"
		d=() s=()
		for i in $(seq "$rounds"); do
			runs=$work/opts-$tag
			BPK_ROOT_IMG=$work/root-$tag.cpio.gz "$run" "${dirty[@]}" --mem 1G --accel "$accel" \
				--runs "$runs" --no-report --timeout 900 >"$work/run.out" 2>&1 ||
				{ tail -3 "$work/run.out" >&2; die "run with makedumpfile $opts failed"; }
			r=$(newest_run "$runs")
			[[ $(meta "$r" makedumpfile_opts) == "$opts" ]] || die "$r: ran with $(meta "$r" makedumpfile_opts), not $opts"
			d+=("$(meta "$r" dump_s)")
			s+=("$(awk -v b="$(meta "$r" vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
		done
		record "dump options 1G" "dump time (makedumpfile $opts)" s "" "${d[@]}"
		record "dump options 1G" "vmcore size (makedumpfile $opts)" MiB "" "${s[@]}"
	done
	step_done ""
fi

# --- 4. trigger cost on a hot path (getpgid loop), dry-run triggers
if want cost; then
	step "trigger cost ($accel)"
	"$top/appliance/qemu-run.sh" --kernel "$build/kernel/bzImage" --initrd "$build/bench/cost.cpio.gz" \
		--append "bpk.job=bench-cost" --accel "$accel" --timeout 600 --quiet \
		--console "$work/cost-console.log" --port "results=$work/cost.txt" ||
		die "cost guest failed (console: $work/cost-console.log)"
	grep -q '^COST-DONE' "$work/cost.txt" || die "cost guest did not finish: $(tail -3 "$work/cost.txt")"
	col() { awk -v m="$1" '$1 == "COST" && $2 == m && $3 != "" { print $3 }' "$work/cost.txt"; }
	mapfile -t none < <(col none)
	record cost "getpgid, no program" ns/call "" "${none[@]}"
	base=$(stats "${none[@]}" | cut -d' ' -f2)
	for pair in syscall_errno:empty_sys_exit syscall_slow:empty_sys_enter_exit func_entry:empty_fentry; do
		trig=${pair%%:*} empty=${pair#*:}
		mapfile -t t < <(col "$trig")
		mapfile -t e < <(col "$empty")
		record cost "$empty (empty program, same hook)" ns/call "" "${e[@]}"
		record cost "$trig armed, dry run" ns/call "" "${t[@]}"
		em=$(stats "${e[@]}" | cut -d' ' -f2)
		mapfile -t r1 < <(printf '%s\n' "${t[@]}" | awk -v b="$base" '{ print $1 / b }')
		mapfile -t r2 < <(printf '%s\n' "${t[@]}" | awk -v b="$em" '{ print $1 / b }')
		record cost "$trig vs no program" ratio "" "${r1[@]}"
		record cost "$trig vs empty program" ratio "" "${r2[@]}"
	done
	rss=$(sed -n 's/^RSS //p' "$work/cost.txt")
	record memory "triggerctl arm, peak RSS" KiB "in the guest, static binary" "$rss"
	step_done ""
fi

# --- 5. memory: kdump image, smallest working crashkernel per guest size
if want memory; then
	step "memory"
	img=$build/appliance/kdump.img
	record memory "kdump initramfs (dracut, gzip)" MiB "" "$(awk -v b="$(stat -c %s "$img")" 'BEGIN { print b / 1048576 }')"
	record memory "kdump initramfs unpacked" MiB "" "$(awk -v b="$(zcat "$img" | wc -c)" 'BEGIN { print b / 1048576 }')"
	sizes=(48 64 80 96 112 128 160 192 256)
	for mem in 512M 1G 2G 4G; do
		# binary search for the first size that dumps (larger ones do too);
		# the answer is only recorded once a run at that size has worked;
		# the guest's own minimum-reservation check would refuse the small
		# sizes before trying them, so the search measures, not the check
		dumps() {
			"$run" "${demo[@]}" --mem "$mem" --crashkernel "${sizes[$1]}M" --accel "$accel" \
				--no-reservation-check --runs "$work/ck-$mem" --no-report --timeout 600 >"$work/run.out" 2>&1
		}
		lo=0 hi=$((${#sizes[@]} - 1)) seen=-1
		while ((lo < hi)); do
			mid=$(((lo + hi) / 2))
			if dumps "$mid"; then hi=$mid seen=$mid; else lo=$((mid + 1)); fi
		done
		if ((seen != lo)) && ! dumps "$lo"; then
			say "memory: no crashkernel size up to ${sizes[lo]}M dumps a $mem guest"
			record memory "smallest working crashkernel, $mem guest" MiB "NONE of ${sizes[*]} worked" 0
		else
			record memory "smallest working crashkernel, $mem guest" MiB "of ${sizes[*]}" "${sizes[lo]}"
		fi
	done
	step_done ""
fi

# --- 6. field (issue 11): Debian's kernel beside ours, python over 9p
if want field; then
	step "field ($accel)"
	# shellcheck source=field.sh
	. "$here/field.sh"
	field_bench
	step_done ""
fi

# --- 7. campaign (issue 13): fresh boots against armed-snapshot restores
if want campaign; then
	step "campaign ($accel)"
	# shellcheck source=campaign.sh
	. "$here/campaign.sh"
	campaign_bench
	step_done ""
fi

say "all benchmarks took $(fmt_ms $(($(now_ms) - t_all))); results: $results"
echo
awk -F '\t' '{ printf "%-16s %-44s %-7s %3s %9s %9s %9s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$results"
