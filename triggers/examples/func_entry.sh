#!/bin/sh
# Provokes func_entry func=do_unlinkat comm=rm: rm unlinks a file.
touch /tmp/bpk-victim
rm /tmp/bpk-victim
