#!/usr/bin/env bash
# needs root: it makes a second user, the other machine, and runs an OpenSSH server as that user
# A campaign over two "machines" through a real OpenSSH server: this one
# (":") and bpk-remote@127.0.0.1, an ordinary user with its own home, its
# own clone of this repository built there, and its own cache (hard links
# to this machine's kernel build, crash index and toolbox: the same files,
# not a second kernel build). sshd is Debian's, taken out of its package
# (nothing installed, no service started) and run as that user on a free
# port, with key login only.
#  - before the first attempt every machine answers with its bpk's
#    version; a machine with no bpk on its PATH stops the campaign there,
#    named, nothing booted;
#  - attempts run on both machines (parallel's joblog); the winner ran on
#    the other one, and its run, with the vmcore and the report, comes back
#    into this machine's campaign dir; nothing is left behind there;
#  - no QEMU is left on either machine.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}
ruser='bpk-remote'
rhome=$out/home-remote
sshd_pid=

# shellcheck disable=SC2329,SC2317 # the EXIT trap
finish() {
	[[ -z $sshd_pid ]] || kill "$sshd_pid" 2>/dev/null || true
	pkill -u "$ruser" 2>/dev/null || true
}
trap finish EXIT

# --- the other machine's user, home, clone, cache and build
if ! id "$ruser" >/dev/null 2>&1; then
	useradd --system --no-create-home --home-dir "$rhome" --shell /bin/bash "$ruser"
fi
usermod --home "$rhome" --shell /bin/bash "$ruser"
as_remote() { setpriv --reuid="$ruser" --regid="$ruser" --init-groups env -i HOME="$rhome" PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
mkdir -p "$rhome/.ssh" "$rhome/.cache/bpf-panic-kdump"
chown -R "$ruser:" "$rhome"
chmod 755 "$out"
t0=$(now_ms)
as_remote git -c safe.directory='*' clone -q "$top" "$rhome/clone"
# the same files as here, by hard link: its own cache, no second kernel build
for e in kernel gdb-index toolbox; do
	[[ -d $cache/$e ]] && cp -al "$cache/$e" "$rhome/.cache/bpf-panic-kdump/"
done
find "$rhome/.cache" -type d -exec chown "$ruser:" {} +
rc=0
as_remote make -C "$rhome/clone" -s run-deps >"$out/remote-build.out" 2>&1 || rc=$?
check ssh_remote.built "exit $rc in $(fmt_ms $(($(now_ms) - t0))): $(tail -1 "$out/remote-build.out")" \
	test "$rc" = 0 -a -x "$rhome/clone/build/bpk/bpk"

# --- its sshd: Debian's, out of the package, as that user
ver=$(apt-cache policy openssh-server | sed -n 's/^ *Candidate: //p')
sd=$cache/sshd/$ver
if [[ ! -x $sd/usr/sbin/sshd ]]; then
	rm -rf "$sd.tmp"
	mkdir -p "$sd.tmp"
	(cd "$sd.tmp" && apt-get download -q openssh-server libwrap0 >download.log 2>&1)
	for d in "$sd.tmp"/*.deb; do dpkg-deb -x "$d" "$sd.tmp"; done
	rm -f "$sd.tmp"/*.deb "$sd.tmp/download.log"
	chmod -R a+rX "$sd.tmp"
	mv "$sd.tmp" "$sd"
fi
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$out/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$out/client_key"
chown "$ruser:" "$out/host_key"
cp "$out/client_key.pub" "$rhome/.ssh/authorized_keys"
echo "PATH=$rhome/clone/build/bpk:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" >"$rhome/.ssh/environment"
chown -R "$ruser:" "$rhome/.ssh"
cat >"$out/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $out/host_key
AuthorizedKeysFile $rhome/.ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitUserEnvironment yes
PidFile none
EOF
setpriv --reuid="$ruser" --regid="$ruser" --init-groups env -i LD_LIBRARY_PATH="$sd/usr/lib/x86_64-linux-gnu" \
	"$sd/usr/sbin/sshd" -D -e -f "$out/sshd_config" >"$out/sshd.log" 2>&1 &
sshd_pid=$!
ssh_cmd="ssh -p $port -i $out/client_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
for _ in $(seq 50); do
	$ssh_cmd "$ruser@127.0.0.1" true 2>/dev/null && break
	sleep 0.2
done
got=$($ssh_cmd "$ruser@127.0.0.1" 'id -un; command -v bpk' 2>&1 | tr '\n' ' ' || true)
check ssh_remote.login "key login as $ruser on port $port: $got" test "$got" = "$ruser $rhome/clone/build/bpk/bpk "

# --- a machine without bpk: named before the first attempt
echo "PATH=/usr/bin:/bin" >"$rhome/.ssh/environment"
rc=0
"$bpk" --runs "$out/runs-nobpk" campaign syscall_errno syscall=openat errno=ENOENT comm=flaky \
	--attempts 2 --jobs 1 --fresh --sshlogin ":,$ssh_cmd $ruser@127.0.0.1" \
	--workload tests/campaign/on-attempt.sh >"$out/nobpk.out" 2>"$out/nobpk.err" || rc=$?
camp=$({ find "$out/runs-nobpk" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | head -1)
check ssh_remote.no_bpk_named "exit $rc: $(grep -m1 'error:' "$out/nobpk.err" || tail -1 "$out/nobpk.err")" \
	grep -q "a machine cannot run the attempts .*no bpk on PATH" "$out/nobpk.err"
check ssh_remote.no_bpk_nothing_booted "attempts: $(listing "${camp:-/nonexistent}/attempts")" \
	test "$rc" = 1 -a -z "$(listing "${camp:-/nonexistent}/attempts")"
echo "PATH=$rhome/clone/build/bpk:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" >"$rhome/.ssh/environment"

# --- the campaign: attempt 1 here, attempt 2 (the one that fires) there
rc=0
"$bpk" --runs "$out/runs" campaign syscall_errno syscall=openat errno=ENOENT comm=flaky \
	--attempts 2 --jobs 1 --fresh --timeout 200 --sshlogin ":,$ssh_cmd $ruser@127.0.0.1" \
	--workload tests/campaign/on-attempt.sh >"$out/campaign.out" 2>"$out/campaign.err" || rc=$?
camp=$({ find "$out/runs" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | head -1)
winner=$(tail -1 "$out/campaign.out" 2>/dev/null || true)
check ssh_remote.campaign "exit $rc: winner ${winner:-none} ($(grep -m1 'error:' "$out/campaign.err" || tail -1 "$out/campaign.err"))" \
	test "$rc" = 0 -a -n "$winner"
check_file_has ssh_remote.machines_answered "$out/campaign.err" "machine .*$ruser@127\\.0\\.0\\.1.*bpk [0-9a-f]"
hosts=$(awk -F'\t' 'NR > 1 { print $1 "=" $2 }' "${camp:-/nonexistent}/joblog" 2>/dev/null | sort | tr '\n' ' ')
check ssh_remote.both_machines "joblog: ${hosts:-none}" \
	test "$hosts" = "1=: 2=$ssh_cmd $ruser@127.0.0.1 "
check ssh_remote.winner_came_back "winner ${winner:-none}" \
	test -n "$winner" -a "${winner#"$camp"/attempts/2/runs/}" != "$winner" -a -s "$winner/vmcore" -a -s "$winner/report.json"
got=$(json_value "$winner/report.json" "d['cause']['dump']")
check ssh_remote.winner_confirmed "the dump's cause: $got" test "$got" = '"trigger"'
left=$({ find "$rhome" -mindepth 1 -maxdepth 1 -name 'campaign-*' 2>/dev/null || true; } | tr '\n' ' ')
left_files=$({ find "$rhome"/campaign-* -type f 2>/dev/null || true; } | wc -l)
check ssh_remote.cleaned_there "files left in the other machine's campaign dir: $left_files (${left:-no dir})" test "$left_files" = 0
q=$(pgrep -u "$ruser" -f qemu-system || true)$(pgrep -f "qemu-system.*$out" || true)
check ssh_remote.no_qemu_left "QEMU processes: ${q:-none}" test -z "$q"
