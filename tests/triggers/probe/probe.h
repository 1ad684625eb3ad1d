/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpk-probe: small in-guest workloads for the trigger tests, each making one
 * kernel event happen on purpose (an interrupted syscall, a preempted task,
 * a bounded D-state sleep ...) and saying what it saw, so that a test can
 * check the workload did its part before it judges the trigger.
 */
#ifndef BPK_PROBE_H
#define BPK_PROBE_H

/* Each returns the process exit status: 0 when the event happened as
 * planned, 1 (after a message on stderr) when it did not.
 */
int probe_eintr(int argc, char **argv);
int probe_restart(int argc, char **argv);
int probe_negret(int argc, char **argv);
int probe_spin(int argc, char **argv);
int probe_stale(int argc, char **argv);
int probe_dstate(int argc, char **argv);
int probe_rename(int argc, char **argv);

/* Helpers (util.c) */
int set_comm(const char *name); /* prctl(PR_SET_NAME) */
int pin_to_cpu(int cpu); /* sched_setaffinity of the calling thread */
long long now_us(void); /* CLOCK_MONOTONIC */
void spin_us(long long us); /* burn CPU for @us of wall time */
int sleep_ms(long ms); /* nanosleep, restarted on EINTR */
int parse_ms(const char *text, long *ms); /* 1 .. 600000 */
int wait_child(int pid, const char *what); /* 0 if it exited 0 */
char proc_state(int pid); /* 'R', 'S', 'D' ... from /proc/PID/stat, 0 */

#endif
