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
