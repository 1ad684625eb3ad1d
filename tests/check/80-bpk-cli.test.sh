#!/usr/bin/env bash
# bpk's command line, nothing booted: --help for bpk and every verb,
# --version, bad input (one line, exit 2, no staging dir, no run, no QEMU
# under the runs dir while it ran), RUN resolution (id, unique prefix,
# last; none or two matching),
# list against triggerctl's table, the man page against --help, and the bash
# completion (verbs, trigger names, parameter names) under compgen.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out
cd "$top"

runs=$out/runs
mkdir -p "$runs"
verbs=(run list check demo runs show crash drgn dump selftest campaign)

# --- the cache and the runs dir: one that others can write to is refused
# (the cache holds programs bpk runs); with HOME unset the cache is in the
# home passwd names, never a shared path such as /tmp's
mkdir -p "$out/open-cache" "$out/open-runs"
chmod 777 "$out/open-cache" "$out/open-runs"
one_line cli.cache_writable_by_others "the cache (BPK_CACHE) $out/open-cache can be written by others (mode 0777)" \
	env BPK_CACHE="$out/open-cache" "$bpk" snapshot --print-dir
one_line cli.runs_writable_by_others "the runs dir $out/open-runs can be written by others (mode 0777)" \
	"$bpk" --runs "$out/open-runs" runs
home=$(getent passwd "$(id -u)" | cut -d: -f6)
got=$(env -u HOME -u XDG_CACHE_HOME -u BPK_CACHE "$bpk" snapshot --print-dir 2>&1 || true)
check cli.no_home_cache_from_passwd "home ${home:-none} in passwd; snapshot dir: $got" \
	test -n "$home" -a "${got#"$home"/.cache/bpf-panic-kdump/snapshot/}" != "$got"

# --- help and version
help=$("$bpk" --help 2>&1) || true
missing=''
for v in "${verbs[@]}"; do
	grep -qE "^  $v( |$)" <<<"$help" || missing+=" $v"
done
check help.lists_verbs "${help:+$(wc -l <<<"$help") lines}${missing:+, missing:$missing}" test -n "$help" -a -z "$missing"
# usage_of RC LINE VERB: bpk VERB --help exited 0 with a usage line naming
# VERB (after -j where the verb takes it)
usage_of() { (($1 == 0)) && grep -qE "^usage: bpk (\[-j\] )?$3( |\$)" <<<"$2"; }
for v in "${verbs[@]}"; do
	rc=0
	h=$("$bpk" "$v" --help 2>&1) || rc=$?
	check "help.$v" "exit $rc: $(head -1 <<<"${h:-nothing}")" usage_of "$rc" "$(head -1 <<<"$h")" "$v"
done
want="bpk $(git -C "$top" describe --tags --always --dirty)"
got=$("$bpk" --version 2>&1 || true)
check version.git_describe "${got:-nothing} (want $want)" test "$got" = "$want"

# --- bad input: one line, exit 2, nothing filed, nothing booted
# bad2 NAME WANT ARGS...: bpk ARGS exits 2 with exactly one stderr line
# containing WANT, and $runs (the runs dir ARGS name, and BPK_RUNS for
# those that name none) is as it was: no staging dir, no run. While bpk
# runs, the QEMUs whose guest writes under $runs (where a run the command
# failed to refuse would boot) are added to $seen_qemu; a command still
# running after 30 s is stopped (a refusal is at once).
seen_qemu=''
bad2() {
	local name=$1 want=$2 rc=0 msg before after pid q t=0
	shift 2
	before=$(listing "$runs")
	(cd /tmp && BPK_RUNS=$runs exec "$bpk" "$@") >/dev/null 2>"$out/bad2.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		for q in $(qemu_on "$runs"); do
			[[ " $seen_qemu " == *" $q "* ]] || seen_qemu+=" $q"
		done
		((t++ < 300)) || kill "$pid" 2>/dev/null || true
		sleep 0.1
	done
	wait "$pid" || rc=$?
	msg=$(cat "$out/bad2.err")
	after=$(listing "$runs")
	if ((rc == 2)) && [[ -n $msg && $(wc -l <<<"$msg") -eq 1 && $msg == *"$want"* && $before == "$after" ]]; then
		pass "bad_input.$name" "exit $rc: $msg"
	else
		fail "bad_input.$name" "exit $rc, want 2 and one line with '$want': ${msg:-no message}; in $runs before: ${before:-nothing}, after: ${after:-nothing}"
	fi
}
bad2 unknown_verb "unknown verb 'frobnicate'" --runs "$runs" frobnicate
bad2 unknown_global_option "unknown option '--frob'" --frob run syscall_errno
bad2 no_verb "no verb given" --runs "$runs"
bad2 unknown_run_option "unknown option '--colour'" --runs "$runs" run syscall_errno --colour red
bad2 missing_trigger "no trigger given" --runs "$runs" run
bad2 missing_trigger_only_params "before the trigger's name" --runs "$runs" run syscall=openat
bad2 dashdash_no_command "-- needs a command" --runs "$runs" run syscall_errno syscall=openat --
bad2 workload_and_command "not both" --runs "$runs" run syscall_errno --workload triggers/examples/syscall_errno.sh -- true
bad2 unknown_trigger "unknown trigger 'nosuch'" --runs "$runs" run nosuch
bad2 missing_workload "/nonexistent/wl: no such readable file" --runs "$runs" run syscall_errno --workload /nonexistent/wl
# the trigger table's parser, the one triggerctl arms with
bad2 unknown_parameter "colour: unknown parameter of trigger syscall_errno" --runs "$runs" run syscall_errno syscall=openat colour=red --quiet
bad2 option_without_value "--timeout needs a value" --runs "$runs" run syscall_errno --timeout
bad2 bad_action "action=panic: not a fire action (auto, bpf_panic or crash_kexec)" --runs "$runs" run syscall_errno syscall=openat action=panic
bad2 kfunc_needs_tracing_program "action=crash_kexec: uprobe is not a tracing program" --runs "$runs" run uprobe target=/bin/true:main action=crash_kexec
bad2 debian_has_no_helper "action=bpf_panic: the debian kernel has no bpf_panic helper" --runs "$runs" run syscall_errno syscall=openat action=bpf_panic --kernel debian
bad2 show_no_run "no RUN given" --runs "$runs" show
bad2 last_without_runs "RUN 'last': no runs" --runs "$runs" show last
bad2 list_unknown_trigger "unknown trigger 'nosuch'" --runs "$runs" list nosuch
bad2 check_bad_kernel "--kernel 'mine': not ours, debian, debian:RELEASE or the path of a kernel" --runs "$runs" check --kernel mine
bad2 campaign_no_attempts "--attempts is required" --runs "$runs" campaign syscall_errno --jobs 1
# no QEMU was started under this test's runs dir while those ran
check bad_input.no_qemu "$(find "$runs" -mindepth 1 | wc -l) entries under $runs, QEMU seen there: ${seen_qemu:-none}" \
	test -z "$seen_qemu" -a -z "$(find "$runs" -mindepth 1)"

# --- RUN resolution, on two run directories made here (their run.json is
# all the resolver and the table read)
# fixture_run DIR TRIGGER REASON: DIR/run.json, a failed run's record
# (analysis/run.schema.json) with nothing dumped
fixture_run() {
	mkdir -p "$1"
	/usr/bin/python3 -c 'import json, os, sys
d, trigger, reason = sys.argv[1:4]
json.dump({"schema_version": 1, "id": os.path.basename(d), "status": "failed", "reason": reason,
	"interrupted": None, "trigger": {"name": trigger, "args": "", "dry_run": False, "fire_action": None},
	"guest": {"kernel_flavor": "ours", "kernel": "kernel", "vmlinux": "/nonexistent/vmlinux", "mem": "1G",
		"smp": 2, "crashkernel": "192M", "accel": "tcg", "destructive_sysctl": True,
		"panic_on_oops": True, "panic_on_warn": False, "workload": "fixture.sh", "host_fs": "off"},
	"qemu": {"exit": 0}, "cause": {"run": "none", "detail": ""},
	"console": {"panic_message": "", "last_state": "", "lines": 0},
	"dump": {"state": "none", "stream_bytes": 0, "vmcore_bytes": 0},
	"report": {"state": "not-run"}, "timings": {}}, open(d + "/run.json", "w"))' "$@"
}
fx=$out/fixture-runs
mkdir -p "$fx/20990101T000002Z-warn.unfiled"
fixture_run "$fx/20990101T000001Z-syscall_errno" syscall_errno "fixture one"
fixture_run "$fx/20990101T000002Z-warn" warn "fixture two"
runs=$fx
bad2 run_matches_two "matches 2 runs" --runs "$fx" show 20990101T00000
bad2 run_matches_none "RUN '2100' matches no run" --runs "$fx" show 2100
bad2 crash_matches_two "matches 2 runs" --runs "$fx" crash 2099
bad2 drgn_matches_none "matches no run" --runs "$fx" drgn 2100
runs=$out/runs
msg=$("$bpk" --runs "$fx" show 20990101T000001 2>&1 || true)
check_has run.unique_prefix "$msg" "20990101T000001Z-syscall_errno: no report.txt (status failed: fixture one)"
msg=$("$bpk" --runs "$fx" show last 2>&1 || true)
check_has run.last_skips_unfiled "$msg" "20990101T000002Z-warn: no report.txt (status failed: fixture two)"
table=$("$bpk" --runs "$fx" runs 2>&1 || true)
check run.table "$(tr -s ' ' <<<"$table" | tr '\n' '|')" \
	test "$(tr -s ' ' <<<"$table")" = "$(printf '%s\n' 'ID TRIGGER STATUS CAUSE VMCORE FIRE' \
		'20990101T000001Z-syscall_errno syscall_errno failed none - -' '20990101T000002Z-warn warn failed none - -')"

# --- list: the trigger table's names and parameters
names=$("$bpk" list --names 2>&1 | tr '\n' ' ' || true)
want=$("$build/triggers/triggerctl" list | sed -n 's/^\([a-z_0-9]*\): .*/\1/p' | tr '\n' ' ')
check list.names "${names:-nothing}" test -n "$want" -a "$names" = "$want"
params=$("$bpk" list --params syscall_errno 2>&1 | tr '\n' ' ' || true)
check list.params "${params:-nothing}" test "$params" = "syscall errno comm pid count dry_run action "
one=$("$bpk" list uprobe 2>&1 || true)
check_has list.one_trigger "$(head -3 <<<"$one" | tr '\n' '|')" "example: triggerctl arm uprobe target=/etc/bpk/workload:app_assert_failed"

# --- the man page (scdoc, built by make) and --help agree on selftest's codes
man=$build/bpk.1
rendered=$(MANWIDTH=100 man -l "$man" 2>/dev/null || true)
check_has man.renders "$(head -1 <<<"${rendered:-}")" "bpk(1)"
hcodes=$("$bpk" selftest --help | sed -n 's/^  \([0-9]\)  \(.*\)/\1 \2/p' | tr '\n' '|')
mcodes=$(sed -n '/^ *bpk selftest:/,/^ *Other verbs/p' <<<"$rendered" | sed -n 's/^ *\([0-9]\) \(.*\)/\1 \2/p' | tr '\n' '|')
check man.selftest_codes "help: ${hcodes:-none}; man: ${mcodes:-none}" \
	test -n "$hcodes" -a "${hcodes//  / }" = "${mcodes//  / }"
n=$(grep -c '^ *[3-5]  ' < <("$bpk" selftest --help) || true)
check help.selftest_distinct_codes "$n failure codes 3-5 in bpk selftest --help" test "$n" = 3

# --- bash completion, as bash runs it: complete -F and compgen
comp=$top/bpk/bpk.bash-completion
if shellcheck -x "$comp" >"$out/sc.txt" 2>&1; then
	pass completion.shellcheck clean
else
	fail completion.shellcheck "$(grep -m1 -o 'SC[0-9]*.*' "$out/sc.txt")"
fi
# complete WORDS...: what _bpk offers for the last word (bpk on PATH)
complete_words() {
	PATH=$(dirname "$bpk"):$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bpk; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
		_ "$comp" "$@" 2>&1
}
reg=$(bash -c '. "$1"; complete -p bpk' _ "$comp" 2>&1 || true)
check completion.registered "${reg:-nothing}" test "$reg" = "complete -F _bpk bpk"
got=$(complete_words bpk r)
check completion.verbs "bpk r<TAB>: ${got:-nothing}" test "$got" = "run runs "
got=$(complete_words bpk '')
check completion.all_verbs "bpk <TAB>: ${got:-nothing}" test "$got" = "$(printf '%s\n' "${verbs[@]}" | sort | tr '\n' ' ')"
got=$(complete_words bpk run sys)
check completion.trigger_names "bpk run sys<TAB>: ${got:-nothing}" test "$got" = "syscall_errno syscall_slow "
got=$(complete_words bpk run syscall_errno syscall=openat '')
check completion.parameters "bpk run syscall_errno syscall=openat <TAB>: ${got:-nothing}" \
	test "$got" = "action= comm= count= dry_run= errno= pid= syscall= "
got=$(complete_words bpk run func_entry --work)
check completion.options "bpk run func_entry --work<TAB>: ${got:-nothing}" test "$got" = "--workload "
got=$(complete_words bpk --runs "$fx" show 2099)
check completion.run_ids "bpk show 2099<TAB>: ${got:-nothing}" \
	test "$got" = "20990101T000001Z-syscall_errno 20990101T000002Z-warn "

# --- selftest without a build: "could not run" (exit 1), named, nothing booted
rc=0
got=$(BUILD=$out/no-build "$bpk" --runs "$runs" selftest 2>&1) || rc=$?
nb=$out/no-build
check selftest.not_built "exit $rc: ${got:-nothing}" \
	test "$rc" = 1 -a "$got" = "FAIL build: $nb/kernel/bzImage (the ours kernel: make kernel), $nb/kernel/vmlinux (its vmlinux: make kernel), $nb/appliance/root.cpio.gz (the guest image: make appliance)" -a -z "$(find "$runs" -mindepth 1)"

# --- cache prune: a snapshot no run will restore again goes, with why;
# a current one and one being made (its lock held) stay
pc=$out/prune-cache
mkdir -p "$pc/snapshot" "$pc/img" "$pc/kernel/other"
chmod 700 "$pc"
touch "$pc/img/bzImage" "$pc/img/root.cpio.gz" "$pc/kernel/other/bzImage"
sleep 1
qv=$(qemu-system-x86_64 --version | head -1)
# snap NAME FORMAT KERNEL: a whole snapshot of FORMAT booting KERNEL
snap() {
	mkdir -p "$pc/snapshot/$1"
	printf '{"format": "%s", "qemu": "%s", "kernel": "%s", "root": "%s"}\n' \
		"$2" "$qv" "$3" "$pc/img/root.cpio.gz" >"$pc/snapshot/$1/snapshot.json"
	touch "$pc/snapshot/$1/ok"
}
snap current bpk-snapshot-3 "$pc/img/bzImage"
snap old-format bpk-snapshot-2 "$pc/img/bzImage"
snap gone bpk-snapshot-3 "$pc/img/no-such-bzImage"
snap other-build bpk-snapshot-3 "$pc/kernel/other/bzImage"
mkdir -p "$pc/snapshot/unfinished" "$pc/snapshot/making"
snap changed bpk-snapshot-3 "$pc/img/bzImage"
touch -d '-1 hour' "$pc/snapshot/changed/ok"
exec {lk}>"$pc/snapshot/making.lock"
flock "$lk"
rc=0
BPK_CACHE=$pc "$bpk" --runs "$runs" cache prune >"$out/prune.out" 2>&1 || rc=$?
exec {lk}>&-
check prune.exit "exit $rc: $(tail -1 "$out/prune.out")" test "$rc" = 0
check_file_has prune.current_kept "$out/prune.out" '^keep +snapshot current '
check_file_has prune.making_kept "$out/prune.out" '^keep +snapshot making .* being made$'
check_file_has prune.old_format "$out/prune.out" '^removed snapshot old-format .* made by another bpk \(format bpk-snapshot-2'
check_file_has prune.gone "$out/prune.out" '^removed snapshot gone .* its kernel or root image is gone'
check_file_has prune.other_build "$out/prune.out" "^removed snapshot other-build .* its kernel is not the clone's build"
check_file_has prune.unfinished "$out/prune.out" '^removed snapshot unfinished .* not whole \(no ok file\)'
check_file_has prune.changed "$out/prune.out" '^removed snapshot changed .* changed since it was made'
left=$(find "$pc/snapshot" -mindepth 1 -maxdepth 1 -printf '%P\n' | sort | tr '\n' ' ')
check prune.left "left: ${left:-nothing}" test "$left" = "current making making.lock "
