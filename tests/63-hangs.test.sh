#!/usr/bin/env bash
# starts early: 5 min on a slow 2-core machine, one of the longest scripts
# Who blocked whom, on real hangs, on our kernel and on Debian's:
# tests/hang/bpk_hang.ko (built out of tree against each: build.sh,
# build-debian.sh) makes each case in the guest and prints the pids and
# lock addresses it made; the hung_task trigger fires on it; the report must
# name exactly that:
#  - abba: two kthreads deadlocked on two mutexes: one DEADLOCK, the cycle
#    with both pids and both mutex addresses, each held by the other; drawn
#    in red in waits.dot, waits.svg beside the report;
#  - chain: C waits on a mutex held by B, B on an rwsem held by A, A in D on
#    a completion: the chain C -> B -> A in that order, with those
#    addresses, and the completion said to record no owner;
#  - sem, page: a semaphore wait and a page-lock wait: no owner recorded,
#    said so, no holder guessed;
#  - more: an rt_mutex held by a task in D (its owner read, the chain
#    followed) and a percpu rwsem held for reading, a writer and a second
#    reader waiting on it (no owner recorded, each listed as the other's
#    fellow waiter);
#  - the chain dump reported again with sid's drgn, which has drgn's own
#    locking helpers: the same holders, and each report says what read them;
#  - every case: the section comes before the panic (a hang cause), the
#    blocked tasks the one blocked longest first.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

py=/usr/bin/python3
share=$out/share
mkdir -p "$share"
for kernel in ours debian; do
	ko=$build/hang/bpk_hang-$kernel.ko
	if [[ -s $ko ]]; then
		cp "$ko" "$share/"
	else
		fail "$kernel.module" "$ko: not built (make test builds it: tests/hang/build.sh, build-debian.sh)"
	fi
done
chmod -R a+rX "$share"

# printed ROLE FIELD: a field of the module's line for task ROLE
printed() {
	sed -n "s/.*bpk-hang: case=$case task=$1 \(.*\)/\1/p" "$run/console.log" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
# addr KIND@HEX -> the decimal report.json holds; hex DECIMAL -> HEX (bash
# arithmetic is signed 64-bit: kernel addresses do not fit)
addr() { "$py" -c 'import sys; print(int(sys.argv[1].split("@")[-1], 16))' "$1" 2>/dev/null || echo none; }
hex() { "$py" -c 'import sys; print(f"{int(sys.argv[1]):x}")' "$1" 2>/dev/null || echo none; }
# wait_of PID: [kind, address, owner pid or null, owner_note] in report.json
wait_of() {
	json_value "$run/report.json" "next(([t['waits']['kind'], t['waits']['address'], (t['owner'] or {}).get('pid'), t['owner_note']] for t in d['waits']['tasks'] if t['pid'] == $1), None)"
}

for kernel in ours debian; do
for case in abba chain sem page more; do
	[[ -s $share/bpk_hang-$kernel.ko ]] || continue
	case $case in
	abba) comm="bpk-hang-abba1" ;;
	chain) comm="bpk-hang-c" ;;
	more) comm="bpk-hang-rtb" ;;
	*) comm=bpk-hang-$case ;;
	esac
	printf '#!/bin/sh\ninsmod %s/bpk_hang-%s.ko hang=%s || echo "insmod failed: $?"\nsleep 30\n' "$share" "$kernel" "$case" >"$share/$kernel-$case.sh"
	chmod 755 "$share/$kernel-$case.sh"
	rc=0
	"$bpk" --runs "$out/runs-$kernel-$case" run hung_task secs=2 "comm=$comm" --kernel "$kernel" --share "$share" \
		--workload "$share/$kernel-$case.sh" --timeout 240 >"$out/$kernel-$case.out" 2>&1 || rc=$?
	run=$({ find "$out/runs-$kernel-$case" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null || true; } | sort | tail -1)
	if ((rc != 0)) || [[ -z $run || ! -s $run/report.json ]]; then
		fail "$kernel.$case.run" "exit $rc: $(grep -m1 'error:' "$out/$kernel-$case.out" || tail -1 "$out/$kernel-$case.out")"
		continue
	fi
	pass "$kernel.$case.run" "$run"
	# restored from the snapshot with the module's share
	check_field_match "$kernel.$case.warm" "$run" guest.restored_from '/snapshot/[0-9a-f]+$'
	hung=$(json_value "$run/report.json" "next((n['pid'] for n in d['tasks']['named'] if n['role'] == 'hung'), None)")
	case $case in
	abba)
		p1=$(printed abba1 pid) p2=$(printed abba2 pid)
		a=$(addr "$(printed abba1 holds)") b=$(addr "$(printed abba2 holds)")
		check "$kernel".abba.fired_on_it "hung_pid $hung, module: abba1 pid ${p1:-none}" test -n "$p1" -a "$hung" = "$p1"
		check "$kernel".abba.each_held_by_other "pid $p1: $(wait_of "$p1"); pid $p2: $(wait_of "$p2"); mutexes $a $b" \
			test "$(wait_of "$p1")" = "[\"mutex\", $b, $p2, null]" -a "$(wait_of "$p2")" = "[\"mutex\", $a, $p1, null]"
		cyc=$(json_value "$run/report.json" "[sorted((c['pid'], c['waits']['address']) for c in cyc) for cyc in d['waits']['deadlocks']]")
		check "$kernel".abba.one_deadlock "deadlocks: $cyc" test "$cyc" = "[[[$p1, $b], [$p2, $a]]]" -o "$cyc" = "[[[$p2, $a], [$p1, $b]]]"
		line=$(grep -m1 '^   DEADLOCK: ' "$run/report.txt" || echo 'no DEADLOCK line')
		check "$kernel".abba.text_both "$line" test "$(grep -o "pid $p1 \|pid $p2 \|0x$(hex "$a")\|0x$(hex "$b")" <<<"$line" | sort -u | wc -l)" = 4
		check "$kernel".abba.graph_red "$(json_value "$run/report.json" "d['waits']['graph']"); $(grep -c 'color=red' "$run/waits.dot" 2>/dev/null || echo 0) red edges" \
			test "$(json_value "$run/report.json" "d['waits']['graph']")" = '"waits.svg"' -a -s "$run/waits.svg" -a "$(grep -c 'color=red' "$run/waits.dot")" = 2
		;;
	chain)
		pa=$(printed a pid) pb=$(printed b pid) pc=$(printed c pid)
		rw=$(addr "$(printed a holds)") mx=$(addr "$(printed b holds)") cp=$(addr "$(printed a waits)")
		check "$kernel".chain.fired_on_it "hung_pid $hung, module: c pid ${pc:-none}" test -n "$pc" -a "$hung" = "$pc"
		check "$kernel".chain.c_on_b "pid $pc: $(wait_of "$pc") (mutex $mx held by $pb)" test "$(wait_of "$pc")" = "[\"mutex\", $mx, $pb, null]"
		check "$kernel".chain.b_on_a "pid $pb: $(wait_of "$pb") (rwsem $rw held by $pa)" test "$(wait_of "$pb")" = "[\"rwsem\", $rw, $pa, null]"
		check "$kernel".chain.a_no_owner "pid $pa: $(wait_of "$pa") (completion $cp)" \
			test "$(wait_of "$pa")" = "[\"completion\", $cp, null, \"a completion records no owner\"]"
		steps=$(json_value "$run/report.json" "next(([s['pid'] for s in c['steps']] for c in d['waits']['chains'] if c['from'] == $pc), None)")
		check "$kernel".chain.followed_to_end "chain from $pc: $steps" test "$steps" = "[$pc, $pb, $pa]"
		line=$(grep -m1 "^   chain from pid $pc: " "$run/report.txt" || echo 'no chain line')
		check "$kernel".chain.text "$line" grep -q "pid $pc bpk-hang-c -> mutex 0x$(hex "$mx") -> pid $pb bpk-hang-b -> rwsem 0x$(hex "$rw") -> pid $pa bpk-hang-a -> completion 0x$(hex "$cp")" <<<"$line"
		check "$kernel".chain.no_deadlock "deadlocks: $(json_value "$run/report.json" "d['waits']['deadlocks']")" test "$(json_value "$run/report.json" "d['waits']['deadlocks']")" = '[]'
		;;
	more)
		pa=$(printed rta pid) pb=$(printed rtb pid) pr=$(printed pcr pid) pw=$(printed pcw pid) pr2=$(printed pcr2 pid)
		rt=$(addr "$(printed rta holds)") pc=$(addr "$(printed pcr holds)")
		check "$kernel".more.fired_on_it "hung_pid $hung, module: rtb pid ${pb:-none}" test -n "$pb" -a "$hung" = "$pb"
		check "$kernel".more.rt_b_on_a "pid $pb: $(wait_of "$pb") (rt_mutex $rt held by $pa)" test "$(wait_of "$pb")" = "[\"rt_mutex\", $rt, $pa, null]"
		steps=$(json_value "$run/report.json" "next(([s['pid'] for s in c['steps']] for c in d['waits']['chains'] if c['from'] == $pb), None)")
		check "$kernel".more.rt_chain "chain from $pb: $steps" test "$steps" = "[$pb, $pa]"
		none='"a percpu-rwsem records no owner"'
		check "$kernel".more.pcpu_writer "pid $pw: $(wait_of "$pw") (percpu rwsem $pc, read-held by $pr)" test "$(wait_of "$pw")" = "[\"percpu-rwsem\", $pc, null, $none]"
		check "$kernel".more.pcpu_reader "pid $pr2: $(wait_of "$pr2") (percpu rwsem $pc)" test "$(wait_of "$pr2")" = "[\"percpu-rwsem\", $pc, null, $none]"
		fellows=$(json_value "$run/report.json" "[t['waiters'] for t in d['waits']['tasks'] if t['pid'] in ($pw, $pr2)]")
		check "$kernel".more.pcpu_fellow_waiters "waiters of $pw, $pr2: $fellows" test "$fellows" = "[[$pr2], [$pw]]" -o "$fellows" = "[[$pw], [$pr2]]"
		;;
	sem | page)
		p=$(printed "$case" pid)
		o=$(addr "$(printed "$case" waits)")
		kind=$([[ $case == sem ]] && echo semaphore || echo page)
		check "$kernel.$case.fired_on_it" "hung_pid $hung, module: pid ${p:-none}" test -n "$p" -a "$hung" = "$p"
		check "$kernel.$case.no_owner_said" "pid $p: $(wait_of "$p") ($kind $o)" test "$(wait_of "$p")" = "[\"$kind\", $o, null, \"a $kind records no owner\"]"
		check "$kernel.$case.text" "$(grep -m1 "^   pid $p " "$run/report.txt" || echo 'no line')" \
			grep -q "^   pid $p bpk-hang-$case D, blocked [0-9.]* s: waits on $kind 0x$(hex "$o") .*; a $kind records no owner" "$run/report.txt"
		;;
	esac
	order=$(grep -n -e '^== Who blocked whom' -e '^== Panic$' "$run/report.txt" | cut -d: -f1 | tr '\n' ' ')
	check "$kernel.$case.section_first" "lines of Who blocked whom, Panic: $order" \
		test "$(grep -n -e '^== Who blocked whom' -e '^== Panic$' "$run/report.txt" | head -1 | cut -d: -f2-)" = "== Who blocked whom (drgn: what each blocked task waits on, and who holds it)"
	blk=$(json_value "$run/report.json" "[t['blocked_s'] for t in d['waits']['tasks'] if t['state'] == 'D']")
	check "$kernel.$case.longest_first" "blocked_s in order: $blk" \
		"$py" -c 'import json, sys; b = json.loads(sys.argv[1]); assert b and all(x is not None and x > 0 for x in b) and b == sorted(b, reverse=True)' "$blk"
done
done

# The chain dump again, read by sid's drgn (0.1.0 on: drgn.helpers.linux.locking):
# drgn's helpers read the holders where trixie's drgn has none; the holders
# are the same. The toolbox for sid is made on first use, as for trixie.
src=$({ find "$out/runs-ours-chain" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null || true; } | sort | tail -1)
if [[ -z $src || ! -s $src/report.json ]]; then
	fail sid.report "no report of the chain case on our kernel to read again"
else
	sid=$out/sid-chain
	rm -rf "$sid"
	cp -a "$src" "$sid"
	rm -f "$sid/report.json" "$sid/report.txt"
	rc=0
	BPK_TOOLBOX_SUITE=sid analysis/report.py "$sid" >"$out/sid-report.out" 2>&1 || rc=$?
	owners() { json_value "$1/report.json" "sorted([t['pid'], (t['waits'] or {}).get('kind'), (t['waits'] or {}).get('address'), (t['owner'] or {}).get('pid')] for t in d['waits']['tasks'])"; }
	if ((rc != 0)) || [[ ! -s $sid/report.json ]]; then
		fail sid.report "exit $rc: $(tail -1 "$out/sid-report.out")"
	else
		drgnv=$(json_value "$sid/report.json" "d['analyzers']['chosen']['drgn_version']")
		check sid.drgn_reads_holders "drgn $drgnv: $(json_value "$sid/report.json" "d['waits']['owners_read_by']")" \
			grep -q '^"drgn.helpers.linux.locking ' <<<"$(json_value "$sid/report.json" "d['waits']['owners_read_by']")"
		check sid.trixie_reads_own "trixie: $(json_value "$src/report.json" "d['waits']['owners_read_by']")" \
			grep -q '^"bpk_waits ' <<<"$(json_value "$src/report.json" "d['waits']['owners_read_by']")"
		check sid.same_holders "sid: $(owners "$sid"); trixie: $(owners "$src")" \
			test "$(owners "$sid")" = "$(owners "$src")" -a "$(json_value "$sid/report.json" "sum(1 for t in d['waits']['tasks'] if t['owner'])")" = 2
	fi
fi
