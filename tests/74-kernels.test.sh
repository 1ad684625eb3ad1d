#!/usr/bin/env bash
# starts early: 14 min on a slow 2-core machine, one of the longest scripts
# needs root: it fetches Debian kernels and their debug packages into the machine's cache, which the test user sees read-only
# Any kernel the field runs, and which of them a behaviour is in.
#  - bad --kernel values (an unknown release, a flavour the archive lacks,
#    a path that is no kernel) are refused with one line, exit 2, nothing
#    downloaded or booted;
#  - bpk kernels lists what the archive serves and what the cache holds;
#  - the oldest Debian 6.1 release with debug symbols, the newest 6.12, its
#    PREEMPT_RT flavour and its cloud flavour each boot, fire syscall_errno
#    through the crash_kexec kfunc, and their reports name their release;
#    each first run measures the kernel's crash reservation (in a
#    reservations directory of the test's own: a machine that measured
#    them before hides nothing), in a 1 GiB guest, from 256M down;
#    the cloud kernel is removed from the cache first, so that its run
#    fetches it and, when the dump is read, its debug package, saying so
#    before the download; that run measures its crash reservation first
#    (said, 4-7 boots), keeps it with the kernel and boots with it, and
#    the next run uses it without measuring again;
#  - bpk matrix on ours, that 6.1 and 6.12: cachestat (451, from 6.5) is
#    ENOSYS on both 6.1 kernels only, so syscall_errno errno=ENOSYS fires
#    there and not on 6.12; each kernel's attempts boot with its measured
#    reservation;
#  - bpk bisect over 6.1-old, 6.1, 6.12 names 6.1 and 6.12 as the boundary,
#    with the 6.12 changelog since 6.1's version;
#  - --kernel PATH: our kernel's build dir boots as a kernel of one's own
#    (bpf_panic, read from its BTF); the same with kexec off in its config
#    is refused by bpk check and bpk run, the option named, nothing booted;
#  - bpk cache prune removes an entry no run needs and keeps those runs use.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"
# this test brings the kernels it boots up to date itself (as root)
unset BPK_NO_BUILD
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}
# The crash reservations this test's runs need are measured here, in a
# directory of its own, every time: what the machine measured before must
# not hide a first run's failure. The downloads in the cache are shared.
export BPK_RESERVATIONS=$out/reservations
# reservation_file RELEASE: what was measured for RELEASE here
reservation_file() {
	{ find "$BPK_RESERVATIONS" -maxdepth 1 -type f -name "${1}_*" ! -name '*.lock' ! -name '*.tmp' 2>/dev/null || true; } | head -1
}
# re TEXT: TEXT as an extended regex matching itself (releases hold + and .)
# shellcheck disable=SC2001 # one class of characters, not one string
re() { sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$1"; }
# The matrix's and the bisection's command: it prints its words, then
# calls cachestat. The words are what GNU parallel's template would
# evaluate or replace, and the shell's substitutions: each would leave a
# file here if anything on the host ran it.
hostile_words "$out"
cachestat=(-- python3 -c 'import ctypes, sys; [print("word<%s>" % w) for w in sys.argv[1:]]; sys.stdout.flush(); __import__("time").sleep(1); ctypes.CDLL(None).syscall(451, -1, 0, 0, 0)' "${hostile[@]}")

# --- bad input: one line, exit 2, nothing fetched or booted
top_listing() { { find "$1" -mindepth 1 -maxdepth 1 -printf '%P\n' 2>/dev/null || true; } | sort | tr '\n' ' '; }
before=$(top_listing "$cache/debian")
bad() {
	local name=$1 want=$2
	shift 2
	one_line "kernels.bad.$name" "$want" "$bpk" --runs "$out/bad-runs" run syscall_errno syscall=openat errno=ENOENT "$@"
}
bad unknown_release "the archive serves no linux-image-6.1.0-999-amd64" --kernel debian:6.1.0-999-amd64
bad unknown_flavour "no flavour arm-amd64 in the archive" --kernel debian:6.12-arm
bad foreign_release "no such flavour in the archive" --kernel debian:6.1.0-50-arm64
bad empty_release "names no release" --kernel debian:
bad dir_no_kernel "no kernel image in this directory" --kernel /etc
bad file_no_kernel "is not an x86 bzImage" --kernel /etc/hostname
bad no_such_path "No such file or directory" --kernel /nonexistent/bzImage
bad word "not ours, debian, debian:RELEASE or the path of a kernel" --kernel mine
after=$(top_listing "$cache/debian")
check kernels.bad.nothing_fetched "cache entries before and after: ${before:-none} / ${after:-none}" test "$before" = "$after"
check kernels.bad.nothing_booted "runs: $(listing "$out/bad-runs")" test -z "$(listing "$out/bad-runs")"

# --- what the archive serves
rc=0
"$bpk" -j kernels >"$out/kernels.json" 2>"$out/kernels.err" || rc=$?
# the oldest 6.1 release with a debug package, the 6.12 ones
old61=$(json_value "$out/kernels.json" "next((k['release'] for k in d if __import__('re').fullmatch(r'6\.1\.0-[0-9]+-amd64', k['release']) and k['debug_bytes']), None)" | tr -d '"')
n612=$(json_value "$out/kernels.json" "len([k for k in d if k['release'].startswith('6.12.')])")
check kernels.list "exit $rc; oldest 6.1 with debug symbols: $old61; 6.12 releases: $n612" \
	test "$rc" = 0 -a "$old61" != none -a "$old61" != null -a "${n612:-0}" != none -a "${n612:-0}" -gt 0
resolve() { appliance/debian-kernel.sh resolve "$1" 2>/dev/null | cut -d' ' -f3; }
k612=$(resolve 6.12)
krt=$(resolve 6.12-rt)
kcloud=$(resolve 6.12-cloud)
k61=$(resolve 6.1)
check kernels.resolve "6.12: ${k612:-none}, 6.12-rt: ${krt:-none}, 6.12-cloud: ${kcloud:-none}, 6.1: ${k61:-none}" \
	test -n "$k612" -a "$krt" = "${k612%-amd64}-rt-amd64" -a "$kcloud" = "${k612%-amd64}-cloud-amd64" -a -n "$k61"

# the cloud kernel, fetched by its run: removed from the cache and the build
rm -rf "$cache"/debian/"$kcloud"_* "$build/kernels/debian-$kcloud"

# one_run NAME BPK-RUN-ARGS...: a run filed under $out/NAME; sets r and rc
one_run() {
	local name=$1
	shift
	rc=0
	"$bpk" --runs "$out/$name" run "$@" --timeout 400 >"$out/$name.out" 2>&1 || rc=$?
	r=$(filed_runs "$out/$name" | tail -1)
}
for spec in "debian:$old61" debian:6.12 debian:6.12-rt debian:6.12-cloud; do
	case $spec in
	debian:6.12) name=612 want=$k612 ;;
	debian:6.12-rt) name=rt want=$krt ;;
	debian:6.12-cloud) name=cloud want=$kcloud ;;
	*) name=old61 want=$old61 ;;
	esac
	one_run "$name" syscall_errno syscall=openat errno=ENOENT comm=bpk-demo --kernel "$spec"
	# a kernel that died while booting, before the appliance said a word
	# (under TCG a Debian kernel now and then meets a stale int3 of its own
	# code patching, "Oops: int3"): booted once more, and said so
	again=
	if ((rc != 0)) && [[ -n $r ]] && [[ -z $(record_field "$r" console.last_state 2>/dev/null) ]]; then
		again=" (booted again: the first boot died in the kernel: $(record_field "$r" reason 2>/dev/null | cut -c1-160))"
		mv "$out/$name.out" "$out/$name.first.out"
		one_run "$name" syscall_errno syscall=openat errno=ENOENT comm=bpk-demo --kernel "$spec"
		cat "$out/$name.first.out" "$out/$name.out" >"$out/$name.both.out"
		mv "$out/$name.both.out" "$out/$name.out"
	fi
	# measured before it booted: said, searched, kept and used
	o=$out/$name.out
	rf=$(reservation_file "$want")
	ck=$(sed -n 's/^crashkernel=//p' "${rf:-/nonexistent}" 2>/dev/null || true)
	small=$(sed -n 's/^crashkernel_smallest=//p' "${rf:-/nonexistent}" 2>/dev/null || true)
	small_mib=${small%M}
	check "kernels.$name.measured" "$(grep -m1 -E 'no measured crash reservation|^bpk: error' "$o" || echo 'no line about measuring'); $(grep -m1 'smallest reservation' "$o" || echo 'no result line'); kept in ${rf:-nothing}: crashkernel=${ck:-none}, smallest ${small:-none}" \
		test -n "$ck" -a -n "$small" -a "${ck%M}" = "$((${small_mib:-0} * 2))"
	if ((rc != 0)) || [[ -z $r || ! -s $r/report.json ]]; then
		fail "kernels.$name.run" "$spec: exit $rc: $(grep -m1 'error:' "$out/$name.out" || tail -1 "$out/$name.out")"
		continue
	fi
	pass "kernels.$name.run" "$spec: $r$again"
	check_field "kernels.$name.uses_measured" "$r" guest.crashkernel "${ck:-none}"
	check_field "kernels.$name.record_release" "$r" guest.kernel_release "$want"
	check_field "kernels.$name.fire_action" "$r" trigger.fire_action crash_kexec
	got=$(json_value "$r/report.json" "d['kernel']['release']")
	check "kernels.$name.report_release" "report.json kernel.release $got" test "$got" = "\"$want\""
	check_file_has "kernels.$name.report_text" "$r/report.txt" "^kernel: +$(re "$want") "
	got=$(json_value "$r/report.json" "[d['fire']['fields']['trigger'], d['fire']['fields']['action'], d['cause']['dump'], d['fire']['crash_drgn_agree']]")
	check "kernels.$name.fire_decoded" "fire record trigger, action, dump cause, crash and drgn agree: $got" \
		test "$got" = '["syscall_errno", "crash_kexec", "trigger", true]'
done
# PREEMPT_RT is what that kernel is
check_file_has kernels.rt.preempt_rt "$(filed_runs "$out/rt" | tail -1)/report.txt" '^kernel: .*PREEMPT_RT'
# 6.12 is beyond what Debian 12's makedumpfile knows: only zero pages left out
check_file_has kernels.612.dump_level "$(filed_runs "$out/612" | tail -1)/report.txt" 'makedumpfile -l -d 1\)'
# the cloud kernel came into the cache with its run, its debug package when
# the dump was read: each said before the download
o=$out/cloud.out
a=$({ grep -nF 'downloading linux-image-'"$kcloud"' ' "$o" || true; } | head -1 | cut -d: -f1)
b=$({ grep -nF "fetching linux-image-$kcloud-dbg once" "$o" || true; } | head -1 | cut -d: -f1)
c=$({ grep -nF "downloading linux-image-$kcloud-dbg " "$o" || true; } | head -1 | cut -d: -f1)
check kernels.cloud.fetched_then_debug "$o: image download announced at line ${a:-none}, debug package announced at ${b:-none}, its download at ${c:-none}" \
	test -n "$a" -a -n "$b" -a -n "$c" -a "${a:-0}" -lt "${b:-0}" -a "${b:-0}" -lt "${c:-0}"
got=$(grep -c '' "$cache/debian/${kcloud}_"*/btf-names 2>/dev/null || echo 0)
check kernels.cloud.btf_names "names from its BTF before the debug package: $got" test "${got:-0}" -gt 1000
one_line kernels.cloud.no_host_programs "cannot mount" "$bpk" --runs "$out/cloud-9p" run syscall_errno syscall=451 errno=ENOSYS \
	--kernel debian:6.12-cloud --no-build "${cachestat[@]}"

# --- the cloud kernel's crash reservation: measured by its first run,
# before that run booted, kept with it and used by it and by the next run
o=$out/cloud.out
rf=$(reservation_file "$kcloud")
ck=$(sed -n 's/^crashkernel=//p' "${rf:-/nonexistent}" 2>/dev/null || true)
small=$(sed -n 's/^crashkernel_smallest=//p' "${rf:-/nonexistent}" 2>/dev/null || true)
small_mib=${small%M}
a=$({ grep -nF "debian:$kcloud has no measured crash reservation: measuring it once" "$o" || true; } | head -1 | cut -d: -f1)
check kernels.measure.announced "$o: announced at line ${a:-none}" test -n "$a"
check kernels.measure.kept "$(grep -m1 'smallest reservation' "$o" || echo 'no result line'); kept: crashkernel=${ck:-none}, smallest ${small:-none}" \
	test -n "$ck" -a -n "$small" -a "${ck%M}" = "$((${small_mib:-0} * 2))"
# sizes that were placed and answered; one not placed is booted on top
tries=$(grep -cE '^kernels: crashkernel=[0-9]+M: (dumped|no dump) ' "$o" || true)
check kernels.measure.halved "$tries runs: $(grep '^kernels: crashkernel=' "$o" | cut -d' ' -f2-4 | tr '\n' ' ')" \
	test "${tries:-0}" -ge 4 -a "${tries:-0}" -le 7
r=$(filed_runs "$out/cloud" | tail -1)
check_field kernels.measure.first_run_uses_it "${r:-/nonexistent}" guest.crashkernel "${ck:-none}"
one_run cloud2 syscall_errno syscall=openat errno=ENOENT comm=bpk-demo --kernel debian:6.12-cloud --no-report
if [[ -n $r ]]; then
	check_field kernels.measure.used "$r" guest.crashkernel "${ck:-none}"
else
	fail kernels.measure.used "exit $rc: $(grep -m1 'error:' "$out/cloud2.out" || tail -1 "$out/cloud2.out")"
fi
n=$(grep -c 'measuring' "$out/cloud2.out" || true)
check kernels.measure.once "lines about measuring in the second run: ${n:-0}" test "${n:-0}" = 0

# --- matrix: cachestat is ENOSYS on 6.1 only
rc=0
"$bpk" -j --runs "$out/matrix" matrix syscall_errno syscall=451 errno=ENOSYS comm=python3 \
	--kernels "ours,debian:$old61,debian:6.12" --jobs 2 --timeout 300 "${cachestat[@]}" \
	>"$out/matrix.json" 2>"$out/matrix.err" || rc=$?
got=$(json_value "$out/matrix.json" "[(k['kernel'], k['answer']) for k in d['kernels']]")
check kernels.matrix.answers "exit $rc: $got" \
	test "$rc" = 0 -a "$got" = "[[\"ours\", \"fired\"], [\"debian:$old61\", \"fired\"], [\"debian:$k612\", \"not-fired\"]]"
got=$(json_value "$out/matrix.json" "[bool(k['run']) and __import__('os').path.exists(k['run'] + '/vmcore') for k in d['kernels']]")
check kernels.matrix.dumps "a vmcore where it fired: $got" test "$got" = '[true, true, false]'
camp=$(json_value "$out/matrix.json" "d['dir']" | tr -d '"')
got=$(awk -F'\t' 'NR > 1 { print $12 }' "$camp/attempts.tsv" 2>/dev/null | sort | tr '\n' ' ')
check kernels.matrix.tsv_kernels "attempts.tsv kernels: ${got:-none}" test "$got" = "debian:$old61 debian:$k612 ours "
# each kernel's attempts booted with its own measured reservation
want="" got=""
for spec in "debian:$old61" "debian:$k612"; do
	f=$(reservation_file "${spec#debian:}")
	want+="$spec=$(sed -n 's/^crashkernel=//p' "${f:-/nonexistent}" 2>/dev/null) "
	run=$(awk -F'\t' -v k="$spec" 'NR > 1 && $12 == k { print $10; exit }' "$camp/attempts.tsv" 2>/dev/null)
	got+="$spec=$(record_field "${run:-/nonexistent}" guest.crashkernel 2>/dev/null) "
done
check kernels.matrix.reservations "runs: $got; measured: $want" test -n "$got" -a "$got" = "$want"
# the words reached the guests byte for byte (the runs of ours and 6.12)
words_arrived kernels.matrix.words_ours "$(awk -F'\t' 'NR > 1 && $12 == "ours" { print $10; exit }' "$camp/attempts.tsv" 2>/dev/null)"
words_arrived kernels.matrix.words_612 "$(awk -F'\t' -v k="debian:$k612" 'NR > 1 && $12 == k { print $10; exit }' "$camp/attempts.tsv" 2>/dev/null)"

# --- bisect: where does it stop firing?
rc=0
"$bpk" --runs "$out/bisect" bisect syscall_errno syscall=451 errno=ENOSYS comm=python3 \
	--kernels "debian:$old61,debian:6.1,debian:6.12" --jobs 2 --timeout 300 "${cachestat[@]}" \
	>"$out/bisect.out" 2>"$out/bisect.err" || rc=$?
bj=$({ find "$out/bisect" -mindepth 2 -maxdepth 2 -name bisect.json 2>/dev/null || true; } | head -1)
got=$(json_value "${bj:-/nonexistent}" "[d['result'], d['change'], d['last_before']['kernel'], d['first_after']['kernel']]")
check kernels.bisect.boundary "exit $rc: $got" \
	test "$rc" = 0 -a "$got" = "[\"found\", \"stops-firing\", \"debian:$k61\", \"debian:$k612\"]"
got=$(json_value "${bj:-/nonexistent}" "[len(d['steps']), d['changelog_entries']]")
steps=${got#[}
steps=${steps%%,*}
entries=${got##*, }
entries=${entries%]}
check kernels.bisect.steps_and_changelog "steps, changelog entries: $got" test "$steps" = 2 -a "${entries:-0}" -gt 0
check_file_has kernels.bisect.changelog_text "$(dirname "${bj:-/nonexistent}")/changelog.txt" '^linux.* \(6\.12\.'
check_file_has kernels.bisect.printed "$out/bisect.out" "^first kernel where syscall_errno does not fire: debian:$(re "$k612") "
got=$(json_value "${bj:-/nonexistent}" "[__import__('os').path.exists(s['kernels'][0]['run'] + '/vmcore') for s in d['steps']]")
check kernels.bisect.steps_kept "each step's first kernel fired, its dump kept: $got" test "$got" = '[true, true]'
words_arrived kernels.bisect.words "$(json_value "${bj:-/nonexistent}" "d['steps'][-1]['kernels'][0]['run']" | tr -d '"')"
nothing_ran kernels.words.nothing_ran_on_host "$out"

# --- a kernel of one's own: our build dir, booted as a path
own=$(readlink -f "$build/kernel")/obj
one_run own syscall_errno syscall=openat errno=ENOENT comm=bpk-demo --kernel "$own"
if ((rc != 0)) || [[ -z $r ]]; then
	fail kernels.own.run "exit $rc: $(grep -m1 'error:' "$out/own.out" || tail -1 "$out/own.out")"
else
	pass kernels.own.run "$r"
	check_field kernels.own.flavor "$r" guest.kernel_flavor path
	check_field kernels.own.fire_action "$r" trigger.fire_action bpf_panic
	check_field_match kernels.own.vmlinux "$r" guest.vmlinux "^$(re "$own")/vmlinux\$"
fi
# ... and with kexec off in its config
nk=$out/no-kexec
mkdir -p "$nk"
ln -sf "$own/arch/x86/boot/bzImage" "$nk/bzImage"
ln -sf "$own/vmlinux" "$nk/vmlinux"
sed -e 's/^CONFIG_KEXEC=y/# CONFIG_KEXEC is not set/' -e 's/^CONFIG_KEXEC_FILE=y/# CONFIG_KEXEC_FILE is not set/' "$own/.config" >"$nk/.config"
rc=0
"$bpk" check --kernel "$nk" >"$out/no-kexec.check" 2>&1 || rc=$?
check_file_has kernels.no_kexec.check_lists "$out/no-kexec.check" '^no +CONFIG_KEXEC=y or CONFIG_KEXEC_FILE=y: kexec -p loads the capture kernel'
check kernels.no_kexec.check_exit "exit $rc" test "$rc" = 1
one_line kernels.no_kexec.run_refused "CONFIG_KEXEC=y or CONFIG_KEXEC_FILE=y: kexec -p loads the capture kernel" \
	"$bpk" --runs "$out/no-kexec-runs" run syscall_errno syscall=openat errno=ENOENT --kernel "$nk"
check kernels.no_kexec.nothing_booted "runs: $(listing "$out/no-kexec-runs")" test -z "$(listing "$out/no-kexec-runs")"

# --- cache prune: an entry no run needs goes, the ones runs use stay
fake=$cache/debian/0.0.0-1-amd64_0.0.0-1
mkdir -p "$fake"
echo "kver=0.0.0-1-amd64" >"$fake/ok"
rc=0
"$bpk" --runs "$out/cloud" cache prune >"$out/prune.out" 2>&1 || rc=$?
check kernels.prune.removed "exit $rc: $(grep -m1 '^removed' "$out/prune.out" || echo 'nothing removed'); $fake $([[ -e $fake ]] && echo still there || echo gone)" \
	test "$rc" = 0 -a ! -e "$fake"
check_file_has kernels.prune.kept_used "$out/prune.out" "^keep +$(re "$kcloud")_.* needed by (run |the clone's build)"
