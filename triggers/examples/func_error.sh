#!/bin/sh
# Provokes func_error func=do_mkdirat errno=EEXIST comm=mkdir: the second mkdir of the
# same directory fails with EEXIST (the first one succeeds: no match).
mkdir /tmp/bpk-dir
mkdir /tmp/bpk-dir
