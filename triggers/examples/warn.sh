#!/bin/sh
# Provokes warn file=drivers/misc/lkdtm/bugs.c: LKDTM's WARNING test makes
# the kernel WARN() on purpose (debugfs is mounted by the guest's init).
echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT
