#!/bin/sh
# An RCU stall: LKDTM's soft lockup spins on this CPU with preemption off,
# so it never passes a quiescent state. The stall detector sees that only
# while a grace period waits, and an idle guest may start none: short-lived
# processes on the other CPU keep asking for grace periods (each exit
# frees its task through RCU). Interrupts stay on here, so the other CPU
# never waits on this one for an IPI and the grace-period kthread runs.
while :; do (:); done &
sleep 0.5
echo SOFTLOCKUP >/sys/kernel/debug/provoke-crash/DIRECT
