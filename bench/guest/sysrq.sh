#!/bin/sh
# The blunt baseline: crash the appliance by hand, at the point where the
# benchmark's trigger would fire.
echo c >/proc/sysrq-trigger
