#!/bin/sh
# LKDTM's soft lockup: this CPU spins with preemption off and interrupts on,
# for ever; the soft-lockup detector sees it after 2 * watchdog_thresh.
echo SOFTLOCKUP >/sys/kernel/debug/provoke-crash/DIRECT
