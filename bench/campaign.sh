# shellcheck shell=bash
# make bench, section "campaign", sourced by run-bench.sh: in one
# run, side by side,
#  - the armed snapshot's cost: made in a scratch cache (boot to idle, save,
#    state file, RAM file as allocated);
#  - attempts per minute of a campaign whose reproducer never fires
#    (BENCH_ATTEMPTS attempts, 6): fresh boots with --jobs 1, fresh with
#    --jobs 2, restores with --jobs 1 and --jobs 2;
#  - to armed per attempt (host clock, from the attempt's start to the
#    guest's "armed"), booted against restored, and the restore itself
#    (QMP: load the state until the guest runs).
# Uses run-bench.sh's accel, work, top, build.
# shellcheck disable=SC2154 # those globals

# jfield FILE KEY: KEY of a JSON object file (Debian's python3: the json
# module, no scraping); null as nothing
jfield() {
	/usr/bin/python3 -c 'import json, sys
v = json.load(open(sys.argv[1])).get(sys.argv[2])
print("" if v is None else v)' "$1" "$2"
}

# campaign_rec CAMP KEY: KEY of every attempt record of campaign CAMP
campaign_rec() {
	local f
	for f in "$1"/attempts/*/attempt.json; do jfield "$f" "$2"; done | grep .
}

# never_campaign LABEL DIR ATTEMPTS JOBS FRESH BPK...: a campaign of
# ATTEMPTS attempts of a reproducer that never fires (tests/campaign/
# never.sh), --fresh if FRESH is 1, run by the bpk command line BPK... and
# filed under DIR; it must end as such a campaign does (exit 1, every
# attempt ran out), or the bench stops. Sets never_camp to its directory.
never_campaign() {
	local label=$1 dir=$2 attempts=$3 jobs=$4 fresh=() rc=0
	if [[ $5 == 1 ]]; then fresh=(--fresh); fi
	shift 5
	mkdir -p "$dir"
	"$@" --runs "$dir" campaign syscall_errno syscall=openat errno=ENOSPC --attempts "$attempts" \
		--jobs "$jobs" "${fresh[@]}" --workload "$top/tests/campaign/never.sh" --timeout 300 \
		>"$work/campaign.out" 2>&1 || rc=$?
	never_camp=$(find "$dir" -mindepth 1 -maxdepth 1 -name 'campaign-*' | sort | tail -1)
	if ((rc != 1)) || [[ -z $never_camp || $(jfield "$never_camp/campaign.json" ran_out) != "$attempts" ]]; then
		tail -3 "$work/campaign.out" >&2
		die "$label: exit $rc, not $attempts attempts that ran out"
	fi
}

campaign_bench() {
	local attempts=${BENCH_ATTEMPTS:-6} cache=$work/snapshot-cache snap kind jobs camp v
	[[ $attempts =~ ^[1-9][0-9]*$ ]] || bad_input "BENCH_ATTEMPTS '$attempts' is not a number >= 1"
	snap=$(BPK_CACHE=$cache BPK_ACCEL=$accel "$bpk" snapshot --quiet) || die "the armed snapshot could not be made"
	m() { jfield "$snap/snapshot.json" "$1"; }
	record campaign "snapshot: boot to idle" s "crash kernel loaded, reservation checked" "$(m boot_to_idle_s)"
	record campaign "snapshot: save (stop + migrate)" s "x-ignore-shared: RAM stays in its file" "$(m save_s)"
	record campaign "snapshot: state file" KiB "" "$(($(m state_bytes) / 1024))"
	record campaign "snapshot: RAM file allocated" MiB "1 GiB guest, sparse" "$(($(m ram_bytes) / 1048576))"
	for kind in fresh snapshot; do
		for jobs in 1 2; do
			never_campaign "campaign bench ($kind, --jobs $jobs)" "$work/campaign-$kind-$jobs" "$attempts" "$jobs" \
				"$([[ $kind == fresh ]] && echo 1 || echo 0)" env BPK_CACHE="$cache" BPK_ACCEL="$accel" "$bpk"
			camp=$never_camp
			record campaign "attempts per minute, $kind, --jobs $jobs" "/min" "$attempts attempts that ran out" \
				"$(jfield "$camp/campaign.json" attempts_per_minute)"
			if ((jobs == 1)); then
				mapfile -t v < <(campaign_rec "$camp" to_armed_s)
				record campaign "attempt start to armed, $kind" s \
					"$([[ $kind == fresh ]] && echo "boot" || echo "restore"): bpk run start to the guest's armed line" "${v[@]}"
				if [[ $kind == snapshot ]]; then
					mapfile -t v < <(for r in $(campaign_rec "$camp" run); do meta "$r" timings.restore_s; done)
					record campaign "restore (QMP: state loaded, guest running)" s "" "${v[@]}"
					mapfile -t v < <(for r in $(campaign_rec "$camp" run); do
						awk '/^BPK-STATE restored/ { sub("t=", "", $3); r = $3 } /^BPK-STATE armed/ { sub("t=", "", $3); a = $3 }
							END { if (r != "" && a != "") printf "%.2f\n", a - r }' "$r/guest.log"; done)
					record campaign "restored to armed (guest clock)" s "control message read, crash kernel checked (armed before the save)" "${v[@]}"
				else
					mapfile -t v < <(for r in $(campaign_rec "$camp" run); do meta "$r" timings.boot_to_armed_s; done)
					record campaign "boot to armed (guest clock)" s "kernel start to armed" "${v[@]}"
				fi
			fi
		done
	done
	rm -rf "$cache"
}
