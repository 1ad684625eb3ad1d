# shellcheck shell=bash
# make bench, section "goals", sourced by run-bench.sh: the loop's speed
# goals, each figure measured side by side with a baseline commit's build
# in the same rounds (now, baseline, now, baseline...), then one table:
# each goal, its figure now, the baseline's, and whether it is met.
#
# BENCH_BASELINE: the commit to measure against (HEAD~1, the previous
# commit; "none" measures this build alone). Its tree comes from
# `git archive` into build/bench-baseline/<commit>/src and is built there
# (make run-deps debian-run-deps, its own BUILD; kernels, Debian's
# packages and snapshots from the shared cache), once per commit.
# Uses run-bench.sh's accel, work, top, build, rounds.
# shellcheck disable=SC2154 # those globals

# baseline_build REV: the baseline's tree and build; sets base_src,
# base_build, base_sha
baseline_build() {
	local rev=$1 dir log
	base_sha=$(git -C "$top" rev-parse --verify --quiet "$rev^{commit}") ||
		bad_input "BENCH_BASELINE '$rev' is not a commit of $top"
	dir=$build/bench-baseline/$base_sha
	base_src=$dir/src base_build=$dir/build
	log=$dir/build.log
	if [[ ! -e $dir/ok ]]; then
		say "goals: building the baseline ${base_sha:0:12} in $dir (log: $log)"
		rm -rf "$dir"
		mkdir -p "$base_src"
		git -C "$top" archive "$base_sha" | tar -x -C "$base_src" || die "git archive of $base_sha failed"
		# its own build dir; BPK_NO_BUILD would stop nothing here, make
		# itself is the build
		env -u BPK_NO_BUILD make -C "$base_src" BUILD="$base_build" run-deps debian-run-deps >"$log" 2>&1 ||
			{ tail -5 "$log" >&2; die "the baseline ${base_sha:0:12} did not build (log: $log)"; }
		touch "$dir/ok"
	fi
	[[ -x $base_build/bpk/bpk ]] || die "$base_build/bpk/bpk: the baseline's bpk is missing"
}

# side_bpk SIDE ARG...: bpk of SIDE (now or base) with its own build dir
side_bpk() {
	local side=$1
	shift
	BUILD=$(side_build "$side") "$(side_build "$side")/bpk/bpk" "$@"
}

# side_top SIDE, side_build SIDE: the clone the side's scripts come from,
# and its build dir
side_top() { if [[ $1 == now ]]; then echo "$top"; else echo "$base_src"; fi; }
side_build() { if [[ $1 == now ]]; then echo "$build"; else echo "$base_build"; fi; }

# goal_run SIDE NAME ARG...: one bpk run of SIDE, filed under
# $work/goals-SIDE-NAME; prints the run's directory
goal_run() {
	local side=$1 name=$2 runs
	shift 2
	runs=$work/goals-$side-$name
	mkdir -p "$runs"
	side_bpk "$side" run --accel "$accel" --runs "$runs" --no-report "$@" >"$work/goal-run.out" 2>&1 ||
		{ tail -3 "$work/goal-run.out" >&2; die "goals: $side run $name failed"; }
	newest_run "$runs"
}

# median VALUE...: the median, alone
median() { stats "$@" | cut -d' ' -f2; }

# goal_row NAME TARGET UNIT NOW BASE MET: one line of the goals table (NOW
# and BASE the figures of this build and of the baseline, in UNIT), and a
# row of the results file (its median: NOW)
goal_row() {
	local name=$1 target=$2 unit=$3 now=$4 base=$5 met=$6
	printf '%-60s %-8s %10s %10s  %s\n' "$name" "$target" "$now$unit" "${base:+$base$unit}" "$met"
	local note=${target:+target $target: $met; }
	[[ -z $base ]] || note+="baseline ${base_sha:0:12}: $base"
	printf 'goals\t%s\t%s\t1\t%s\t%s\t%s\t%s\n' "$name" "$unit" "$now" "$now" "$now" "${note%; }" >>"$results"
}

# shellcheck disable=SC2086 # the figure lists: one word a round
goals_bench() {
	local rev=${BENCH_BASELINE:-HEAD~1} sides=(now) side r t0
	base_sha='' base_src='' base_build=''
	if [[ $rev != none ]]; then
		baseline_build "$rev"
		sides+=(base)
	fi
	declare -A gv=()
	for side in "${sides[@]}"; do
		# the idle snapshots (each side's image is its own key), made
		# outside the figures
		side_bpk "$side" snapshot --accel "$accel" --quiet >/dev/null || die "goals: $side: the idle snapshot could not be made"
		side_bpk "$side" snapshot --accel "$accel" --kernel debian --quiet >/dev/null ||
			die "goals: $side: the idle snapshot of Debian's kernel could not be made"
	done
	for _ in $(seq "$rounds"); do
		for side in "${sides[@]}"; do
			# the warm run is our kernel's loop too: command to run filed
			t0=$(now_ms)
			r=$(goal_run "$side" warm "${demo[@]}")
			gv[$side.ours]+=" $(seconds $(($(now_ms) - t0)))"
			gv[$side.warm]+=" $(meta "$r" timings.start_to_armed_s)"
			gv[$side.kdump]+=" $(meta "$r" timings.down_to_filed_s)"
			# report.py finds fire-decode under its clone's build/ unless told
			FIRE_DECODE=$(side_build "$side")/analysis/fire-decode "$(side_top "$side")/analysis/report.py" "$r" \
				>"$work/goal-report.out" 2>&1 ||
				{ tail -3 "$work/goal-report.out" >&2; die "goals: $side: report.py failed on $r"; }
			gv[$side.gap]+=" $(awk -v a="$(json_timing "$r" report_s)" -v b="$(json_timing "$r" first_look_s)" 'BEGIN { print a - b }')"
			r=$(goal_run "$side" cold "${demo[@]}" --cold)
			gv[$side.cold]+=" $(meta "$r" timings.start_to_armed_s)"
			r=$(goal_run "$side" host "${demo[@]}" --dump host)
			gv[$side.host]+=" $(meta "$r" timings.down_to_filed_s)"
			t0=$(now_ms)
			goal_run "$side" debian "${demo[@]}" --kernel debian >/dev/null
			gv[$side.debian]+=" $(seconds $(($(now_ms) - t0)))"
		done
	done
	# campaigns: a reproducer that never fires, from the armed snapshot
	local attempts=${BENCH_ATTEMPTS:-6}
	for side in "${sides[@]}"; do
		BPK_ACCEL=$accel never_campaign "goals: $side campaign" "$work/goals-$side-campaign" "$attempts" 2 0 \
			side_bpk "$side"
		gv[$side.apm]=$(jfield "$never_camp/campaign.json" attempts_per_minute)
	done

	local k
	for side in "${sides[@]}"; do
		for k in warm cold kdump host gap ours debian; do
			record "goals $side" "$k" s "rounds interleaved with the other side" ${gv[$side.$k]}
		done
		record "goals $side" "campaign attempts per minute, --jobs 2" /min "$attempts attempts" "${gv[$side.apm]}"
	done

	# ratio A B: A / B of two figures; met FIGURE OP GOAL
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
	met() { awk -v x="$1" -v op="$2" -v g="$3" 'BEGIN { ok = op == "<=" ? x <= g : x >= g; print ok ? "met" : "MISSED" }'; }
	# each side's figure of one goal: a ratio within the side, or a median
	local now base
	side_ratio() { ratio "$(median ${gv[$1.$2]})" "$(median ${gv[$1.$3]})"; }
	say "goals: this build beside ${base_sha:+the baseline ${base_sha:0:12} ($rev)}${base_sha:-no baseline}; medians of $rounds rounds"
	printf '%-60s %-8s %10s %10s\n' goal target "this build" baseline
	now=$(side_ratio now warm cold) base=${base_sha:+$(side_ratio base warm cold)}
	goal_row "warm start: QEMU start to armed, warm / cold" "<= 0.15" x "$now" "$base" "$(met "$now" "<=" 0.15)"
	now=$(median ${gv[now.kdump]}) base=${base_sha:+$(median ${gv[base.kdump]})}
	goal_row "kdump: guest down to run filed" "" s "$now" "$base" ""
	if [[ -n $base_sha ]]; then
		goal_row "capture: the same, this build / baseline" "<= 0.5" x "$(ratio "$now" "$base")" "" \
			"$(met "$(ratio "$now" "$base")" "<=" 0.5)"
	fi
	now=$(side_ratio now host kdump) base=${base_sha:+$(side_ratio base host kdump)}
	goal_row "host dump: guest down to run filed, --dump host / kdump" "<= 0.3" x "$now" "$base" "$(met "$now" "<=" 0.3)"
	now=$(median ${gv[now.gap]}) base=${base_sha:+$(median ${gv[base.gap]})}
	goal_row "report: whole report after the first look" "<= 1" s "$now" "$base" "$(met "$now" "<=" 1)"
	now=$(side_ratio now debian ours) base=${base_sha:+$(side_ratio base debian ours)}
	goal_row "Debian's kernel: command to run filed, debian / ours" "<= 1.3" x "$now" "$base" "$(met "$now" "<=" 1.3)"
	now=$(printf '%.1f' "${gv[now.apm]}") base=${base_sha:+$(printf '%.1f' "${gv[base.apm]}")}
	goal_row "campaign: attempts per minute, --jobs 2" "" /min "$now" "$base" ""
	if [[ -n $base_sha ]]; then
		goal_row "campaign: the same, this build / baseline" ">= 2" x "$(ratio "$now" "$base")" "" \
			"$(met "$(ratio "$now" "$base")" ">=" 2)"
	fi
}
