#!/usr/bin/env bash
# make bench: how fast the appliance turns a trigger into a report, what it
# costs, and how that grows. Prints one table (median, min, max) and writes a
# tab-separated copy to bench/results/<UTC time>.tsv.
#
# Environment: BENCH_ROUNDS (3) repeats of each measurement; BENCH_COLD=1
# also times a cold kernel build (about 5 min) in a scratch cache;
# BENCH_ACCEL (tcg: KVM hangs on these machines, see README);
# BENCH_SECTIONS (goals build loop dump scaling cost memory field campaign prog hangs) to
# run only some; BENCH_ATTEMPTS (6) attempts per campaign of the campaign
# and goals sections; BENCH_BASELINE (HEAD~1, or none) the commit the goals
# section measures beside this build (bench/goals.sh).
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
sections=${BENCH_SECTIONS:-goals build loop dump scaling cost memory field campaign prog hangs}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || bad_input "BENCH_ROUNDS '$rounds' is not a number >= 1"
mkdir -p "$here/results"
results=$here/results/$(date -u +%Y%m%dT%H%M%SZ).tsv
printf 'section\tmetric\tunit\tn\tmedian\tmin\tmax\tnote\n' >"$results"
work=$build/bench-work
rm -rf "$work"
mkdir -p "$work"
# one run: bpk run, the build as make bench left it
bpk=$build/bpk/bpk
export BPK_NO_BUILD=1
run() { "$bpk" run "$@"; }
demo=(syscall_errno syscall=openat errno=ENOENT comm=bpk-demo
	--workload "$top/triggers/examples/syscall_errno.sh")
dirty=(syscall_errno syscall=openat errno=ENOENT comm=dirty
	--workload "$build/bench/dirty")
t_all=$(now_ms)
# the capture step's makedumpfile options, as the build made the kdump image
mdopts=$(cat "$build/appliance/makedumpfile-opts")

# time_ms CMD...: run CMD quietly, print how long it took (ms)
time_ms() {
	local t0
	t0=$(now_ms)
	"$@" >"$work/last.out" 2>&1 || { tail -5 "$work/last.out" >&2; die "failed: $*"; }
	echo $(($(now_ms) - t0))
}

want() { [[ " $sections " == *" $1 "* ]]; }

# --- 0. the speed goals, beside a baseline commit's build
if want goals; then
	step "goals ($accel)"
	# shellcheck source=campaign.sh
	. "$here/campaign.sh"
	# shellcheck source=goals.sh
	. "$here/goals.sh"
	goals_bench
	step_done ""
fi

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
# loop_run KIND ACCEL [RUN.SH-ARGS...]: one run of the loop with its console
# stamped on the host's clock (console-stamp.sh), then its report, timed
# apart. Sets lr_dir, lr_wall_ms (command to run filed), lr_report_ms.
loop_run() {
	local kind=$1 acc=$2 runs pid spid t0 args
	shift 2
	runs=$work/loop-$kind-$acc
	mkdir -p "$runs"
	if [[ $kind == trigger ]]; then args=("${demo[@]}"); else args=(none --workload "$here/guest/sysrq.sh"); fi
	t0=$(now_ms)
	# booted: the phase table splits a boot's console (the warm start has
	# a section of its own)
	run "${args[@]}" --accel "$acc" --runs "$runs" --no-report --cold "$@" >"$work/run.out" 2>&1 &
	pid=$!
	"$here/console-stamp.sh" "$runs" "$pid" "$work/stamped.txt" &
	spid=$!
	wait "$pid" || { wait "$spid" || true; tail -3 "$work/run.out" >&2; die "loop run $kind ($acc) failed"; }
	lr_wall_ms=$(($(now_ms) - t0))
	wait "$spid" || die "console-stamp.sh failed"
	lr_dir=$(newest_run "$runs")
	t0=$(now_ms)
	"$top/analysis/report.py" "$lr_dir" >/dev/null
	lr_report_ms=$(($(now_ms) - t0))
}

# loop_section ACCEL: the phase table and the totals, trigger and sysrq-c
loop_section() {
	local acc=$1 kind i name secs panic first names
	for kind in trigger sysrq; do
		declare -A col=()
		names=()
		for i in $(seq "$rounds"); do
			loop_run "$kind" "$acc"
			"$here/phases.py" "$work/stamped.txt" >"$work/phases.txt" ||
				die "phases.py could not split the run (stamped console: $work/stamped.txt)"
			while IFS=$'\t' read -r name secs; do
				[[ -n ${col[$name]+set} ]] || names+=("$name")
				col[$name]+=" $secs"
			done <"$work/phases.txt"
			panic=$(sed -n 's/^@panic\t//p' "$work/phases.txt")
			first=$(json_timing "$lr_dir" first_look_s)
			col[t_first]+=" $(awk -v w="$lr_wall_ms" -v f="$first" 'BEGIN { print w / 1000 + f }')"
			col[t_full]+=" $(seconds $((lr_wall_ms + lr_report_ms)))"
			col[p_first]+=" $(awk -v w="$lr_wall_ms" -v p="$panic" -v f="$first" 'BEGIN { print w / 1000 - p + f }')"
			col[p_full]+=" $(awk -v w="$lr_wall_ms" -v r="$lr_report_ms" -v p="$panic" 'BEGIN { print (w + r) / 1000 - p }')"
			col[collect]+=" $(awk -v w="$lr_wall_ms" -v o="$(sed -n 's/^@poweroff\t//p' "$work/phases.txt")" 'BEGIN { print w / 1000 - o }')"
			col[first]+=" $first"
			col[report]+=" $(seconds "$lr_report_ms")"
			col[crash]+=" $(json_timing "$lr_dir" crash_s)"
			col[drgn]+=" $(json_timing "$lr_dir" drgn_s)"
			col[vmcore]+=" $(awk -v b="$(meta "$lr_dir" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')"
		done
		# shellcheck disable=SC2086 # the columns are lists of numbers
		{
			for name in "${names[@]}"; do
				[[ $name == @* ]] && continue
				# the sysrq-c baseline: only what differs from the trigger's loop
				[[ $kind == sysrq && $name != "guest: triggerctl check, arm, workload to the panic" && $name != "panic to capture kernel powered off" ]] && continue
				record "loop $kind $acc" "$name" s "host clock, console stamped" ${col[$name]}
			done
			record "loop $kind $acc" "QEMU exit, collect, run filed (after power off)" s "" ${col[collect]}
			record "loop $kind $acc" "analysis: first look printed (drgn)" s "report.json timings.first_look_s" ${col[first]}
			record "loop $kind $acc" "analysis: whole report (crash + drgn in parallel)" s "" ${col[report]}
			record "loop $kind $acc" "analysis: crash part" s "report.json timings.crash_s" ${col[crash]}
			record "loop $kind $acc" "analysis: drgn part" s "report.json timings.drgn_s" ${col[drgn]}
			record "loop $kind $acc" "TOTAL command to first look" s "wall (goal: under 8)" ${col[t_first]}
			record "loop $kind $acc" "TOTAL command to whole report" s "wall" ${col[t_full]}
			record "loop $kind $acc" "TOTAL panic to first look" s "host clock (goal: under 5)" ${col[p_first]}
			record "loop $kind $acc" "TOTAL panic to whole report" s "host clock" ${col[p_full]}
			record "loop $kind $acc" "vmcore, idle 1 GiB guest" MiB "makedumpfile $(meta "$lr_dir" dump.makedumpfile_opts)" ${col[vmcore]}
		}
		unset col
	done
}

# boot_detail ACCEL: one run with initcall_debug (and ignore_loglevel: its
# lines are KERN_DEBUG) in both kernels: their slowest
# initcalls; crash's start alone and drgn's open, on that run's vmcore
boot_detail() {
	local acc=$1 k name us
	loop_run trigger "$acc" --append "initcall_debug ignore_loglevel" --capture-append "initcall_debug ignore_loglevel"
	# "initcall NAME+0x0/0x1c returned 0 after 1234 usecs"; the second
	# "Linux version" starts the capture kernel
	for k in guest capture; do
		awk -v want="$k" '/Linux version/ { n++ }
			/initcall .* returned .* after [0-9]+ usecs/ {
				if ((want == "guest" && n == 1) || (want == "capture" && n == 2)) {
					for (i = 1; i <= NF; i++) if ($i == "initcall") name = $(i + 1)
					sub(/\+.*/, "", name); print $(NF - 1), name } }' "$lr_dir/console.log" |
			sort -rn | awk 'NR <= 5' >"$work/initcalls-$k.txt"
		[[ -s $work/initcalls-$k.txt ]] || die "no initcall_debug lines of the $k kernel in $lr_dir/console.log"
		while read -r us name; do
			record "boot $k $acc" "initcall $name" ms "one run, initcall_debug (slows the boot)" \
				"$(awk -v u="$us" 'BEGIN { print u / 1000 }')"
		done <"$work/initcalls-$k.txt"
	done
	local cv t0
	cv=$("$top/analysis/crash-vmlinux.sh" --lookup "$(meta "$lr_dir" guest.vmlinux)")
	v=()
	for _ in $(seq "$rounds"); do
		t0=$(now_ms)
		echo q | crash -s --kaslr=auto "$cv" "$lr_dir/vmcore" >/dev/null 2>&1 || die "crash could not open $lr_dir/vmcore"
		v+=("$(seconds $(($(now_ms) - t0)))")
	done
	record "analysis $acc" "crash start alone (symbols, debug info, vmcore; then q)" s "indexed copy, no .rela.debug_*" "${v[@]}"
	# the yardstick of the drgn part: the report as it was without drgn, crash
	# alone on the plain vmlinux with the report's own crash commands
	# (report.py --crash-commands), beside the whole report of the loop above
	local cmds
	mapfile -t cmds < <("$top/analysis/report.py" --crash-commands)
	((${#cmds[@]} > 3)) || die "analysis/report.py --crash-commands listed ${#cmds[@]} commands"
	v=()
	for _ in $(seq "$rounds"); do
		t0=$(now_ms)
		printf '%s\n' "${cmds[@]}" q | crash -s --kaslr=auto "$(meta "$lr_dir" guest.vmlinux)" "$lr_dir/vmcore" >/dev/null 2>&1 ||
			die "crash could not open $lr_dir/vmcore with the plain vmlinux"
		v+=("$(seconds $(($(now_ms) - t0)))")
	done
	record "analysis $acc" "crash-only report, no drgn part (plain vmlinux, the report's ${#cmds[@]} crash commands)" s "compare: analysis: whole report" "${v[@]}"
	# the report with the toolbox's analyzers against Debian 12's own, on
	# the same vmcore, rounds interleaved: each part, the first look and
	# the whole report
	local an k
	declare -A tv=()
	for _ in $(seq "$rounds"); do
		for an in toolbox system; do
			"$top/analysis/report.py" --analyzers "$an" "$lr_dir" >/dev/null 2>&1 || die "report.py --analyzers $an failed on $lr_dir"
			for k in report_s crash_s drgn_s first_look_s; do
				tv[$an.$k]+=" $(json_timing "$lr_dir" "$k")"
			done
		done
	done
	for k in report_s crash_s drgn_s first_look_s; do
		for an in toolbox system; do
			# shellcheck disable=SC2086 # one figure a round
			record "analysis $acc" "report with the $an analyzers: $k" s "same vmcore, same minute; report.json timings.$k" ${tv[$an.$k]}
		done
	done
	# what the first use costs: the toolbox made afresh in a cache of its own
	local tcache=$work/toolbox-cache t0
	rm -rf "$tcache"
	t0=$(now_ms)
	BPK_CACHE=$tcache "$top/analysis/toolbox.sh" root >/dev/null 2>"$work/toolbox.err" || die "the toolbox could not be made: $(tail -1 "$work/toolbox.err")"
	record "analysis $acc" "toolbox first use: mmdebstrap of trixie with crash and drgn" s "once per cache; its size: $(du -sm "$tcache/toolbox" | cut -f1) MB" "$(seconds $(($(now_ms) - t0)))"
	rm -rf "$tcache"
	t0=$(now_ms)
	"$top/analysis/toolbox.sh" root >/dev/null 2>&1 || die "the toolbox is not usable"
	record "analysis $acc" "toolbox later uses: its manifest checked" s "every report, bpk crash, bpk drgn" "$(seconds $(($(now_ms) - t0)))"
	o=() a=()
	for _ in $(seq "$rounds"); do
		"$top/analysis/drgn-part.py" --vmcore "$lr_dir/vmcore" --vmlinux "$(meta "$lr_dir" guest.vmlinux)" \
			--out "$work/drgn.json" 2>/dev/null || die "drgn-part.py failed on $lr_dir"
		read -r os as < <(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["open_s"], d["seconds"])' "$work/drgn.json")
		o+=("$os") a+=("$as")
	done
	record "analysis $acc" "drgn open (vmcore, vmlinux debug info)" s "drgn-part.py open_s" "${o[@]}"
	record "analysis $acc" "drgn part, all sections" s "drgn-part.py seconds" "${a[@]}"
}

# warm_section ACCEL: the warm start against a cold boot, side by side in
# rounds (warm, cold, warm, cold...): QEMU start to armed (host clock,
# run.json timings.start_to_armed_s) and command to run filed; the idle
# snapshot made first, outside the figures
warm_section() {
	local acc=$1 kind runs t0 w=() c=() ww=() cw=() ratio
	"$bpk" snapshot --accel "$acc" --quiet >/dev/null || die "the idle snapshot could not be made"
	for _ in $(seq "$rounds"); do
		for kind in warm cold; do
			runs=$work/warm-$kind-$acc
			mkdir -p "$runs"
			t0=$(now_ms)
			# shellcheck disable=SC2046 # no word or one
			run "${demo[@]}" --accel "$acc" --runs "$runs" --no-report $([[ $kind == cold ]] && echo --cold) \
				>"$work/run.out" 2>&1 || { tail -3 "$work/run.out" >&2; die "warm-start run ($kind, $acc) failed"; }
			if [[ $kind == warm ]]; then
				[[ -n $(meta "$(newest_run "$runs")" guest.restored_from) ]] ||
					die "the warm run did not start warm: $(meta "$(newest_run "$runs")" guest.cold_why)"
				w+=("$(meta "$(newest_run "$runs")" timings.start_to_armed_s)")
				ww+=("$(seconds $(($(now_ms) - t0)))")
			else
				c+=("$(meta "$(newest_run "$runs")" timings.start_to_armed_s)")
				cw+=("$(seconds $(($(now_ms) - t0)))")
			fi
		done
	done
	record "warm start $acc" "QEMU start to armed, warm (idle snapshot)" s "run.json timings.start_to_armed_s" "${w[@]}"
	record "warm start $acc" "QEMU start to armed, cold (--cold)" s "same run, interleaved" "${c[@]}"
	ratio=$(awk -v a="$(stats "${w[@]}" | cut -d' ' -f2)" -v b="$(stats "${c[@]}" | cut -d' ' -f2)" 'BEGIN { printf "%.3f", a / b }')
	record "warm start $acc" "QEMU start to armed, warm / cold" x "medians (goal: at most 0.15)" "$ratio"
	record "warm start $acc" "command to run filed (no report), warm" s "wall" "${ww[@]}"
	record "warm start $acc" "command to run filed (no report), cold" s "wall" "${cw[@]}"
}

# dumphost_section ACCEL: the host's dump (--dump host) against kdump, side
# by side in rounds, both warm, and the host's dump of a guest booted cold:
# the guest seen going down to the run filed (host clock, run.json
# timings.down_to_filed_s), the host's dump alone, and the vmcores' sizes
dumphost_section() {
	local acc=$1 kind runs r h=() k=() c=() hd=() cd=() hs=() ks=() ratio
	for _ in $(seq "$rounds"); do
		for kind in host kdump host-cold; do
			runs=$work/dump-$kind-$acc
			mkdir -p "$runs"
			# shellcheck disable=SC2046 # no word or one
			run "${demo[@]}" --accel "$acc" --runs "$runs" --no-report --dump "${kind%-cold}" \
				$([[ $kind == *-cold ]] && echo --cold) \
				>"$work/run.out" 2>&1 || { tail -3 "$work/run.out" >&2; die "--dump $kind run ($acc) failed"; }
			r=$(newest_run "$runs")
			[[ $(meta "$r" dump.path) == "${kind%-cold}" ]] || die "--dump $kind run: dump.path is $(meta "$r" dump.path)"
			case $kind in
			host)
				h+=("$(meta "$r" timings.down_to_filed_s)")
				hd+=("$(sed -n 's/.*the host.s dump taken in \([0-9.]*\)s.*/\1/p' "$work/run.out" | tail -1)")
				hs+=("$(awk -v b="$(meta "$r" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
				;;
			kdump)
				k+=("$(meta "$r" timings.down_to_filed_s)")
				ks+=("$(awk -v b="$(meta "$r" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
				;;
			host-cold)
				c+=("$(meta "$r" timings.down_to_filed_s)")
				cd+=("$(sed -n 's/.*the host.s dump taken in \([0-9.]*\)s.*/\1/p' "$work/run.out" | tail -1)")
				;;
			esac
		done
	done
	record "dump path $acc" "panic to run filed, --dump host" s "run.json timings.down_to_filed_s" "${h[@]}"
	record "dump path $acc" "panic to run filed, kdump" s "same run, interleaved" "${k[@]}"
	ratio=$(awk -v a="$(stats "${h[@]}" | cut -d' ' -f2)" -v b="$(stats "${k[@]}" | cut -d' ' -f2)" 'BEGIN { printf "%.3f", a / b }')
	record "dump path $acc" "panic to run filed, host / kdump" x "medians (goal: at most 0.3)" "$ratio"
	record "dump path $acc" "panic to run filed, --dump host --cold" s "a booted guest: its RAM anonymous" "${c[@]}"
	record "dump path $acc" "QEMU's dump alone, --dump host (warm)" s "restored RAM: a private file mapping" "${hd[@]}"
	record "dump path $acc" "QEMU's dump alone, --dump host --cold" s "booted RAM: anonymous" "${cd[@]}"
	record "dump path $acc" "vmcore, --dump host" MiB "every page, zero pages compressed (zlib)" "${hs[@]}"
	record "dump path $acc" "vmcore, kdump" MiB "makedumpfile $mdopts" "${ks[@]}"
}

if want loop; then
	accels=("$accel")
	# KVM where it works (bpk's probe): what a user with KVM sees
	if [[ $accel == tcg ]]; then
		probe=$("$bpk" boot --probe-accel)
		if [[ $probe == kvm ]]; then accels+=(kvm); else say "loop: KVM not usable here (bpk boot --probe-accel: $probe): TCG figures only"; fi
	fi
	for acc in "${accels[@]}"; do
		step "loop ($acc)"
		warm_section "$acc"
		loop_section "$acc"
		boot_detail "$acc"
		step_done ""
	done
fi

# --- the host's dump (--dump host) against kdump, both warm
if want dump; then
	step "dump path ($accel)"
	dumphost_section "$accel"
	step_done ""
fi

# dump_guest_memory MEM OUT: the host-side dump-guest-memory ELF of a guest
# whose memory is dirtied the same way; prints "seconds bytes".
dump_guest_memory() {
	local mem=$1 elf=$2 port runs pid results i t0 line
	port=$((20000 + RANDOM % 20000))
	runs=$work/hold-$mem
	run none --workload "$build/bench/dirty-hold" --mem "$mem" --accel "$accel" \
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
			run "${dirty[@]}" --mem "$mem" --accel "$accel" --runs "$runs" --no-report --cold \
				--timeout 900 >"$work/run.out" 2>&1 || { tail -3 "$work/run.out" >&2; die "scaling run $mem failed"; }
			r=$(newest_run "$runs")
			d+=("$(meta "$r" timings.dump_s)")
			s+=("$(awk -v b="$(meta "$r" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
			read -r secs bytes < <(dump_guest_memory "$mem" "$work/guest.elf")
			es+=("$secs")
			e+=("$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')")
		done
		record "scaling $mem" "dump time (makedumpfile $mdopts)" s "" "${d[@]}"
		record "scaling $mem" "vmcore size" MiB "" "${s[@]}"
		record "scaling $mem" "dump-guest-memory ELF size" MiB "host side, paging=false" "${e[@]}"
		record "scaling $mem" "dump-guest-memory time" s "host side" "${es[@]}"
	done
	# the same 1 GiB run with other makedumpfile options: the kdump image is
	# replaced by appending a cpio with another /boot/kdump.img (a later
	# entry of the initramfs wins)
	for opts in "-l -d 31" "-c -d 31" "-l -d 1"; do
		tag=${opts// /}
		mkdir -p "$work/img-$tag/boot"
		"$top/appliance/mkkdump.sh" "$work/img-$tag/boot/kdump.img" "$opts" 2>/dev/null
		(cd "$work/img-$tag" && find boot | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$work/kdump-$tag.cpio.gz"
		cat "$build/appliance/root.cpio.gz" "$work/kdump-$tag.cpio.gz" >"$work/root-$tag.cpio.gz"
		d=() s=()
		for i in $(seq "$rounds"); do
			runs=$work/opts-$tag
			BPK_ROOT_IMG=$work/root-$tag.cpio.gz "$bpk" run "${dirty[@]}" --mem 1G --accel "$accel" \
				--runs "$runs" --no-report --cold --timeout 900 >"$work/run.out" 2>&1 ||
				{ tail -3 "$work/run.out" >&2; die "run with makedumpfile $opts failed"; }
			r=$(newest_run "$runs")
			[[ $(meta "$r" dump.makedumpfile_opts) == "$opts" ]] || die "$r: ran with $(meta "$r" dump.makedumpfile_opts), not $opts"
			d+=("$(meta "$r" timings.dump_s)")
			s+=("$(awk -v b="$(meta "$r" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
		done
		record "dump options 1G" "dump time (makedumpfile $opts)" s "" "${d[@]}"
		record "dump options 1G" "vmcore size (makedumpfile $opts)" MiB "" "${s[@]}"
	done
	step_done ""
fi

# --- 4. trigger cost on a hot path (getpgid loop), dry-run triggers
if want cost; then
	step "trigger cost ($accel)"
	"$bpk" boot --initrd "$build/bench/cost.cpio.gz" --append "bpk.job=bench-cost" --accel "$accel" \
		--timeout 600 --quiet --out "$work/cost" ||
		die "cost guest failed (console: $work/cost/console.log)"
	grep -q '^COST-DONE' "$work/cost/results.txt" || die "cost guest did not finish: $(tail -3 "$work/cost/results.txt")"
	col() { awk -v m="$1" '$1 == "COST" && $2 == m && $3 != "" { print $3 }' "$work/cost/results.txt"; }
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
	rss=$(sed -n 's/^RSS //p' "$work/cost/results.txt")
	record memory "triggerctl arm, peak RSS" KiB "in the guest, static binary" "$rss"
	step_done ""
fi

# --- 5. memory: kdump image, smallest working crashkernel per guest size
if want memory; then
	step "memory"
	img=$build/appliance/kdump.img
	# a plain cpio (mkkdump.sh): as loaded is as unpacked
	record memory "kdump initramfs (dracut, plain cpio)" MiB "as kexec -p loads it" "$(awk -v b="$(stat -c %s "$img")" 'BEGIN { print b / 1048576 }')"
	sizes=(32 40 44 48 56 64 80 96 128 192)
	for mem in 512M 1G 2G 4G; do
		# binary search for the first size that dumps (larger ones do too);
		# the answer is only recorded once a run at that size has worked;
		# the guest's own minimum-reservation check would refuse the small
		# sizes before trying them, so the search measures, not the check
		dumps() {
			run "${demo[@]}" --mem "$mem" --crashkernel "${sizes[$1]}M" --accel "$accel" \
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

# --- 6. field: Debian's kernel beside ours, python over 9p
if want field; then
	step "field ($accel)"
	# shellcheck source=field.sh
	. "$here/field.sh"
	field_bench
	step_done ""
fi

# --- 7. campaign: fresh boots against armed-snapshot restores
if want campaign; then
	step "campaign ($accel)"
	# shellcheck source=campaign.sh
	. "$here/campaign.sh"
	campaign_bench
	step_done ""
fi

# --- 8. own programs: compiling one, and the cache's answer
if want prog; then
	step "prog"
	pcache=$work/prog-cache
	v=() h=()
	for _ in $(seq "$rounds"); do
		rm -rf "$pcache"
		v+=("$(seconds "$(BPK_CACHE=$pcache time_ms "$bpk" list --prog "$top/docs/own-triggers/short_pipe_write.bpf.c")")")
		grep -q '^bpk: compiled ' "$work/last.out" || die "bpk list --prog did not compile: $(head -1 "$work/last.out")"
		h+=("$(seconds "$(BPK_CACHE=$pcache time_ms "$bpk" list --prog "$top/docs/own-triggers/short_pipe_write.bpf.c")")")
		grep -q 'compiled before' "$work/last.out" || die "bpk list --prog missed its cache: $(head -1 "$work/last.out")"
	done
	record prog "a small program compiled (clang -E for the key, clang -c, read as a trigger)" s "short_pipe_write.bpf.c, empty cache" "${v[@]}"
	record prog "the same, from the cache (clang -E for the key, read as a trigger)" s "bpk list --prog" "${h[@]}"
	rm -rf "$pcache"
	step_done ""
fi

# --- 9. hangs: the host's NMI, and a live guest's dump against kdump's
if want hangs; then
	step "hangs ($accel)"
	n=() l=() ls=() k=() ks=()
	for _ in $(seq "$rounds"); do
		# a hard lockup only the host sees: --stall 5, the NMI, kdump
		runs=$work/stall
		run none --workload "$top/tests/stall/hardlockup.sh" --stall 5 --accel "$accel" --runs "$runs" \
			--no-report --timeout 300 >"$work/run.out" 2>&1 || { tail -3 "$work/run.out" >&2; die "stall run failed"; }
		r=$(newest_run "$runs")
		n+=("$(awk -v w="$(meta "$r" timings.qemu_wall_s)" -v i="$(meta "$r" qemu.nmi_injected_ms)" \
			'BEGIN { print w - i / 1000 }')")
		# a 1 GiB guest dumped live by the host (bpk dump), then by kdump
		# when its workload fires
		runs=$work/live
		rm -rf "$runs"
		mkdir -p "$runs"
		run syscall_errno syscall=openat errno=ENOENT comm=late-open --workload "$top/tests/live/late-open.sh" \
			--mem 1G --accel "$accel" --runs "$runs" --no-report --timeout 400 >"$work/live-run.out" 2>&1 &
		pid=$!
		for _ in $(seq 1 600); do
			grep -qs '^BPK-STATE armed' "$runs"/.staging-*/results.txt && break
			sleep 0.5
		done
		"$bpk" -j --runs "$runs" dump --no-report >"$work/dump.json" 2>"$work/dump.err" ||
			{ kill "$pid"; wait "$pid" || true; die "bpk dump failed: $(tail -1 "$work/dump.err")"; }
		wait "$pid" || { tail -3 "$work/live-run.out" >&2; die "the live dump's run failed"; }
		read -r paused bytes < <(/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["paused_s"], d["vmcore_bytes"])' "$work/dump.json")
		l+=("$paused")
		ls+=("$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')")
		r=$(find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' ! -name '*-live' | sort | tail -1)
		k+=("$(awk -v c="$(meta "$r" timings.panic_to_capture_s)" -v d="$(meta "$r" timings.dump_s)" 'BEGIN { print c + d }')")
		ks+=("$(awk -v b="$(meta "$r" dump.vmcore_bytes)" 'BEGIN { print b / 1048576 }')")
	done
	record hangs "--stall NMI -> run filed (kdump)" s "hard lockup, after 5 s without output" "${n[@]}"
	record hangs "live dump (bpk dump): guest paused" s "1 GiB guest, QEMU kdump-zlib, paging=false" "${l[@]}"
	record hangs "live dump size" MiB "every page, zero pages compressed" "${ls[@]}"
	record hangs "kdump of the same guest: panic -> dumped" s "capture boot + makedumpfile $mdopts" "${k[@]}"
	record hangs "kdump vmcore size" MiB "" "${ks[@]}"
	step_done ""
fi

say "all benchmarks took $(fmt_ms $(($(now_ms) - t_all))); results: $results"
echo
awk -F '\t' '{ printf "%-16s %-44s %-7s %3s %9s %9s %9s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$results"
