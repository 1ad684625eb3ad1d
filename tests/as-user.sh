#!/usr/bin/env bash
# as-user.sh USER BUILD CMD...: run CMD as USER, an unprivileged system
# user, for tests/run-all.sh when it runs as root: a test that needs no
# root does not get it, so a path that only works for root (writing where
# an ordinary user cannot, reading root's files, QEMU's user switch) shows
# up as a failure.
#
# In a mount namespace of its own (nothing outside it changes): when the
# cache sits behind a directory USER cannot enter (root's ~/.cache under a
# 0700 /root), that directory is covered with an empty tmpfs and only the
# cache is put back, read-only. USER gets a home and a cache of its own
# under BUILD/test-out, the cache's entries (the kernels, the crash
# indexes) linked in, so what it makes (snapshots) is its own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

(($# >= 3)) || bad_input "usage: as-user.sh USER BUILD CMD..."
user=$1 build=$2
shift 2
((EUID == 0)) || die "as-user.sh: runs as root, to become $user"
if [[ -z ${BPK_AS_USER_NS:-} ]]; then
	BPK_AS_USER_NS=1 exec unshare --mount --propagation private -- "$0" "$user" "$build" "$@"
fi
unset BPK_AS_USER_NS

top=$(cd "$here/.." && pwd)
build=$(cd "$build" && pwd)
drop=(setpriv --reuid="$user" --regid="$user" --init-groups --inh-caps=-all --bounding-set=-all --)
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}

# blocker PATH: the first directory on the way to PATH that USER cannot
# enter, or nothing
blocker() {
	local p='' part
	local -a parts
	IFS=/ read -ra parts <<<"${1#/}"
	for part in "${parts[@]}"; do
		[[ -n $part ]] || continue
		p+=/$part
		[[ -d $p ]] || return 0
		"${drop[@]}" test -x "$p" || {
			echo "$p"
			return 0
		}
	done
}

if [[ -d $cache ]]; then
	cache=$(cd "$cache" && pwd -P)
	b=$(blocker "$cache")
	if [[ -n $b ]]; then
		for p in "$top" "$build"; do
			case $p/ in "$b"/*) die "$p is under $b, which $user cannot enter: put the clone elsewhere, or BPK_TESTS_AS_ROOT=1" ;; esac
		done
		stage=$build/test-out/.as-user-stage
		mkdir -p "$stage"
		mount --bind "$cache" "$stage" || die "cannot bind $cache"
		mount -t tmpfs -o mode=0755,size=64k bpk-as-user "$b" || die "cannot cover $b"
		mkdir -p "$cache"
		mount --bind "$stage" "$cache" || die "cannot put $cache back"
		mount -o remount,bind,ro "$cache" || die "cannot make $cache read-only"
		umount "$stage"
	fi
fi

home=$build/test-out/.home-$user
ucache=$build/test-out/.cache-$user
mkdir -p "$home" "$ucache"
# The links are kept, not made afresh: run-all.sh runs scripts side by
# side, and another script's run may be reading through one right now. A
# link to an entry that is gone, or to one that is not shared, goes; a
# missing one is made (in a temporary name, renamed into place, so that
# nobody sees it half made).
shared() { case $1 in snapshot | prog | kvm-probe-* | '*') return 1 ;; esac; }
for l in "$ucache"/*; do
	[[ -L $l ]] || continue
	t=$(readlink "$l")
	if ! shared "${l##*/}" || [[ $t != "$cache/${l##*/}" || ! -e $t ]]; then
		rm -f "$l"
	fi
done
if [[ -d $cache ]]; then
	for e in "$cache"/*; do
		shared "${e##*/}" || continue
		[[ -L $ucache/${e##*/} || -e $ucache/${e##*/} ]] && continue
		ln -s "$e" "$ucache/.${e##*/}.$$" && mv -T "$ucache/.${e##*/}.$$" "$ucache/${e##*/}"
	done
fi
chown -R "$user:" "$home" "$ucache"
# git refuses a repository another user owns unless told it is safe: the
# tests read the clone with git (lint, versions)
exec "${drop[@]}" env -u XDG_CACHE_HOME HOME="$home" USER="$user" LOGNAME="$user" \
	BPK_CACHE="$ucache" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$top" "$@"
