/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filing one run on the host, after QEMU has exited: what the guest sent
 * is checked, every file is named for what it is inside the staging dir,
 * the run record is written there, and only then is the staging dir
 * renamed to RUNS/<UTC time>-<trigger>[-N]/ (never over another run). A
 * failure at any point leaves every byte the guest sent in the staging
 * dir.
 *
 * The staging dir holds console.log and, from the virtio ports,
 * results.txt (the guest job), dmesg.txt, dump.flat (makedumpfile -F) and
 * status.txt (the capture step's record). The run holds
 *   vmcore             rebuilt by makedumpfile -R from a complete stream whose
 *                      size and signature check out
 *   vmcore.incomplete  the raw stream when it was cut short
 *   vmcore.flat        the raw stream when it is whole but did not (only)
 *                      verify: trailing data, bad records, -R failed
 *   vmcore-dmesg.txt, console.log, guest.log, capture-status.txt, run.json
 */
#ifndef BPK_COLLECT_H
#define BPK_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guestlog.h"
#include "record.h"

struct collect_in {
	const char *staging, *runs, *trigger;
	bool dry_run; /* no dump expected: success is "dry-run-done" */
	const char *interrupted; /* the signal's name, or NULL */
	/* the most a dump of this guest can be: its memory + slack (0 is
	 * refused: the guest chooses the offsets); a stream beyond it is
	 * kept, never rebuilt
	 */
	unsigned long long max_dump;
	/* what the guest said, as scanned while it said it (bpk run): whole
	 * even where a file was cut at its cap; NULL: scan the staging
	 * files (bpk collect)
	 */
	const struct guest_progress *progress;
	/* bpk injected an NMI into a guest that made no progress (--stall):
	 * an NMI panic is the stall's
	 */
	bool nmi_injected;
	/* the host took the guest's dump (HOST_DUMP_FILE in the staging
	 * dir) because the capture kernel died or fell silent: why
	 */
	const char *host_dump_why;
	/* the kernel image the guest booted: it names the release and
	 * version the host's dump's header lacks
	 */
	const char *kernel_image;
	/* the capture kernel died or fell silent after the first kernel
	 * went down, whether or not the host's dump then worked: the run's
	 * cause.after
	 */
	bool capture_died;
	/* CLOCK_MONOTONIC ms when the host saw the guest go down, 0: never;
	 * times timings.down_to_filed_s
	 */
	int64_t down_ms;
	/* QEMU paused the guest on its pvpanic report (--dump host): it
	 * panicked, whatever its console managed to say
	 */
	bool pvpanicked;
};

enum collect_result {
	COLLECT_SUCCESS = 0, /* filed: a verified dump (or a completed dry
			      * run) and nothing failed
			      */
	COLLECT_FAILED = 1, /* filed, failed or interrupted: rec->reason */
	COLLECT_BAD_INPUT = 2, /* nothing touched: @err */
	COLLECT_UNFILED = 3, /* an I/O error, named in @err: everything is
			      * still in the staging dir
			      */
};

/*
 * File the run. @rec comes pre-filled by the caller with what the host
 * knows (trigger.args, guest, qemu, campaign, timings.qemu_wall ...); this
 * fills in the rest (id, status, reason, cause, console, dump, the guest's
 * timings) and writes it as RUN/run.json. *@run_dir gets the run's
 * directory (malloc'd) when it was filed.
 */
enum collect_result collect_run(const struct collect_in *in,
				struct run_record *rec, char **run_dir,
				char *err, size_t errlen);

#endif
