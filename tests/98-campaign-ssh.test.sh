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
#    version and has the appliance built for the campaign's kernel; a
#    machine with no bpk on its PATH, or one not built for that kernel,
#    stops the campaign there, named, nothing booted;
#  - attempts run on both machines (parallel's joblog), both firing: the
#    one made there, its vmcore and report read there, comes back into this
#    machine's campaign dir, and the campaign's table names it here;
#  - bpk matrix goes through the same engine: its attempts run on both
#    machines and its table names the kernel's answer and dump here;
#  - the campaign's and the matrix's words are words on both machines: the
#    trigger's comm={} and a command whose words hold {}, {#}, {= Perl =},
#    $(...), backticks, quotes and spaces reach each guest byte for byte
#    (the command prints them, then runs as a process named "{}"), and
#    nothing ran on either host;
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
usermod --home "$rhome" --shell /bin/bash "$ruser" 2>/dev/null || true
as_remote() { setpriv --reuid="$ruser" --regid="$ruser" --init-groups env -i HOME="$rhome" PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
mkdir -p "$rhome/.ssh" "$rhome/.cache/bpf-panic-kdump"
# this repository is root's: git reads another user's only when told to
printf '[safe]\n\tdirectory = *\n' >"$rhome/.gitconfig"
chown -R "$ruser:" "$rhome"
chmod 755 "$out"
t0=$(now_ms)
rc=0
as_remote git clone -q "$top" "$rhome/clone" >"$out/remote-clone.out" 2>&1 || rc=$?
if ((rc != 0)); then
	fail ssh_remote.built "git clone as $ruser: exit $rc: $(tail -1 "$out/remote-clone.out")"
	exit 0
fi
# the same files as here, by hard link: its own cache, no second kernel
# build (not the toolbox: a copy does not match its manifest, and making
# one needs root's mmdebstrap; that machine reads its dumps with Debian
# 12's analyzers, asked for below)
for e in kernel gdb-index; do
	[[ -d $cache/$e ]] && cp -al "$cache/$e" "$rhome/.cache/bpf-panic-kdump/"
done
# its own locks: a hard link to one of root's could not be opened to write
find "$rhome/.cache" -name '*.lock' -delete
find "$rhome/.cache" -type d -exec chown "$ruser:" {} +
rc=0
as_remote make -C "$rhome/clone" -s run-deps >"$out/remote-build.out" 2>&1 || rc=$?
check ssh_remote.built "exit $rc in $(fmt_ms $(($(now_ms) - t0))): $(tail -1 "$out/remote-build.out")" \
	test "$rc" = 0 -a -x "$rhome/clone/build/bpk/bpk"

# a cache another user owns is not used, even by root: it holds programs
# bpk runs
one_line ssh_remote.cache_of_another_user_refused "is owned by uid $(id -u "$ruser"), not by you (uid 0) or root" \
	env BPK_CACHE="$rhome/.cache/bpf-panic-kdump" "$bpk" snapshot --print-dir

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
# the cache may sit where that user cannot go (root's home): a copy here
cp -a "$sd" "$out/sshd"
sd=$out/sshd
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$out/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$out/client_key"
chown "$ruser:" "$out/host_key"
cp "$out/client_key.pub" "$rhome/.ssh/authorized_keys"
printf 'PATH=%s\nBPK_ANALYZERS=system\n' "$rhome/clone/build/bpk:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" >"$rhome/.ssh/environment"
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
# every QEMU of the runs below, the other machine's too, writes under $out
watch_qemu "$out/"

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
printf 'PATH=%s\nBPK_ANALYZERS=system\n' "$rhome/clone/build/bpk:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" >"$rhome/.ssh/environment"

# --- a machine whose clone is not built for the campaign's kernel (Debian's:
# only make run-deps ran there): named with what it lacks, nothing booted
rc=0
"$bpk" --runs "$out/runs-unbuilt" campaign syscall_errno syscall=openat errno=ENOENT comm=flaky \
	--kernel debian --attempts 2 --jobs 1 --fresh --sshlogin ":,$ssh_cmd $ruser@127.0.0.1" \
	--workload tests/campaign/on-attempt.sh >"$out/unbuilt.out" 2>"$out/unbuilt.err" || rc=$?
camp=$({ find "$out/runs-unbuilt" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | head -1)
check ssh_remote.unbuilt_named "exit $rc: $(grep -m1 'error:' "$out/unbuilt.err" || tail -1 "$out/unbuilt.err")" \
	grep -q "a machine cannot run the attempts on debian (exit 1): .*$ruser@127\.0\.0\.1.*the appliance is not built here for debian: .*make debian-kernel" "$out/unbuilt.err"
check ssh_remote.unbuilt_nothing_booted "attempts: $(listing "${camp:-/nonexistent}/attempts")" \
	test "$rc" = 1 -a -z "$(listing "${camp:-/nonexistent}/attempts")"

# --- the campaign: two attempts, one a machine, both firing; this machine
# hears its own at once, the other's when it ends (parallel picks which
# attempt runs where). The command prints its words, then a process named
# {} opens a missing file; each word would leave a file on a host that ran
# it (the other machine's user can write $out too)
chmod 1777 "$out"
hostile_words "$out"
prog=$hostile_prog
rc=0
"$bpk" --runs "$out/runs" campaign syscall_errno syscall=openat errno=ENOENT 'comm={}' \
	--attempts 2 --jobs 1 --fresh --timeout 200 --sshlogin ":,$ssh_cmd $ruser@127.0.0.1" \
	-- sh -c "$prog" sh "${hostile[@]}" >"$out/campaign.out" 2>"$out/campaign.err" || rc=$?
camp=$({ find "$out/runs" -mindepth 1 -maxdepth 1 -type d -name 'campaign-*' 2>/dev/null || true; } | head -1)
winner=$(tail -1 "$out/campaign.out" 2>/dev/null || true)
check ssh_remote.campaign "exit $rc: winner ${winner:-none} ($(grep -m1 'error:' "$out/campaign.err" || tail -1 "$out/campaign.err"))" \
	test "$rc" = 0 -a -n "$winner" -a -s "$winner/vmcore"
check_file_has ssh_remote.machines_answered "$out/campaign.err" "machine .*$ruser@127\\.0\\.0\\.1.*bpk [0-9a-f]"
hosts=$(awk -F'\t' 'NR > 1 { print $2 }' "${camp:-/nonexistent}/joblog" 2>/dev/null | sort | tr '\n' '|')
check ssh_remote.both_machines "joblog hosts: ${hosts:-none}" test "$hosts" = ":|$ssh_cmd $ruser@127.0.0.1|"
# the attempt that ran there, its run here with its dump and report
n=$(awk -F'\t' -v h="$ssh_cmd $ruser@127.0.0.1" 'NR > 1 && $2 == h { print $1 }' "${camp:-/nonexistent}/joblog" 2>/dev/null | head -1)
there=$(filed_runs "${camp:-/nonexistent}/attempts/${n:-0}/runs" | tail -1)
got=$(json_value "${camp:-/nonexistent}/attempts/${n:-0}/attempt.json" "d['outcome']")
check ssh_remote.dump_came_back "attempt ${n:-none} ran there: outcome $got, its run here: ${there:-none}" \
	test "$got" = '"fired"' -a -n "$there" -a -s "$there/vmcore" -a -s "$there/report.json"
got=$(json_value "${there:-/nonexistent}/report.json" "[d['cause']['dump'], d['analyzers']['chosen']['source']]")
# (system: what that machine's environment asks for)
check ssh_remote.dump_confirmed "the dump's cause, and the analyzers that read it there: $got" test "$got" = '["trigger", "system"]'
got=$(awk -F'\t' -v n="${n:-0}" '$1 == n { print $10 }' "${camp:-/nonexistent}/attempts.tsv" 2>/dev/null)
check ssh_remote.table_says_here "attempts.tsv names its run ${got:-none}" test -n "$got" -a "$got" = "$there"
words_arrived ssh_remote.words_there "$there"
n=$(awk -F'\t' 'NR > 1 && $2 == ":" { print $1 }' "${camp:-/nonexistent}/joblog" 2>/dev/null | head -1)
words_arrived ssh_remote.words_here "$(filed_runs "${camp:-/nonexistent}/attempts/${n:-0}/runs" | tail -1)"
# --- bpk matrix through the same engine: one kernel, an attempt a machine,
# its answer and a dump in the table here
rc=0
"$bpk" -j --runs "$out/runs-matrix" matrix syscall_errno syscall=openat errno=ENOENT 'comm={}' \
	--kernels ours --attempts 2 --jobs 1 --timeout 200 --sshlogin ":,$ssh_cmd $ruser@127.0.0.1" \
	-- sh -c "$prog" sh "${hostile[@]}" >"$out/matrix.json" 2>"$out/matrix.err" || rc=$?
got=$(json_value "$out/matrix.json" "[(k['kernel'], k['answer'], bool(k['run']) and __import__('os').path.getsize(k['run'] + '/vmcore') > 0) for k in d['kernels']]")
check ssh_remote.matrix "exit $rc: $got ($(grep -m1 'error:' "$out/matrix.err" || tail -1 "$out/matrix.err"))" \
	test "$rc" = 0 -a "$got" = '[["ours", "fired", true]]'
mat=$({ find "$out/runs-matrix" -mindepth 1 -maxdepth 1 -type d -name 'matrix-*' 2>/dev/null || true; } | head -1)
hosts=$(awk -F'\t' 'NR > 1 { print $2 }' "${mat:-/nonexistent}/joblog" 2>/dev/null | sort | tr '\n' '|')
check ssh_remote.matrix_both_machines "joblog hosts: ${hosts:-none}" test "$hosts" = ":|$ssh_cmd $ruser@127.0.0.1|"
n=$(awk -F'\t' -v h="$ssh_cmd $ruser@127.0.0.1" 'NR > 1 && $2 == h { print $1 }' "${mat:-/nonexistent}/joblog" 2>/dev/null | head -1)
words_arrived ssh_remote.matrix_words_there "$(filed_runs "${mat:-/nonexistent}/attempts/${n:-0}/runs" | tail -1)"
nothing_ran ssh_remote.nothing_ran_on_either_host "$out"

seen=$(qemu_seen)
q=$(pgrep -u "$ruser" -f qemu-system || true)$(qemu_on "$out/")
check ssh_remote.no_qemu_left "QEMU under $out seen while the campaigns ran: ${seen:-none}; left: ${q:-none}" \
	test -n "$seen" -a -z "$q"
