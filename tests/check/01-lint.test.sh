#!/usr/bin/env bash
# Static checks of our own sources: every shell script is shellcheck clean,
# every Python file pyflakes clean,
# and every C file is in the kernel's clang-format style (.clang-format).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out
cd "$top"

mapfile -t scripts < <(git ls-files | while read -r f; do
	[[ -f $f ]] && head -1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f"
done; git ls-files '*.sh')
mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | sort -u)
for f in "${scripts[@]}"; do
	if shellcheck -x "$f" >"$out/sc.txt" 2>&1; then
		pass "shellcheck.$f" "clean"
	else
		fail "shellcheck.$f" "$(grep -c '^In ' "$out/sc.txt") finding(s): $(grep -m1 -o 'SC[0-9]*.*' "$out/sc.txt")"
	fi
done

mapfile -t csrc < <(git ls-files '*.c' '*.h')
for f in "${csrc[@]}"; do
	if clang-format --dry-run --Werror "$f" >"$out/cf.txt" 2>&1; then
		pass "clang-format.$f" "kernel style"
	else
		fail "clang-format.$f" "$(grep -c 'warning:' "$out/cf.txt") line(s) differ, first: $(grep -m1 -o '[^/]*:[0-9]*:[0-9]*' "$out/cf.txt")"
	fi
done

# Python (analysis/, run by Debian's /usr/bin/python3): pyflakes clean
mapfile -t pysrc < <(git ls-files '*.py')
for f in "${pysrc[@]}"; do
	if pyflakes3 "$f" >"$out/pf.txt" 2>&1; then
		pass "pyflakes.$f" "clean"
	else
		fail "pyflakes.$f" "$(wc -l <"$out/pf.txt") finding(s): $(head -1 "$out/pf.txt")"
	fi
done

# Guest text reaches a terminal escaped: no print in bpk's and the
# collector's C (tests aside) names a guest field without the escape in
# the same statement (tests/check/guest-prints.py); and the checker itself
# finds a print that does
mapfile -t hostc < <(git ls-files 'bpk/*.c' 'collector/*.c' | grep -vE '/(tests|fuzz)/|unit-tests\.c$')
rc=0
/usr/bin/python3 tests/check/guest-prints.py "${hostc[@]}" >"$out/gp.txt" 2>&1 || rc=$?
check guest_prints.escaped "exit $rc, ${#hostc[@]} files: $(head -1 "$out/gp.txt")" test "$rc" = 0 -a "${#hostc[@]}" -gt 20
printf 'void f(struct guest *g)\n{\n\tfprintf(stderr, "panic: %%s\\n",\n\t\tg->panic_msg);\n}\n' >"$out/raw.c"
rc=0
/usr/bin/python3 tests/check/guest-prints.py "$out/raw.c" >"$out/gp-raw.txt" 2>&1 || rc=$?
check guest_prints.finds_a_raw_print "exit $rc: $(head -1 "$out/gp-raw.txt")" grep -q "raw.c:3: fprintf(stderr, \"panic: %s\\\\n\", g->panic_msg)" "$out/gp-raw.txt"
