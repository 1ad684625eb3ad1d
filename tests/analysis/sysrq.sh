#!/bin/sh
# Workload of tests/60-analysis for a run with no trigger (--trigger none):
# a sysrq crash, which panics with "sysrq triggered crash", hence a dump.
echo c >/proc/sysrq-trigger
