/* SPDX-License-Identifier: GPL-2.0 */
/* The regression test of the proto-lookup race (series v2). */
#ifndef GUARD_RACE_H
#define GUARD_RACE_H

/*
 * guard race LOADS: load a bpf_panic() program LOADS times while another
 * process flips kernel.destructive_bpf_enabled between 0 and 1; print
 * RESULT lines with the counts and "RACE-DONE". Returns the exit status.
 */
int run_race(const char *loads_text);

#endif
