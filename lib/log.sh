# shellcheck shell=bash
# Progress, timing and error helpers shared by the appliance's shell scripts.
# Messages go to stderr, prefixed with the script's name, so that stdout stays
# free for a script's real output.

BPK_PROG=${BPK_PROG:-${0##*/}}

die() {
	printf '%s: error: %s\n' "$BPK_PROG" "$*" >&2
	exit 1
}

# bad_input MESSAGE: like die, for a wrong argument or missing input (exit 2)
bad_input() {
	printf '%s: error: %s\n' "$BPK_PROG" "$*" >&2
	exit 2
}

say() {
	printf '%s: %s\n' "$BPK_PROG" "$*" >&2
}

now_ms() {
	date +%s%3N
}

# fmt_ms MS -> "12.3s" or "4m05s"
fmt_ms() {
	local ms=$1
	if ((ms >= 60000)); then
		printf '%dm%02ds' $((ms / 60000)) $(((ms % 60000) / 1000))
	else
		printf '%d.%ds' $((ms / 1000)) $(((ms % 1000) / 100))
	fi
}

# step NAME: announce a phase; step_done: print how long it took.
step() {
	BPK_STEP=$1
	BPK_STEP_T0=$(now_ms)
	say "[$BPK_STEP] ..."
}

step_done() {
	say "[$BPK_STEP] done in $(fmt_ms $(($(now_ms) - BPK_STEP_T0)))${1:+ ($1)}"
}

# need_cmd CMD PACKAGE: fail clearly when a tool is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 || die "'$1' not found: install Debian package $2 (make deps)"
}
