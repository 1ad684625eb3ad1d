#!/bin/sh
# A reproducer that forges a state of its own, escapes for a name, and
# waits: interrupted there, the run's reason names the last state.
printf 'BPK-STATE \033]0;PWNED\007\033[2Jforged-state t=3\n'
sleep 600
