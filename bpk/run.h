/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run, as bpk run, bpk demo, bpk selftest and a campaign's attempts
 * make it: the options, checked before anything boots; the guest's image
 * and command line; QEMU's command line; supervision; filing; the report.
 */
#ifndef BPK_RUN_H
#define BPK_RUN_H

#include <stdbool.h>

#include "bpk.h"
#include "kernels.h"

enum display {
	DISPLAY_PLAIN, /* a line per stage and message (not at a terminal) */
	DISPLAY_TERM, /* one updating line per stage (at a terminal) */
	DISPLAY_QUIET, /* only the run directory on stdout */
	DISPLAY_VERBOSE, /* plain, and what the guest says as it says it */
};

enum host_fs { HOSTFS_AUTO, HOSTFS_ON, HOSTFS_OFF };

struct run_opts {
	const char *trigger; /* a trigger of the table, "none", or the name
			      * of the --prog program
			      */
	const char *prog; /* --prog FILE: the user's own trigger program */
	char *prog_obj; /* its BPF object (compiled into the cache) */
	bool prog_compiled; /* prog is the source prog_obj was compiled from */
	struct strv targs; /* its k=v words, as given */
	char *workload; /* a file: absolute path */
	struct strv command; /* or -- CMD ARGS */
	int repeat, timeout, smp;
	const char *mem;
	const char *kernel; /* ours | debian */
	struct strv shares; /* --share DIR, resolved to absolute paths */
	char *share_rw;
	enum host_fs host_fs;
	const char *crashkernel; /* NULL: the kernel's default */
	bool crashkernel_default; /* not given: the kernel's, once measured */
	int stall_s; /* --stall: an NMI after this long without progress */
	/* --panic-on: the detectors that panic the guest */
	bool panic_softlockup, panic_hung, panic_rcu;
	bool reservation_check, dry_run, sysctl, panic_on_oops, panic_on_warn;
	bool report, kexec_checks, open_crash, build;
	const char *accel; /* auto | tcg | kvm */
	struct strv qemu_args;
	const char *append, *capture_append;
	long long log_cap; /* console, results, vmcore-dmesg: the most kept */
	const char *restore; /* a snapshot dir: restore instead of booting */
	bool cold; /* --cold: boot, even where the idle snapshot would do */
	/* --dump host: no crash kernel; pvpanic tells QEMU of the panic and
	 * the host dumps the paused guest (kdump stays the default)
	 */
	bool dump_host;
	bool warm; /* restore is the idle snapshot warm_choose() picked */
	char *cold_why; /* why a run that could start warm boots (warm.h) */
	char *restore_failed; /* the failed warm restore a cold boot follows */
	char *restore_failed_stage; /* its staging dir, for QEMU's log */
	int attempt; /* a campaign's attempt number, 0 if none */
	const char *campaign; /* the campaign dir of that attempt */
	enum display display;
};

/* What bpk keeps of the guest's output at most, by default: a broken
 * kernel or a reproducer can print for ever, and the disk is the host's.
 */
#define LOG_CAP_DEFAULT (64LL << 20)
/* A dump is at most the guest's memory, plus this for makedumpfile's
 * headers and bitmaps and the flattened format's record headers.
 */
#define DUMP_SLACK (64LL << 20)

void run_opts_init(struct run_opts *o);

/* The report of the filed run @dir (report.py), shown as @display shows
 * a run's; run.json's report state set from it. 0, or its exit status
 * after an error message.
 */
int run_report_filed(const char *dir, enum display display);

/* A run that was given no --crashkernel takes its kernel's measured one,
 * measuring a Debian kernel first if it never was. After the build.
 */
void run_reservation(struct run_opts *o, struct kernel_info *k);

/* The caps of a guest's streams for a guest of @mem bytes. */
struct guest;
void run_caps(struct guest *g, long long mem, long long log_cap);

/* Parse bpk run's arguments into @o (bad input: exit 2). @verb names the
 * verb in messages.
 */
void run_opts_parse(struct run_opts *o, int argc, char **argv,
		    const char *verb);

/* Check everything before anything boots; bad input exits 2. Resolves the
 * kernel into @k and the workload.
 */
void run_validate(struct run_opts *o, struct kernel_info *k);

/* Bring the build up to date for @k (make), unless o->build is off. */
void run_build(const struct run_opts *o, const struct kernel_info *k);

/* The whole run, validated: boot (or restore), supervise, file, report.
 * Returns bpk run's exit status; *@run_dir gets the filed run or NULL.
 */
int run_execute(struct run_opts *o, struct kernel_info *k, char **run_dir);

/* A trigger of the table and its "k=v k=v" arguments, checked by the
 * parser triggerctl uses; bad input (exit 2) otherwise.
 */
void trigger_check(const char *trigger, const char *args);

/* The trigger table's example workload of @trigger (absolute), or NULL. */
char *example_workload(const char *trigger);

#endif
