#!/usr/bin/env bash
# starts early: 4 min on a slow 2-core machine, one of the longest scripts
# Your own trigger programs, through an installed bpk from outside the
# clone (make install DESTDIR=... PREFIX=/usr, then from a directory of
# the test's own):
#  - the worked examples of docs/own-triggers.md fire on our kernel and on
#    Debian's: the fire record read from the dump names the program and
#    carries its own detail values, the typed parameters given (a signed
#    64-bit number, a char array) among them; one is given as a .bpf.o
#    built with the installed SDK (bpk sdk --cflags);
#  - bad parameters (unknown key, out of the type's range, too long, a bad
#    bool) and bad programs (a syntax error with clang's file:line, an
#    unknown SEC(), a function the kernel lacks, no fire call, an object
#    for another machine) are refused with exit 2 and nothing booted;
#  - the verifier's rejections (an out-of-bounds read, an unbounded loop)
#    end the run at arm time naming the program, its source line and the
#    verifier's words;
#  - the template of bpk new-trigger compiles and fires unchanged; a
#    second compile of the same source is a cache hit;
#  - every SEC() kind attaches: kprobe, kretprobe, fentry, fexit, tp,
#    tp_btf, raw_tp (a dry run counting which ran), uprobe on target=,
#    perf_event on cpu-clock (each fires);
#  - a campaign takes a program of one's own (its attempts boot fresh, and
#    campaign.json says why) and its winning attempt names the program;
#  - so does bpk matrix: the pipe example on ours and Debian's kernel fires
#    on both, each dump's fire record naming the program.
# shellcheck disable=SC2016 # backticks and ${...} in single quotes: literal text
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

dest=$out/destdir
runs=$out/runs
mkdir -p "$dest"
rc=0
make -s install DESTDIR="$dest" PREFIX=/usr RUNS="$runs" >"$out/install.out" 2>&1 || rc=$?
ibpk=$dest/usr/bin/bpk
if ((rc != 0)) || [[ ! -x $ibpk ]]; then
	fail install "exit $rc: $(tail -1 "$out/install.out")"
	exit 1
fi
work=$out/work
mkdir -p "$work"
cp docs/own-triggers/short_pipe_write.bpf.c docs/own-triggers/write_beyond.bpf.c docs/own-triggers/write_beyond.sh "$work/"
cd "$work"

# latest RUNS: the run filed last
latest() { filed_runs "$1" | tail -1; }

# --- the SDK as installed: flags, and an object built with them
flags=$("$ibpk" sdk --cflags 2>&1 || true)
check sdk.cflags "bpk sdk --cflags: $flags" test "$flags" = "-I$dest/usr/include"
check sdk.pkgconfig "$(grep -h '^Cflags' "$dest/usr/share/pkgconfig/bpk.pc" 2>/dev/null || echo no bpk.pc)" \
	grep -qx 'Cflags: -I${includedir} -D__TARGET_ARCH_x86' "$dest/usr/share/pkgconfig/bpk.pc"
rc=0
# shellcheck disable=SC2086 # the flags are words
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 $flags -c short_pipe_write.bpf.c -o short_pipe_write.bpf.o >"$out/clang.out" 2>&1 || rc=$?
check sdk.object "clang with the installed SDK: exit $rc $(head -1 "$out/clang.out")" test "$rc" = 0 -a -s short_pipe_write.bpf.o

# --- bpk list --prog: the parameters from the program's BTF; the first
# compile is the first in this cache (an earlier run of the test filled it)
rm -rf "${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}/prog"
listing=$("$ibpk" list --prog write_beyond.bpf.c 2>"$out/list.err" || true)
check list.params "$(grep -E '^    (max_pos|name) ' <<<"$listing" | tr -s ' ' | tr '\n' ';')" \
	grep -qE '^    max_pos +int +1048576 +__s64: -9223372036854775808 to 9223372036854775807$' <<<"$listing"
check list.string "$(grep -E '^    name ' <<<"$listing" || echo none)" grep -qE '^    name +string +"" +text, at most 31 characters$' <<<"$listing"
check compile.first "$(head -1 "$out/list.err")" grep -q '^bpk: compiled write_beyond.bpf.c in ' "$out/list.err"
"$ibpk" list --prog write_beyond.bpf.c >/dev/null 2>"$out/list2.err" || true
check compile.cache_hit "$(head -1 "$out/list2.err")" grep -q '^bpk: write_beyond.bpf.c: compiled before ' "$out/list2.err"

# --- the worked examples, on both kernels
pipe_cmd=(python3 -c 'import os; r, w = os.pipe(); os.set_blocking(w, False); print("wrote", os.write(w, b"x" * 100000))')
for kernel in ours debian; do
	rc=0
	"$ibpk" --runs "$runs/pipe-$kernel" run --prog short_pipe_write.bpf.o comm=python3 --kernel "$kernel" --timeout 120 \
		-- "${pipe_cmd[@]}" >"$out/pipe-$kernel.out" 2>&1 || rc=$?
	run=$(latest "$runs/pipe-$kernel")
	check "$kernel.pipe.run" "exit $rc: ${run:-no run} $(grep -m1 'error:' "$out/pipe-$kernel.out" || true)" test "$rc" = 0 -a -n "$run"
	# restored: the program came with the control message
	check_field_match "$kernel.pipe.warm" "${run:-/nonexistent}" guest.restored_from '/snapshot/[0-9a-f]+$'
	fire=$(json_value "${run:-/nonexistent}/report.json" "[d['fire']['source'], d['fire']['fields']['trigger'], d['fire']['fields']['detail']]")
	check "$kernel.pipe.record" "fire record from the dump: $fire" \
		test "$fire" = '["drgn", "short_pipe_write", "asked=100000 wrote=65536"]'
	rc=0
	"$ibpk" --runs "$runs/beyond-$kernel" run --prog write_beyond.bpf.c max_pos=1048576 name=data.bin comm=dd \
		--kernel "$kernel" --timeout 120 --workload write_beyond.sh >"$out/beyond-$kernel.out" 2>&1 || rc=$?
	run=$(latest "$runs/beyond-$kernel")
	check "$kernel.beyond.run" "exit $rc: ${run:-no run} $(grep -m1 'error:' "$out/beyond-$kernel.out" || true)" test "$rc" = 0 -a -n "$run"
	fire=$(json_value "${run:-/nonexistent}/report.json" "[d['fire']['fields']['trigger'], d['fire']['fields']['comm'], d['fire']['fields']['detail']]")
	check "$kernel.beyond.record" "fire record from the dump: $fire" \
		test "$fire" = '["write_beyond", "dd", "f_pos=2097152 max_pos=1048576 count=16 name=data.bin"]'
	check "$kernel.beyond.report_text" "$(grep -m1 '^   detail=' "${run:-/nonexistent}/report.txt" 2>/dev/null || echo no detail line)" \
		grep -qx '   detail=f_pos=2097152 max_pos=1048576 count=16 name=data.bin' "${run:-/nonexistent}/report.txt"
	# the run keeps what it ran: the source and the object bpk compiled
	kept=$(record_field "${run:-/nonexistent}" trigger.prog 2>/dev/null || true)
	check "$kernel.beyond.kept" "trigger.prog=${kept:-none}; $(grep -m1 '^program:' "${run:-/nonexistent}/report.txt" 2>/dev/null || echo no program line)" \
		test "$kept" = prog/write_beyond.bpf.o -a -s "${run:-/nonexistent}/prog/write_beyond.bpf.o" \
		-a "$(grep -c '^program:   your own, kept in the run: prog/write_beyond.bpf.o$' "${run:-/nonexistent}/report.txt" 2>/dev/null)" = 1
	# its own map, read from the dump with its BTF: each dd's last position
	maps=$(json_value "${run:-/nonexistent}/report.json" "[(m['name'], m['type'], m['entries_total'], sorted(e['value'] for e in m['entries']), [e['value'] for e in m['entries'] if e['key'] == d['fire']['fields']['tgid']]) for m in d['fire']['own_maps']]")
	check "$kernel.beyond.own_map" "own maps: $maps" test "$maps" = '[["last_pos", "hash", 2, [0, 2097152], [2097152]]]'
	check "$kernel.beyond.kept_source" "$(cmp write_beyond.bpf.c "${run:-/nonexistent}/prog/write_beyond.bpf.c" 2>&1 || true)" \
		cmp -s write_beyond.bpf.c "${run:-/nonexistent}/prog/write_beyond.bpf.c"
done

# --- every SEC() kind the appliance attaches. The kernel's kinds in one
# object, armed as a dry run: each program marks its kind in a map when it
# runs, and the unlink of the workload runs them all (unlink, fork, exec); the
# guest's status counts the marks. uprobe (on target=) and perf_event (on
# cpu-clock, alone in its object) fire for real.
cat >allkinds.bpf.c <<'PROG'
#include <bpk/trigger.bpf.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} kinds SEC(".maps");

static __always_inline void seen(__u32 kind)
{
	__u32 one = 1;

	bpf_map_update_elem(&kinds, &kind, &one, BPF_ANY);
	if (kind == 7)
		bpk_fire("kind=%u", kind);
}

SEC("kprobe/do_unlinkat") int BPF_KPROBE(kp) { seen(1); return 0; }
SEC("kretprobe/do_unlinkat") int BPF_KRETPROBE(krp) { seen(2); return 0; }
SEC("fentry/do_unlinkat") int BPF_PROG(fe) { seen(3); return 0; }
SEC("fexit/do_unlinkat") int BPF_PROG(fx) { seen(4); return 0; }
SEC("tp/syscalls/sys_enter_unlink") int tp(void *ctx) { seen(5); return 0; }
SEC("tp_btf/sched_process_fork") int BPF_PROG(tpb) { seen(6); return 0; }
SEC("raw_tp/sched_process_exec") int rtp(void *ctx) { seen(7); return 0; }
PROG
rc=0
"$ibpk" --runs "$runs/allkinds" run --prog allkinds.bpf.c --dry-run --timeout 120 \
	-- unlink /no/such/file >"$out/allkinds.out" 2>&1 || rc=$?
run=$(latest "$runs/allkinds")
# the status after the workload: the last one (the first is right after arming)
line=$(grep '^allkinds maps: ' "${run:-/nonexistent}/guest.log" 2>/dev/null | tail -1)
line=${line:-no maps line (exit $rc)}
check attach.kernel_kinds "$line" test "$line" = "allkinds maps: kinds=7"
cat >upkind.bpf.c <<'PROG'
#include <bpk/trigger.bpf.h>

SEC("uprobe") int BPF_KPROBE(up, long arg0) { bpk_fire("arg0=%ld", arg0); return 0; }
PROG
rc=0
"$ibpk" --runs "$runs/upkind" run --prog upkind.bpf.c target=/etc/bpk/workload:app_assert_failed \
	--workload "$build/examples/uprobe" --timeout 120 >"$out/upkind.out" 2>&1 || rc=$?
run=$(latest "$runs/upkind")
fire=$(json_value "${run:-/nonexistent}/report.json" "[d['fire']['fields']['trigger'], d['fire']['fields']['detail']]")
check attach.uprobe "exit $rc: $fire" grep -qE '^\["upkind", "arg0=[0-9-]+"\]$' <<<"$fire"
cat >perfkind.bpf.c <<'PROG'
#include <bpk/trigger.bpf.h>

SEC("perf_event") int sample(void *ctx)
{
	if (bpk_task_selected())
		bpk_fire("cpu=%u", bpf_get_smp_processor_id());
	return 0;
}
PROG
rc=0
"$ibpk" --runs "$runs/perfkind" run --prog perfkind.bpf.c comm=spinner \
	--workload "$build/examples/cpu_hog" --timeout 120 >"$out/perfkind.out" 2>&1 || rc=$?
run=$(latest "$runs/perfkind")
fire=$(json_value "${run:-/nonexistent}/report.json" "[d['fire']['fields']['trigger'], d['fire']['fields']['comm']]")
check attach.perf_event "exit $rc: $fire" test "$fire" = '["perfkind", "spinner"]'

# --- a campaign of a program of one's own: fresh boots, said why; the
# attempt that fires names the program in its record
rc=0
"$ibpk" --runs "$runs/campaign" campaign --prog short_pipe_write.bpf.c comm=python3 --attempts 2 --jobs 1 \
	--timeout 120 -- "${pipe_cmd[@]}" >"$out/campaign.out" 2>"$out/campaign.err" || rc=$?
won=$(tail -1 "$out/campaign.out")
fire=$(json_value "${won:-/nonexistent}/report.json" "[d['fire']['fields']['trigger'], d['fire']['fields']['detail']]")
check campaign.fired "exit $rc: $won $fire" test "$rc" = 0 -a "$fire" = '["short_pipe_write", "asked=100000 wrote=65536"]'
cj=$(find "$runs/campaign" -maxdepth 2 -name campaign.json 2>/dev/null | head -1)
check campaign.fresh_why "$(json_value "${cj:-/nonexistent}" "d['fresh_why']")" \
	grep -q 'a program of your own (--prog) is armed at boot' <<<"$(json_value "${cj:-/nonexistent}" "d['fresh_why']")"

# --- a matrix of a program of one's own: ours and Debian's, both fire
rc=0
"$ibpk" -j --runs "$runs/matrix" matrix --prog short_pipe_write.bpf.c comm=python3 --kernels ours,debian --jobs 2 \
	--timeout 120 -- "${pipe_cmd[@]}" >"$out/matrix.json" 2>"$out/matrix.err" || rc=$?
got=$(json_value "$out/matrix.json" "[(k['kernel'], k['answer']) for k in d['kernels']]")
check matrix.answers "exit $rc: $got $(grep -m1 'error:' "$out/matrix.err" || true)" \
	test "$rc" = 0 -a "$got" = '[["ours", "fired"], ["debian", "fired"]]'
got=$(json_value "$out/matrix.json" "[__import__('json').load(open(k['run'] + '/report.json'))['fire']['fields']['trigger'] for k in d['kernels']]")
check matrix.records "each kernel's fire record: $got" test "$got" = '["short_pipe_write", "short_pipe_write"]'

# --- refused before boot: exit 2, one line, no run filed, no boot
# refused NAME WANT ARGS...: bpk run ARGS refused with WANT in its last line
refused() {
	local name=$1 want=$2 rc=0 last
	shift 2
	"$ibpk" --runs "$runs/refused" run "$@" >"$out/$name.out" 2>&1 || rc=$?
	last=$(grep 'error:' "$out/$name.out" | tail -1)
	check "refused.$name" "exit $rc: ${last:-no error line}" \
		test "$rc" = 2 -a -z "$(filed_runs "$runs/refused")" -a -n "$last" -a "${last#*"$want"}" != "$last"
	if grep -q 'boot:' "$out/$name.out"; then fail "refused.$name.booted" "it booted: $(grep -m1 'boot:' "$out/$name.out")"; fi
}
refused param_unknown "nokey: unknown parameter of trigger short_pipe_write" --prog short_pipe_write.bpf.c nokey=1 -- true
refused param_range "min_asked=4294967296: out of range (0-4294967295)" --prog short_pipe_write.bpf.c min_asked=4294967296 -- true
refused param_signed "max_pos=9223372036854775808: out of range" --prog write_beyond.bpf.c max_pos=9223372036854775808 -- true
refused param_long "name=$(printf 'n%.0s' {1..32}): longer than 31 characters" --prog write_beyond.bpf.c "name=$(printf 'n%.0s' {1..32})" -- true
refused param_bool "dry_run=2: a flag is given alone" --prog write_beyond.bpf.c dry_run=2 -- true

printf '#include <bpk/trigger.bpf.h>\nSEC("fentry/pipe_write")\nint BPF_PROG(p) { bpk_fire("a=%%d", 1) return 0; }\n' >syntax.bpf.c
refused syntax "syntax.bpf.c: clang could not compile it" --prog syntax.bpf.c -- true
check refused.syntax_diag "$(grep -m1 'error:' "$out/syntax.out")" grep -q "^syntax.bpf.c:3:[0-9]*: error: expected ';'" "$out/syntax.out"
printf '#include <bpk/trigger-impl.bpf.h>\nSEC("fentry/pipe_write")\nint BPF_PROG(p) { return 0; }\n' >impl.bpf.c
refused impl_alone "--prog impl.bpf.c: clang cannot preprocess it" --prog impl.bpf.c -- true
check refused.impl_alone_diag "$(grep -m1 'error:' "$out/impl_alone.out")" grep -q 'error: "include <bpk/trigger.bpf.h>, not this file"' "$out/impl_alone.out"
printf '#include <bpk/trigger.bpf.h>\nSEC("xdp")\nint x(struct xdp_md *ctx) { bpk_fire("a=%%d", 1); return 0; }\n' >badsec.bpf.c
refused unknown_sec 'badsec.bpf.c: program x: SEC("xdp") is not one the appliance attaches' --prog badsec.bpf.c -- true
printf '#include <bpk/trigger.bpf.h>\nSEC("fentry/bpk_no_such_function")\nint BPF_PROG(p) { bpk_fire("a=%%d", 1); return 0; }\n' >nofunc.bpf.c
refused no_function 'SEC("fentry/bpk_no_such_function") of program p: no function bpk_no_such_function in this kernel' --prog nofunc.bpf.c -- true
printf '#include <bpk/trigger.bpf.h>\nSEC("fentry/pipe_write")\nint BPF_PROG(p) { return 0; }\n' >nofire.bpf.c
refused no_fire "nofire.bpf.c: no program calls bpk_fire()" --prog nofire.bpf.c -- true
printf '#include <bpk/trigger.bpf.h>\nconst __u32 cfg_port = 80;\nSEC("fentry/pipe_write")\nint BPF_PROG(p) { bpk_fire("a=%%u", cfg_port); return 0; }\n' >novolatile.bpf.c
refused not_volatile "novolatile.bpf.c: cfg_port: declare it const volatile" --prog novolatile.bpf.c port=443 -- true
cc -c -x c /dev/null -o x86.bpf.o
refused other_machine "x86.bpf.o: an ELF object for machine 62 (x86-64), not BPF" --prog x86.bpf.o -- true

# --- the verifier's rejections, at arm time
# verifier NAME SOURCE WANT: the run of SOURCE fails at arm time, its
# reason naming the program, the source line and WANT
verifier() {
	local name=$1 want=$3 rc=0 run reason
	printf '%s' "$2" >"$name.bpf.c"
	"$ibpk" --runs "$runs/$name" run --prog "$name.bpf.c" --timeout 120 -- true >"$out/$name.out" 2>&1 || rc=$?
	run=$(latest "$runs/$name")
	reason=$(record_field "${run:-/nonexistent}" reason 2>/dev/null || true)
	check "verifier.$name" "exit $rc: ${reason:-no error in the record}" \
		test "$rc" = 1 -a "${reason#*"$want"}" != "$reason"
}
verifier oob '#include <bpk/trigger.bpf.h>
const volatile __u32 cfg_idx = 100;
char buf[16];
SEC("fentry/pipe_write")
int BPF_PROG(enter)
{
	char c = buf[cfg_idx];

	if (c)
		bpk_fire("c=%d", c);
	return 0;
}
' 'the verifier refused program enter at oob.bpf.c:7 `char c = buf[cfg_idx];`: invalid access to map value'
verifier loop '#include <bpk/trigger.bpf.h>
SEC("fentry/pipe_write")
int BPF_PROG(enter)
{
	while (bpf_get_prandom_u32() != 7)
		;
	bpk_fire("a=%d", 1);
	return 0;
}
' 'the verifier refused program enter at loop.bpf.c:5 `while (bpf_get_prandom_u32() != 7)`: infinite loop detected'

# --- the template, unchanged
rc=0
"$ibpk" new-trigger mytrig >"$out/new.out" 2>&1 || rc=$?
check template.written "exit $rc: $(tail -1 "$out/new.out")" test "$rc" = 0 -a -s mytrig.bpf.c
rc=0
"$ibpk" --runs "$runs/template" run --prog mytrig.bpf.c comm=unlink --timeout 120 -- unlink /no/such/file >"$out/template.out" 2>&1 || rc=$?
run=$(latest "$runs/template")
fire=$(json_value "${run:-/nonexistent}/report.json" "[d['fire']['fields']['trigger'], d['fire']['fields']['detail']]")
check template.fires "exit $rc: $fire" test "$rc" = 0 -a "$fire" = '["mytrig", "errno=2 path=/no/such/file"]'
