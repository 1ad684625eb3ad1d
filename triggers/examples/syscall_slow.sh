#!/bin/sh
# Provokes syscall_slow syscall=clock_nanosleep ms=300: a one-second sleep
# (glibc's nanosleep is the clock_nanosleep syscall); a 0.1 s one does not.
sleep 0.1
sleep 1
