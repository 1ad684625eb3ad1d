# shellcheck shell=bash
# Helpers for test scripts. A test script prints one line per check:
#   PASS <name>: <what was observed>
#   FAIL <name>: <what was observed instead>
# and run-all.sh counts them. Paths below are relative to the repository.

BPK_PROG=${BPK_PROG:-${0##*/}}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"

# shellcheck disable=SC2034 # used by the test scripts that source this
build=${BUILD:-$top/build}
# shellcheck disable=SC2034
kernel=$build/kernel
# shellcheck disable=SC2034
out=$build/test-out/${BPK_PROG%.sh}

pass() {
	printf 'PASS %s: %s\n' "$1" "$2"
}

fail() {
	printf 'FAIL %s: %s\n' "$1" "$2"
}

# check NAME DETAIL CMD...: PASS if CMD succeeds, FAIL otherwise.
check() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then pass "$name" "$detail"; else fail "$name" "$detail"; fi
}

# one_line NAME WANT CMD...: bad input is refused with one line. PASS when
# CMD exits with a status of its own (1-125: not a signal, an abort or a
# crash, which are 126 and above) and its stderr is exactly one line
# containing WANT; the line names what was observed (exit status and
# message) either way.
one_line() {
	local name=$1 want=$2 rc=0 msg
	shift 2
	msg=$("$@" 2>&1 >/dev/null) || rc=$?
	if ((rc >= 1 && rc <= 125)) && [[ -n $msg && $(wc -l <<<"$msg") -eq 1 && $msg == *"$want"* ]]; then
		pass "$name" "exit $rc: $msg"
	else
		fail "$name" "exit $rc, want one line with '$want': ${msg:-no message}"
	fi
}

# bpk, as built by make (BPK_UNDER_TEST: another build of it, e.g. make
# asan's); the tests' runs use the build make test made
# shellcheck disable=SC2034 # used by the test scripts that source this
bpk=${BPK_UNDER_TEST:-$build/bpk/bpk}
export BPK_NO_BUILD=1

# boot_job INITRD JOB TIMEOUT [BPK-BOOT ARGS...]: boot our kernel with INITRD
# under bpk boot and run its job JOB (bpk.job=), the serial console in
# $out/console.log and the job's output (virtio port "results") in
# $out/results.txt. Returns bpk boot's exit status (QEMU's).
boot_job() {
	local initrd=$1 job=$2 timeout=$3
	shift 3
	"$bpk" boot --initrd "$initrd" --append "bpk.job=$job" --timeout "$timeout" --out "$out" "$@"
}

# fresh_out: an empty output directory for this test script
fresh_out() {
	rm -rf "$out"
	mkdir -p "$out"
}

# guest_results FILE PREFIX ID...: a PASS or FAIL line per expected ID, from
# the "RESULT PASS|FAIL <id>: detail" lines a guest job wrote to FILE; an ID
# the guest did not report is a failure.
guest_results() {
	local file=$1 prefix=$2 id line
	shift 2
	for id in "$@"; do
		line=$(grep -F "RESULT " "$file" | grep -F " $id: " | head -1 || true)
		case $line in
		"RESULT PASS "*) pass "$prefix.$id" "${line#RESULT PASS "$id": }" ;;
		"RESULT FAIL "*) fail "$prefix.$id" "${line#RESULT FAIL "$id": }" ;;
		*) fail "$prefix.$id" "no result from the guest (console: $(dirname "$file")/console.log)" ;;
		esac
	done
}

# --- helpers for checks that must fail on empty input or a missing file

# check_has NAME TEXT WANT: PASS if TEXT is not empty and contains WANT (a
# fixed string); the observed detail is TEXT, or "nothing" when it is empty.
check_has() {
	local name=$1 text=$2 want=$3
	if [[ -n $text && $text == *"$want"* ]]; then
		pass "$name" "$text"
	else
		fail "$name" "${text:-nothing} (wanted: $want)"
	fi
}

# check_file_has NAME FILE REGEX: PASS if FILE exists and has a line
# matching the extended REGEX; the observed detail is that line, or what
# was missing.
check_file_has() {
	local name=$1 file=$2 re=$3 line
	if [[ ! -f $file ]]; then
		fail "$name" "$file: no such file (wanted a line matching: $re)"
		return
	fi
	line=$(grep -a -m1 -E -- "$re" "$file" || true)
	if [[ -n $line ]]; then
		pass "$name" "${file##*/}: $line"
	else
		fail "$name" "${file##*/}: no line matching: $re ($(wc -l <"$file") lines)"
	fi
}

# check_file_lacks NAME FILE REGEX: PASS if FILE exists, is not empty, and
# has no line matching REGEX (a check of absence needs the file it looks in).
check_file_lacks() {
	local name=$1 file=$2 re=$3 line
	if [[ ! -s $file ]]; then
		fail "$name" "$file: missing or empty, so it proves nothing"
		return
	fi
	line=$(grep -a -m1 -E -- "$re" "$file" || true)
	if [[ -z $line ]]; then
		pass "$name" "${file##*/}: $(wc -l <"$file") lines, none matching: $re"
	else
		fail "$name" "${file##*/}: $line"
	fi
}

# this_invocation: find's test for the outputs of this run-all.sh
# invocation (it stamps build/test-out/.started): an earlier make test's
# runs, left in build/test-out, do not count
this_invocation() {
	if [[ -e $build/test-out/.started ]]; then
		printf '%s\n' -newer "$build/test-out/.started"
	else
		printf '%s\n' -true
	fi
}

# listing DIR: every path under DIR, relative, sorted, on one line (what a
# command left behind, compared before and after)
listing() { find "$1" -mindepth 1 -printf '%P\n' 2>/dev/null | sort | tr '\n' ' '; }

# armed RUNS: a run under RUNS, still staging, has armed its trigger (the
# guest job's state line in the results port)
armed() { grep -qs '^BPK-STATE armed' "$1"/.staging-*/results.txt; }

# qemu_on DIR: the pids of QEMU processes whose guest writes under DIR (a
# run's staging dir, a runs dir, bpk boot's --out dir: bpk names it in
# QEMU's -name guest=bpk:DIR; a console.log path stands for its dir)
qemu_on() {
	local d=${1%/console.log}
	[[ -n $d ]] || { echo "qemu_on: no directory given" >&2; return 1; }
	# QEMU's own command line only: a pgrep of the watcher (watch_qemu)
	# that outlives its shell for a moment has the pattern in its own
	pgrep -f -- "^qemu-system-[^ ]* .*guest=bpk:$d" || true
}

# watch_qemu DIR: look for QEMU under DIR (qemu_on) every 0.2 s in the
# background until no_qemu_left, keeping what it finds: the positive
# control of that check
watch_qemu() {
	qemu_seen_file=$(mktemp "$out/.qemu-seen.XXXXXX")
	(while :; do
		qemu_on "$1" >>"$qemu_seen_file"
		sleep 0.2
	done) &
	qemu_watch_pid=$!
}

# qemu_seen: stop watch_qemu; the QEMU pids it saw, on one line
qemu_seen() {
	kill "${qemu_watch_pid:-0}" 2>/dev/null || true
	wait "${qemu_watch_pid:-0}" 2>/dev/null || true
	sort -u "${qemu_seen_file:-/nonexistent}" 2>/dev/null | tr '\n' ' '
}

# no_qemu_left NAME DIR: no QEMU is left under DIR, and the same probe did
# see one there while the run went on (watch_qemu DIR, started before it):
# a QEMU the probe cannot match (its -name changed) fails here instead of
# passing as "none left"
no_qemu_left() {
	local name=$1 dir=$2 seen left
	seen=$(qemu_seen)
	left=$(qemu_on "$dir")
	check "$name" "QEMU under $dir seen while it ran: ${seen:-none}; left: ${left:-none}" \
		test -n "$seen" -a -z "$left"
}

# json_value FILE EXPR: EXPR (Python; d is the document) of the JSON file
# FILE, as JSON text; "none" (python's error on stderr) when the file or
# the expression cannot be read: the check that compares it fails, naming
# that, and the script goes on to its next check
json_value() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))' \
		"$1" "$2" || echo none
}

# kdump_header VMCORE: "KDUMP <release> <size in MiB, rounded up>" for a
# kdump-compressed file (the release its header's utsname names, "-" if
# none), "not-kdump <what it is> 0" for anything else: always three words,
# the last a number
kdump_header() {
	/usr/bin/python3 -c '
import os, sys
try:
    with open(sys.argv[1], "rb") as f:
        h = f.read(12 + 6 * 65)
except OSError as e:
    print("not-kdump", type(e).__name__, 0)
    sys.exit()
if h[:8] != b"KDUMP   ":
    print("not-kdump", h[:8].hex() or "empty", 0)
else:
    rel = h[12 + 2 * 65:12 + 3 * 65].split(b"\0")[0].decode(errors="replace")
    rel = "".join(c for c in rel if c.isprintable() and not c.isspace())
    print("KDUMP", rel or "-", -(-os.path.getsize(sys.argv[1]) // 1048576))' "$1" 2>/dev/null ||
		echo "not-kdump python3-failed 0"
}

# check_kdump_header NAME RUN: RUN's vmcore is kdump-compressed, its
# header names the release the dump's memory does (report.json, from
# crash's sys), and it is smaller than half the guest's memory
check_kdump_header() {
	local got rel mib mem
	got=$(kdump_header "$2/vmcore")
	rel=$(json_value "$2/report.json" "d['kernel']['release']" | tr -d '"')
	mem=$(record_field "$2" guest.mem 2>/dev/null || echo none)
	mib=$(awk '{ print $3 }' <<<"$got")
	[[ $mib =~ ^[0-9]+$ ]] || mib=0
	check "$1" "vmcore: $got; the dump's release: $rel; guest memory $mem" \
		test "${got% *}" = "KDUMP $rel" -a -n "$rel" -a "$rel" != none -a "$rel" != null \
		-a "${mib:-0}" -gt 0 -a "$((${mib:-0} * 2))" -lt "$(numfmt --from=iec "${mem%B}" 2>/dev/null | awk '{ print int($1 / 1048576) }' || echo 0)"
}

# filed_runs RUNS: the run directories filed under RUNS, oldest first
# (nothing, and no error, when RUNS does not exist).
filed_runs() {
	{ find "$1" -mindepth 1 -maxdepth 1 -type d -name '2*' ! -name '*.unfiled' 2>/dev/null || true; } | sort
}

# record_field RUN PATH: the value at the dotted PATH ("status",
# "cause.run", "dump.state", "guest.vmlinux") of RUN's record, RUN/run.json,
# read by the analysis's one reader of it (analysis/bpk_record.py): a string
# as it is, a number or boolean as JSON writes it, null or an absent field
# as nothing. Fails with one line on stderr when the record is missing or
# unreadable.
record_field() {
	/usr/bin/python3 "$top/analysis/bpk_record.py" "$1" "$2"
}

# check_field NAME RUN PATH WANT: PASS if RUN's record has WANT at PATH
# (record_field); the observed value is the detail, and a missing record
# or field fails.
check_field() {
	local name=$1 run=$2 path=$3 want=$4 got rc=0
	got=$(record_field "$run" "$path" 2>&1) || rc=$?
	if ((rc == 0)) && [[ -n $got && $got == "$want" ]]; then
		pass "$name" "$path=$got"
	else
		fail "$name" "$path=${got:-nothing} (want $want)"
	fi
}

# check_field_match NAME RUN PATH REGEX: the same, the value matching the
# extended REGEX
check_field_match() {
	local name=$1 run=$2 path=$3 re=$4 got rc=0
	got=$(record_field "$run" "$path" 2>&1) || rc=$?
	if ((rc == 0)) && [[ -n $got ]] && grep -qE -- "$re" <<<"$got"; then
		pass "$name" "$path=$got"
	else
		fail "$name" "$path=${got:-nothing} (want a match of $re)"
	fi
}

# hostile_words DIR: sets hostile, words a campaign passes on that GNU
# parallel's template would evaluate or replace ({}, {#}, {1}, {= Perl =})
# and the shell's substitutions, with quotes and spaces: each of the ones
# that run something would leave a file ran.* in DIR on the host that ran
# it. hostile_prog: a workload command that prints each word as
# "word<WORD>", then runs as a process named "{}" that opens a missing file
# (a trigger with comm={} fires on it).
hostile_words() {
	# shellcheck disable=SC2034 # the caller's
	hostile=("{=\$_=\`touch $1/ran.perl\`; chomp=}" '{}' '{#}' '{1}' "\$(touch $1/ran.subst)"
		"\`touch $1/ran.tick\`" "it's \"quoted\"" 'two  spaces')
	# shellcheck disable=SC2016,SC2034 # the guest's shell expands it; the caller's
	hostile_prog='for w in "$@"; do printf "word<%s>\n" "$w"; done; cp "$(command -v cat)" "/tmp/{}"; sleep 1; exec "/tmp/{}" /no-such-file-from-cmd'
}

# words_arrived NAME RUN: RUN's workload printed every word of hostile, in
# order, byte for byte, in its workload.log
words_arrived() {
	local got want f
	want=$(printf 'word<%s>|' "${hostile[@]}")
	f=workload.log
	got=$(grep -a '^word<' "${2:-/nonexistent}/$f" 2>/dev/null | tr -d '\r' | tr '\n' '|' || true)
	check "$1" "${2:-no run}/$f: ${got:-none}" test -n "$2" -a "$got" = "$want"
}

# nothing_ran NAME DIR: no word of hostile ran on this host (no ran.* in DIR)
nothing_ran() {
	local ran
	ran=$(find "$2" -maxdepth 1 -name 'ran.*' 2>/dev/null | tr '\n' ' ')
	check "$1" "files the words would have made: ${ran:-none}" test -z "$ran"
}
