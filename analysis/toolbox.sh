#!/usr/bin/env bash
# The analysis toolbox: a Debian root with a current crash and drgn, in
# which the report, `bpk crash` and `bpk drgn` read a vmcore. Debian 12's
# own crash (8.0.2) cannot walk 6.1's pid hash or maple trees and its drgn
# (0.0.22) predates the VMA, wait-queue, lock-owner and interrupt-stack
# helpers; trixie's and sid's read 6.1 and 6.12 whole. The archive serves
# their binary packages, so mmdebstrap makes such a root in seconds.
#
# The root lives in the cache, keyed by suite and the versions of crash and
# python3-drgn in it, and is shared by every clone on the machine:
#   $BPK_CACHE/toolbox/<suite>                     -> the key in use
#   $BPK_CACHE/toolbox/<suite>-crash_<v>-drgn_<v>/ root/ manifest versions
# manifest lists every path of root/usr and root/etc (what runs) with its
# size, mode and type, and the SHA-256 of the analyzers' own binaries; a
# root that does not match it (an interrupted copy, a deleted or truncated
# file) is made again.
#
# It runs unprivileged in bubblewrap (a user namespace): the toolbox's /usr
# and /etc, a private /tmp, no network, and only the paths the caller names
# bound in, read-only unless said otherwise, at their own absolute paths;
# under a seccomp filter (bpk_seccomp.py) that refuses the calls that reach
# past a sandbox, and TIOCSTI.
#
#   toolbox.sh root [SUITE]       print the root, made first if missing or
#                                 not matching its manifest; exit 1 with
#                                 one line saying why it cannot be made
#   toolbox.sh update [SUITE]     make a fresh root; a newer crash or drgn
#                                 becomes the suite's key
#   toolbox.sh versions ROOT      crash=V, drgn=V, suite=S lines
#   toolbox.sh exec ROOT [--tty] [--ro PATH]... [--rw PATH]... -- CMD...
#                                 CMD inside ROOT; --tty keeps the caller's
#                                 session (an interactive analyzer)
#
# SUITE defaults to $BPK_TOOLBOX_SUITE, else trixie (a stable release); sid
# has the newest analyzers. The archive is $BPK_TOOLBOX_MIRROR, else
# http://deb.debian.org/debian.
set -euo pipefail
# The toolbox is read by every user of the machine (the test user, other
# clones): made from bpk (umask 077) it would be root's alone, and every
# other user's analysis would fall back to Debian 12's analyzers.
umask 022

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

PACKAGES=crash,python3-drgn,binutils
SIZE_NOTE="about 200 MB"
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}/toolbox
mirror=${BPK_TOOLBOX_MIRROR:-http://deb.debian.org/debian}

suite_of() {
	local s=${1:-${BPK_TOOLBOX_SUITE:-trixie}}
	[[ $s =~ ^[a-z][a-z0-9-]*$ ]] || bad_input "toolbox suite '$s': not a Debian suite name (trixie, sid, ...)"
	echo "$s"
}

# manifest ROOT: what a sound root looks like (see the top)
manifest() {
	local root=$1 drgn_so
	# usr and etc: what exec binds in, and what every user may list
	(cd "$root" && find usr etc -xdev -printf '%p %s %m %y\n' | LC_ALL=C sort)
	drgn_so=$(cd "$root" && find usr/lib/python3/dist-packages -maxdepth 1 -name '_drgn.*.so' 2>/dev/null | head -1)
	[[ -n $drgn_so ]] || return 1
	(cd "$root" && sha256sum usr/bin/crash "$drgn_so")
}

# sound KEYDIR: its root matches its manifest
sound() {
	local m
	[[ -d $1/root && -s $1/manifest && -s $1/versions ]] || return 1
	m=$(manifest "$1/root") || return 1
	[[ $m == "$(cat "$1/manifest")" ]]
}

pkg_version() {
	dpkg-query --admindir="$1/var/lib/dpkg" -W -f '${Version}' "$2" 2>/dev/null
}

# make SUITE: a new root, filed under its key; prints the key dir
make_root() {
	local suite=$1 tmp t0 log cv dv key aptopt=()
	need_cmd mmdebstrap mmdebstrap
	mkdir -p "$cache" 2>/dev/null || die "cannot make $cache: the toolbox has nowhere to go"
	[[ -w $cache ]] || die "$cache is not writable: the toolbox cannot be made here"
	# sid's Release file in the archive is past its Valid-Until date; a
	# stable suite's is checked as apt always does
	case $suite in sid | unstable) aptopt=(--aptopt='Acquire::Check-Valid-Until "false"') ;; esac
	tmp=$(mktemp -d "$cache/.make.XXXXXX")
	chmod 755 "$tmp" # the root is read by every user the cache serves
	log=$tmp/mmdebstrap.log
	say "making the analysis toolbox: Debian $suite with crash and drgn, $SIZE_NOTE downloaded and on disk, in $cache (once; every clone on this machine reuses it)"
	t0=$(now_ms)
	if ! mmdebstrap --variant=essential --include="$PACKAGES" --components=main \
		--aptopt='Acquire::Retries "0"' --aptopt='Acquire::http::Timeout "30"' "${aptopt[@]}" \
		"$suite" "$tmp/root" "$mirror" 2> >(tee "$log" | sed -u "s/^/$BPK_PROG: $suite: /" >&2) >/dev/null; then
		wait
		local why
		why=$(grep -m1 -E '^E: ' "$log" | cut -c4-200)
		rm -rf "$tmp"
		die "mmdebstrap could not make a $suite root from $mirror: ${why:-see its output above}"
	fi
	wait
	if ! cv=$(pkg_version "$tmp/root" crash) || ! dv=$(pkg_version "$tmp/root" python3-drgn); then
		rm -rf "$tmp"
		die "the $suite root has no crash or python3-drgn package"
	fi
	manifest "$tmp/root" >"$tmp/manifest" || {
		rm -rf "$tmp"
		die "the $suite root has no drgn extension module"
	}
	printf 'crash=%s\ndrgn=%s\nsuite=%s\n' "$cv" "$dv" "$suite" >"$tmp/versions"
	rm -f "$log"
	key=$cache/$suite-crash_$cv-drgn_$dv
	if sound "$key"; then
		rm -rf "$tmp"
	else
		[[ ! -e $key ]] || mv "$key" "$tmp.old"
		mv "$tmp" "$key"
		rm -rf "$tmp.old"
	fi
	ln -sfn "${key##*/}" "$cache/$suite.new" && mv -T "$cache/$suite.new" "$cache/$suite"
	say "toolbox $suite made in $(fmt_ms $(($(now_ms) - t0))): crash $cv, drgn $dv, $(du -sm "$key/root" | cut -f1) MB"
	echo "$key"
}

# locked CMD...: one maker at a time per cache (parallel reports wait)
locked() {
	mkdir -p "$cache" 2>/dev/null || die "cannot make $cache: the toolbox has nowhere to go"
	if [[ -w $cache ]]; then
		exec 9>"$cache/.lock"
		flock 9
	fi
	"$@"
}

root_cmd() {
	local suite key
	suite=$(suite_of "${1:-}")
	key=$cache/$suite
	if sound "$key"; then
		echo "$(cd "$key" && pwd -P)/root"
		return
	fi
	locked true
	if sound "$key"; then # made while this one waited
		echo "$(cd "$key" && pwd -P)/root"
		return
	fi
	if [[ -e $key ]]; then
		say "the $suite toolbox in $(readlink -f "$key") does not match its manifest (interrupted or damaged): making it again"
	fi
	key=$(make_root "$suite")
	sound "$key" || die "the $suite toolbox just made in $key does not match its manifest"
	echo "$key/root"
}

exec_cmd() {
	local root=$1 tty=0 p
	shift
	[[ -d $root/usr/bin ]] || bad_input "$root: not a toolbox root"
	local -a binds=()
	while (($#)); do
		case $1 in
		--tty) tty=1 ;;
		--ro | --rw)
			(($# >= 2)) || bad_input "$1 needs a PATH"
			p=$2
			[[ $p == /* ]] || bad_input "$1 $p: not an absolute path"
			[[ -e $p ]] || bad_input "$1 $p: no such file or directory"
			case $p/ in
			/usr/* | /etc/* | /bin/* | /sbin/* | /lib/* | /lib64/* | /proc/* | /dev/*)
				bad_input "$p: under a directory the toolbox brings its own of; copy it elsewhere" ;;
			esac
			if [[ $1 == --ro ]]; then binds+=(--ro-bind "$p" "$p"); else binds+=(--bind "$p" "$p"); fi
			shift
			;;
		--)
			shift
			break
			;;
		*) bad_input "exec: unknown argument '$1'" ;;
		esac
		shift
	done
	(($#)) || bad_input "exec: no command"
	need_cmd bwrap bubblewrap
	local -a session=(--new-session) ns=(--unshare-all)
	((tty)) && session=()
	# root's analyzer runs as nobody (bpk_seccomp.py's DROPPED_UID) in a
	# user namespace whose one uid is root's: no capability in the host's
	# namespace, so it reads what root owns or anyone may read (a run of
	# another user's that only its owner may read is not one of them)
	((EUID != 0)) || ns=(--unshare-all --unshare-user --uid 65534 --gid 65534)
	# under a seccomp filter (bpk_seccomp.py): no open_by_handle_at (the
	# "Shocker" read of any host file), no ptrace, keyring, bpf, perf
	# events, mounts or namespaces, no TIOCSTI into the terminal of an
	# interactive analyzer
	local filter
	filter=$(mktemp "${TMPDIR:-/tmp}/bpk-seccomp.XXXXXX")
	/usr/bin/python3 "$here/bpk_seccomp.py" --bpf >"$filter" || die "cannot make the analyzers' seccomp filter ($here/bpk_seccomp.py)"
	exec 9<"$filter"
	rm -f "$filter"
	exec bwrap "${ns[@]}" --die-with-parent "${session[@]}" --seccomp 9 \
		--ro-bind "$root/usr" /usr --symlink usr/bin /bin --symlink usr/sbin /sbin \
		--symlink usr/lib /lib --symlink usr/lib64 /lib64 --ro-bind "$root/etc" /etc \
		--proc /proc --dev /dev --tmpfs /tmp --tmpfs /var/tmp --dir /run \
		--clearenv --setenv HOME /tmp --setenv PATH /usr/bin:/usr/sbin --setenv LANG C.UTF-8 \
		--setenv TERM "${TERM:-dumb}" --setenv PYTHONDONTWRITEBYTECODE 1 --chdir /tmp \
		"${binds[@]}" -- "$@"
}

case ${1:-} in
root)
	(($# <= 2)) || bad_input "usage: toolbox.sh root [SUITE]"
	root_cmd "${2:-}"
	;;
update)
	(($# <= 2)) || bad_input "usage: toolbox.sh update [SUITE]"
	suite=$(suite_of "${2:-}")
	locked true
	key=$(make_root "$suite")
	echo "$key/root"
	;;
versions)
	(($# == 2)) || bad_input "usage: toolbox.sh versions ROOT"
	[[ -s $2/../versions ]] || die "$2: no versions file beside it"
	cat "$2/../versions"
	;;
exec)
	(($# >= 2)) || bad_input "usage: toolbox.sh exec ROOT [--tty] [--ro PATH]... [--rw PATH]... -- CMD..."
	shift
	exec_cmd "$@"
	;;
*) bad_input "usage: toolbox.sh root|update [SUITE] | versions ROOT | exec ROOT [--tty] [--ro P]... [--rw P]... -- CMD..." ;;
esac
