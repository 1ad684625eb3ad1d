#!/bin/sh
# A reproducer that prints the appliance's "refused" state, terminal escapes
# in its reason, and ends without firing: its output has a port of its own,
# so the line is kept in workload.log and is no state.
printf 'BPK-STATE refused t=2 reason=\033]0;PWNED\007\033[2Jforged refusal\n'
