#!/usr/bin/env bash
# --sshlogin goes to GNU parallel: here ":" (parallel's name for this
# machine), with -- CMD as the workload. The attempts run, the joblog names
# the host, parallel was given --sshlogin and --return, and the first fire
# is filed with its vmcore, the fire record read from it naming the
# command's process.
# The user's words are words, never parallel's template: the trigger's
# comm={} and a command whose words hold {}, {#}, {1}, {= Perl =}, $(...),
# backticks, quotes and spaces reach the guest byte for byte (the command
# prints each, then runs as a process named "{}", which fires), parallel's
# command line holds none of them, and nothing ran on the host.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=campaign/lib.sh
. "$top/tests/campaign/lib.sh"
fresh_out
cd "$top"

# GNU parallel behind a stand-in on PATH that writes the arguments it was
# given, one a line, then runs it with them
real=$(command -v parallel)
mkdir -p "$out/shim"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\nexec "%s" "$@"\n' "$out/parallel.args" "$real" >"$out/shim/parallel"
chmod +x "$out/shim/parallel"
hostile_words "$out"
prog=$hostile_prog
PATH=$out/shim:$PATH run_campaign ssh 0 syscall_errno syscall=openat errno=ENOENT 'comm={}' --attempts 2 --jobs 1 \
	--sshlogin : --runs "$out/runs" --timeout 120 -- sh -c "$prog" sh "${hostile[@]}" || exit 0
pa=$(tr '\n' ' ' <"$out/parallel.args" 2>/dev/null || true)
at=${camp##*/}
check ssh.parallel_given "parallel's arguments: ${pa:-none}" \
	grep -qF -- "--sshlogin : --return $at/attempts/{1} --basefile $at/attempt-args " <<<"${pa:-none}"
check_file_has ssh.joblog_host "$camp/joblog" $'^1\t:\t'
# the user's words are in the attempts' words file, not parallel's template
# ({1} is a word of bpk's own there: the attempt's number)
leaked=
for w in "comm={}" "$prog" "${hostile[@]}"; do
	[[ $w != "{1}" ]] || continue
	grep -qxF -- "$w" "$out/parallel.args" 2>/dev/null && leaked+="[$w] "
done
check ssh.template_has_no_user_word "words of the user among parallel's: ${leaked:-none}" test -s "$out/parallel.args" -a -z "$leaked"
cmd=$(tr '\0' '\n' <"$camp/attempt-args" 2>/dev/null | sed -n '/^--$/,$p' | tr '\n' '|' || true)
want="--|sh|-c|$prog|sh|$(printf '%s|' "${hostile[@]}")"
check ssh.cmd_workload "the attempts' words from --: ${cmd:-none}" test "$cmd" = "$want"
run=$(summary "$camp" first_fire_run)
check ssh.first_fire_filed "run ${run:-none}" test -n "$run" -a -s "$run/vmcore"
# the fire record read from the dump: the command's process, named {},
# hit the trigger whose comm={} was not replaced on the way
got=$(fire_fields "${run:-/nonexistent}")
check ssh.fire_is_cmd "fire record: $got" test "$got" = "syscall_errno {} syscall=257 errno=2"
# each word arrived in the guest as it was given, in order
words_arrived ssh.words_byte_for_byte "$run"
nothing_ran ssh.nothing_ran_on_host "$out"
