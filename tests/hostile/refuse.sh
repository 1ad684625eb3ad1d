#!/bin/sh
# A reproducer that forges the appliance's "refused" state with terminal
# escapes in its reason (its stdout shares the results port), then ends
# without firing: the run fails, and the reason reaches bpk's error line.
printf 'BPK-STATE refused t=2 reason=\033]0;PWNED\007\033[2Jforged refusal\n'
