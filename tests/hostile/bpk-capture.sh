#!/bin/sh
# shellcheck shell=dash
# A capture step that lies, for tests/52-hostile-guest: it takes the place
# of /usr/lib/bpk/bpk-capture.sh in the kdump image and, instead of the
# dump, sends on the dump port what bpk.capture_append=hostile=MODE asks:
#   extent  a whole flattened stream whose one record sits 8 TiB out (a
#           vmcore rebuilt from it would be an 8 TiB sparse file)
#   flood   zeros, without end, past any bound
# then a status record that says success, and powers off; or
#   panic   no dump: a panic line with the kernel's facility and terminal
#           escapes on the console, then silence (the host takes the dump)
#   status  no dump: a status record whose fields are terminal escapes
# shellcheck disable=SC1091
[ -n "${bpk_lib_loaded:-}" ] || . /usr/lib/bpk/bpk-lib.sh
mode=
read -r cmdline </proc/cmdline
for w in $cmdline; do
	case $w in hostile=*) mode=${w#hostile=} ;; esac
done
echo "bpk-capture: hostile capture step: $mode" >/dev/console
dump=$(bpk_find_port dump)
status=$(bpk_find_port status)
case $mode in
extent)
	{
		# header: "makedumpfile", type 1 and version 1 as big-endian
		# 64-bit numbers, zeros to 4096 bytes
		printf 'makedumpfile\0\0\0\0\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0\1'
		head -c 4064 /dev/zero
		# one record: offset 8 TiB - 4096 (0x7ffffffff000), 4096 bytes
		printf '\0\0\7\377\377\377\360\0\0\0\0\0\0\0\20\0'
		printf 'KDUMP   '
		head -c 4088 /dev/zero
		# the end marker
		printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377'
	} >"$dump"
	;;
flood)
	cat /dev/zero >"$dump"
	;;
panic)
	printf '<0>[    1.000000] Kernel panic - not syncing: \033]0;PWNED\007\033[2Jforged capture panic\n' >/dev/console
	sleep 600
	;;
status)
	printf 'status=\033]0;PWNED\007failed\nfailed_step=\033[2Jstep\nfailed_rc=\033[31m7\nend\n' >"$status"
	echo o >/proc/sysrq-trigger
	sleep 30
	;;
esac
printf 'status=success\ndmesg_rc=0\nmakedumpfile_rc=0\nmakedumpfile_opts=hostile\ncapture_started=1\ndmesg_done=1\ndump_done=2\nend\n' >"$status"
echo o >/proc/sysrq-trigger
sleep 30
