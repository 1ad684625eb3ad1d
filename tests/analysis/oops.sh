#!/bin/sh
# Workload of tests/60-analysis for a run with no trigger (--trigger none):
# an oops (LKDTM EXCEPTION: a NULL dereference in the writing task) that
# panic_on_oops turns into a panic, hence a dump.
echo 1 >/proc/sys/kernel/panic_on_oops
echo EXCEPTION >/sys/kernel/debug/provoke-crash/DIRECT
