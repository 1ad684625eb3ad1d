#!/bin/sh
# LKDTM's hard lockup: this CPU spins with interrupts off, for ever. No
# detector of the guest can see it under TCG (no PMU, no hard-lockup
# detector); the host's --stall watchdog does.
echo HARDLOCKUP >/sys/kernel/debug/provoke-crash/DIRECT
