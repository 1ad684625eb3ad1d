#!/usr/bin/env bash
# The kernel series as text and headers, checked on the host:
# checkpatch --strict, commit messages, the selftest compiling against the
# patched tree, the tools/ UAPI copy, helper ids (guard test h), the
# source-version guard, and the kernel cache's no-op path.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

series=$top/kernel-series
src=$kernel/src
tarball=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
[[ -d $src ]] || { fail series.kernel_tree "$src missing: run make kernel"; exit 1; }
mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$series/series")

# Every patch in the directory is in the series, and the other way round
# (the cover letter is not applied).
listed=$(printf '%s\n' "${patches[@]}" | sort)
present=$(cd "$series" && printf "%s\n" *.patch | grep -vx '0000-cover-letter.patch' | sort)
check series.file_lists_all_patches "series lists: $(echo "$listed" | tr '\n' ' ')" \
	test "$listed" = "$present"

# The form of a posting: [RFC PATCH vN n/total] subjects (the series is not
# meant for mainline), one version for all, and a cover letter that says
# what upstream would say.
n=${#patches[@]}
subjects=$(for p in "${patches[@]}"; do sed -n 's/^Subject: //p' "$series/$p"; done)
version=$(sed -n 's/^\[RFC PATCH v\([0-9]*\) .*/\1/p' <<<"$subjects" | sort -u)
numbered=$(i=0; for p in "${patches[@]}"; do i=$((i + 1)); grep -c "^Subject: \[RFC PATCH v$version $i/$n\] " "$series/$p" || true; done | grep -cx 1 || true)
check series.posting_subjects "version ${version:-none}, $numbered of $n numbered: $(tr '\n' ';' <<<"$subjects")" \
	test -n "$version" -a "$(wc -l <<<"$version")" = 1 -a "$numbered" = "$n"
cover=$series/0000-cover-letter.patch
cover_subject=$(sed -n 's/^Subject: //p' "$cover" 2>/dev/null || true)
check series.cover_letter_subject "${cover_subject:-no 0000-cover-letter.patch}" \
	grep -q "^\[RFC PATCH v$version 0/$n\] " <<<"$cover_subject"
missing=''
for want in 'kfunc' 'id 210' 'bpf_cgrp_storage_get' "Changes in v$version" 'Changes in v2' 'Changes in v1'; do
	grep -qF "$want" "$cover" 2>/dev/null || missing+=" '$want'"
done
check series.cover_letter_context "${missing:+missing:$missing}${missing:-upstream context and the changelog of every version}" \
	test -z "$missing"

# checkpatch --strict. Two findings are accepted, each only where it is known
# to be a false positive:
#  - FILE_PATH_CHANGES for a new file already covered by MAINTAINERS (every
#    new selftest gets it; get_maintainer.pl must name the BPF list);
#  - BIT_MACRO in tools/include/uapi: the UAPI copy must match the kernel's
#    include/uapi header byte for byte, and BIT() is not available in UAPI
#    headers (checkpatch only exempts include/uapi itself);
#  - BAD_SIGN_OFF for Originally-by: alone, the tag that credits the RFC's
#    author (the kernel's history uses it where code was rewritten from
#    someone else's; checkpatch's list of signature tags does not have it).
# It runs from the unpacked source tree, as a reviewer without git would:
# in a git checkout checkpatch looks commit ids up in git instead, and
# takes a quoted trace in a commit message for one it merely cannot find.
for p in "${patches[@]}"; do
	report=$out/checkpatch-${p%.patch}.txt
	(cd "$src" && perl scripts/checkpatch.pl --strict --no-tree --show-types \
		--root="$src" "$series/$p") >"$report" 2>&1 || true
	bad=()
	while IFS= read -r line; do
		type=${line#*:}
		type=${type%%:*}
		where=$(grep -A2 -F -- "$line" "$report" | grep -o 'FILE: [^:]*' | head -1 | cut -c7- || true)
		case $type in
		FILE_PATH_CHANGES)
			newfiles=$(awk '/^--- \/dev\/null/ { n = 1; next }
				n && /^\+\+\+ b\// { print substr($0, 7) } { n = 0 }' "$series/$p")
			ok=1
			for f in $newfiles; do
				(cd "$src" && perl scripts/get_maintainer.pl --no-git --no-tree -f "$f" 2>/dev/null) |
					grep -q 'bpf@vger.kernel.org' || ok=0
			done
			((ok)) || bad+=("$line (new file not covered by MAINTAINERS)")
			;;
		BIT_MACRO)
			[[ $where == tools/include/uapi/* ]] || bad+=("$line in $where")
			;;
		BAD_SIGN_OFF)
			[[ $line == *'Non-standard signature: Originally-by:' ]] || bad+=("$line")
			;;
		*) bad+=("$line${where:+ in $where}") ;;
		esac
	done < <(grep -E '^(ERROR|WARNING|CHECK):' "$report")
	summary=$(grep -E '^total:' "$report" || echo "no total line")
	if ((${#bad[@]} == 0)) && grep -q '^total:' "$report"; then
		pass "checkpatch.${p%.patch}" "$summary"
	else
		fail "checkpatch.${p%.patch}" "$summary; not accepted: ${bad[*]:-checkpatch did not finish}"
	fi
done

# A real commit message: subject, a body of several lines, a Signed-off-by.
for p in "${patches[@]}"; do
	body=$(sed -n '/^Subject:/,/^---$/p' "$series/$p" | sed '1d;$d' | grep -cv '^\s*$' || true)
	sob=$(grep -c '^Signed-off-by: .* <.*@.*>' "$series/$p" || true)
	check "message.${p%.patch}" "$body non-empty body lines, $sob Signed-off-by" \
		test "$body" -ge 6 -a "$sob" -ge 1
done

# Authorship: the rewritten patches are the project's, crediting the RFC
# with a link to its posting; the per-version changelog sits below the
# first "---", where git am drops it.
project=$(git -C "$top" log -1 --format='%an <%ae>' -- kernel-series)
for p in "${patches[@]}"; do
	from=$(git mailinfo /dev/null /dev/null <"$series/$p" | sed -n 's/^Author: //p;s/^Email: \(.*\)/<\1>/p' | paste -sd' ')
	credit=$(grep -c '^Originally-by: Artem Savkov <asavkov@redhat.com>$' "$series/$p" || true)
	link=$(grep -m1 -o '^Link: https://lore.kernel.org/bpf/20220711083220\.2175036-[2-5]-asavkov@redhat.com/$' "$series/$p" || true)
	notes=$(sed -n '/^---$/,/^ .* | /p' "$series/$p" | grep -c '^v[0-9]*[: ]' || true)
	check "authorship.${p%.patch}" "From: $from; credit lines $credit; ${link:-no lore Link}; $notes changelog versions below ---" \
		test "$from" = "$project" -a "$credit" = 1 -a -n "$link" -a "$notes" -ge 2
done

# The selftest compiles against the patched tree's headers and libbpf API.
st=$src/tools/testing/selftests/bpf
if gcc -std=gnu11 -c -o "$out/bpf_panic.o" -Wall -Werror -I"$build/selftest" -I"$st" -I"$src/tools/include" \
	-I"$src/tools/include/uapi" -I"$src/tools/lib" -I"$src/tools/arch/x86/include" \
	"$st/prog_tests/bpf_panic.c" 2>"$out/selftest.log"; then
	pass selftest.compiles "prog_tests/bpf_panic.c -> $(stat -c %s "$out/bpf_panic.o") bytes"
else
	fail selftest.compiles "$(head -3 "$out/selftest.log" | tr '\n' ' ')"
fi

# The pristine header, straight from the distro tarball.
# One pass over the tarball picks up both copies (include/ and tools/include/).
mkdir -p "$out/orig/linux" "$out/orig-tools/linux" "$out/orig-tree"
tar -xf "$tarball" -C "$out/orig-tree" --wildcards '*/include/uapi/linux/bpf.h'
cp "$out"/orig-tree/*/include/uapi/linux/bpf.h "$out/orig/linux/bpf.h"
cp "$out"/orig-tree/*/tools/include/uapi/linux/bpf.h "$out/orig-tools/linux/bpf.h"

# The series adds the same text to both copies: the difference between the
# kernel's header and the tools/ copy is what it was before the series.
diff "$out/orig/linux/bpf.h" "$out/orig-tools/linux/bpf.h" >"$out/uapi-drift-before.diff" || true
diff "$src/include/uapi/linux/bpf.h" "$src/tools/include/uapi/linux/bpf.h" |
	sed 's/^[0-9][0-9,]*[acd][0-9,]*$/@@/' >"$out/uapi-drift-after.diff" || true
sed 's/^[0-9][0-9,]*[acd][0-9,]*$/@@/' "$out/uapi-drift-before.diff" >"$out/uapi-drift-before.norm"
check uapi.tools_copy_matches "tools/include/uapi/linux/bpf.h gets the same hunks as include/uapi" \
	cmp -s "$out/uapi-drift-before.norm" "$out/uapi-drift-after.diff"

# Guard test h: helper ids, compiled from each header.
ids() { # ids DIR-WITH-linux/bpf.h OUTFILE
	gcc -std=gnu11 -Wall -Werror -I"$1" -o "$out/helper-ids" "$top/tests/helper-ids.c" &&
		"$out/helper-ids" >"$2"
}
ids "$out/orig" "$out/ids-orig.txt"
for copy in include tools/include; do
	name=h.helper_ids.${copy//\//_}
	# Only bpf.h itself: the tree's other uapi headers are not for user space.
	mkdir -p "$out/patched-${copy//\//_}/linux"
	cp "$src/$copy/uapi/linux/bpf.h" "$out/patched-${copy//\//_}/linux/bpf.h"
	if ! ids "$out/patched-${copy//\//_}" "$out/ids-$name.txt"; then
		fail "$name" "cannot compile against $src/$copy/uapi/linux/bpf.h"
		continue
	fi
	changed=$(join -j1 <(sort "$out/ids-orig.txt") <(sort "$out/ids-$name.txt") | awk '$2 != $3' | head -5)
	missing=$(comm -23 <(cut -d' ' -f1 "$out/ids-orig.txt" | sort) <(cut -d' ' -f1 "$out/ids-$name.txt" | sort))
	added=$(comm -13 <(sort "$out/ids-orig.txt") <(sort "$out/ids-$name.txt") | tr '\n' ' ')
	last=$(sort -k2 -n "$out/ids-$name.txt" | tail -1)
	n=$(wc -l <"$out/ids-orig.txt")
	if [[ -z $changed && -z $missing && $added == "panic 210 " && $last == "panic 210" ]]; then
		pass "$name" "$n existing ids unchanged; added: $added; last: $last"
	else
		fail "$name" "changed: ${changed:-none}; missing: ${missing:-none}; added: $added; last: $last"
	fi
done

# The series refuses a source it does not apply to, naming both versions.
fake=$out/fake-src
mkdir -p "$fake/linux-source-6.1/kernel/bpf"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 1\nkernelversion:\n\t@echo 6.1.1\n' \
	>"$fake/linux-source-6.1/Makefile"
tar -C "$fake" -cJf "$fake.tar.xz" linux-source-6.1
made_on=$(sed -n 's/^kernelversion=//p' "$series/source-version")
rc=0
BPK_CACHE=$out/cache KSRC_TARBALL=$fake.tar.xz "$series/build-kernel.sh" "$out/k" \
	>"$out/mismatch.log" 2>&1 || rc=$?
msg=$(grep 'error:' "$out/mismatch.log" | tail -1)
if ((rc != 0)) && [[ $msg == *6.1.1* && $msg == *"$made_on"* ]]; then
	pass series.refuses_other_source "exit $rc: $msg"
else
	fail series.refuses_other_source "exit $rc: ${msg:-no error line}"
fi

# An unchanged input does no kernel work: the cached build answers at once.
t0=$(now_ms)
"$series/build-kernel.sh" "$out/kernel-link" >"$out/noop.log" 2>&1
dt=$(($(now_ms) - t0))
check kernel.noop_rebuild_under_5s "$(fmt_ms "$dt"): $(tail -1 "$out/noop.log")" \
	test "$dt" -lt 5000 -a "$(readlink -f "$out/kernel-link")" = "$(readlink -f "$kernel")"
