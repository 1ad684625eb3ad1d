#!/bin/sh
# shellcheck shell=dash
# An appliance job that lies, for tests/52-hostile-guest: it takes the
# place of /etc/bpk/jobs/appliance (a later cpio entry wins) and sends on
# the results port what the kernel command line's hostile_job=MODE asks:
#   refuse  the "refused" state, its reason terminal escapes
#   state   a state named with terminal escapes, then it waits (the test
#           interrupts the run there)
# and, in a snapshot's guest (bpk.control=1), that state and the end,
# before the guest is idle.
# shellcheck disable=SC1091
. /usr/lib/bpk/bpk-lib.sh
mode=
read -r cmdline </proc/cmdline
for w in $cmdline; do
	case $w in
	hostile_job=*) mode=${w#hostile_job=} ;;
	bpk.control=1) mode=snapshot ;;
	esac
done
esc=$(printf '\033]0;PWNED\007\033[2J')
bpk_state booted
case $mode in
refuse)
	bpk_state refused "reason=${esc}forged refusal"
	exit 3
	;;
state)
	bpk_state "${esc}forged-state"
	sleep 600
	;;
snapshot)
	bpk_state "${esc}forged-state"
	exit 3
	;;
esac
