// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the host-side parsers: the flattened dump stream, the
 * capture status record, the guest's progress lines, and the fire record
 * decoder. One "PASS|FAIL unit.<name>: ..." line per check; exit 1 on a FAIL.
 */
#include <endian.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "fire_decode.h"
#include "flat.h"
#include "guestlog.h"
#include "hostdump.h"
#include "status.h"

static int failures;

static void check(int ok, const char *name, const char *detail)
{
	printf("%s unit.%s: %s\n", ok ? "PASS" : "FAIL", name, detail);
	failures += !ok;
}

/* A flattened stream in memory, built piece by piece. */
struct stream {
	unsigned char buf[8192 + 4096];
	size_t len;
};

static void put(struct stream *s, const void *p, size_t n)
{
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_header(struct stream *s)
{
	unsigned char h[4096] = { 0 };
	uint64_t one = htobe64(1);

	memcpy(h, "makedumpfile", 12);
	memcpy(h + 16, &one, 8);
	memcpy(h + 24, &one, 8);
	put(s, h, sizeof(h));
}

static void put_record(struct stream *s, int64_t off, int64_t size, int data)
{
	uint64_t hdr[2] = { htobe64((uint64_t)off), htobe64((uint64_t)size) };
	unsigned char zeros[512] = { 0 };

	put(s, hdr, sizeof(hdr));
	if (data && size > 0)
		put(s, zeros, (size_t)size);
}

static enum flat_verdict run_flat(struct stream *s, struct flat_info *info,
				  char *why, size_t whylen)
{
	FILE *f = fmemopen(s->buf, s->len ? s->len : 1, "r");
	enum flat_verdict v;

	if (!s->len)
		fgetc(f); /* an empty stream: fmemopen needs a size > 0 */
	v = flat_check(f, 0, info, why, whylen);
	fclose(f);
	return v;
}

static enum flat_verdict flat_check_mem(struct stream *s, uint64_t bound,
					struct flat_info *info, char *why,
					size_t whylen)
{
	FILE *f = fmemopen(s->buf, s->len, "r");
	enum flat_verdict v = flat_check(f, bound, info, why, whylen);

	fclose(f);
	return v;
}

static void test_flat(void)
{
	struct stream s;
	struct flat_info info;
	char why[256], detail[512];
	enum flat_verdict v;

	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, 0, 100, 1);
	put_record(&s, 4096, 200, 1);
	put_record(&s, -1, -1, 0);
	v = run_flat(&s, &info, why, sizeof(why));
	snprintf(detail, sizeof(detail), "%s, %llu records, extent %llu",
		 flat_verdict_name(v), (unsigned long long)info.records,
		 (unsigned long long)info.extent);
	check(v == FLAT_COMPLETE && info.records == 2 && info.extent == 4296 &&
		      info.data_bytes == 300,
	      "flat.complete", detail);

	s.len -= 16; /* drop the end marker */
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_NO_END, "flat.no_end_marker", why);

	s.len -= 50; /* cut inside the second record's data */
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_TRUNCATED && strstr(why, "record 2"),
	      "flat.cut_in_data", why);

	s.len = 4096 + 16 + 100 + 7; /* cut inside the second record header */
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_TRUNCATED && strstr(why, "record header 2"),
	      "flat.cut_in_record_header", why);

	s.len = 1000; /* cut inside the file header */
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_TRUNCATED, "flat.cut_in_header", why);

	s.len = 0;
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_EMPTY, "flat.empty", why);

	memset(&s, 0, sizeof(s));
	put_header(&s);
	memcpy(s.buf, "notadumpfile", 12);
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_BAD, "flat.bad_signature", why);

	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, 0, 10, 1);
	put_record(&s, -1, -1, 0);
	put(&s, "x", 1);
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_TRAILING && strstr(why, "trailing data") &&
		      info.trailing_bytes == 1 && info.records == 1,
	      "flat.trailing_data_not_incomplete", why);

	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, -5, 10, 0);
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_BAD, "flat.negative_offset", why);

	/* the guest chooses the offsets: one 8 TiB out is not a vmcore of
	 * a 1 GiB guest, whatever the stream says
	 */
	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, (8LL << 40) - 4096, 100, 1);
	put_record(&s, -1, -1, 0);
	v = flat_check_mem(&s, 1ULL << 30, &info, why, sizeof(why));
	snprintf(detail, sizeof(detail), "%s: %s", flat_verdict_name(v),
		 v == FLAT_BAD ? why : "accepted");
	check(v == FLAT_BAD && strstr(why, "beyond"), "flat.offset_past_memory",
	      detail);
	v = run_flat(&s, &info, why, sizeof(why));
	snprintf(detail, sizeof(detail), "%s, extent %llu (no bound given)",
		 flat_verdict_name(v), (unsigned long long)info.extent);
	check(v == FLAT_COMPLETE && info.extent == (8ULL << 40) - 4096 + 100,
	      "flat.unbounded_extent_as_written", detail);
	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, 0, INT64_MAX, 0);
	v = flat_check_mem(&s, 1ULL << 30, &info, why, sizeof(why));
	snprintf(detail, sizeof(detail), "%s: %s", flat_verdict_name(v),
		 v == FLAT_BAD ? why : "accepted");
	check(v == FLAT_BAD && strstr(why, "beyond"), "flat.size_past_memory",
	      detail);

	/* a record of no bytes is a record: it moves nothing */
	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, 4096, 0, 0);
	put_record(&s, 0, 10, 1);
	put_record(&s, -1, -1, 0);
	v = run_flat(&s, &info, why, sizeof(why));
	snprintf(detail, sizeof(detail), "%s, %llu records, extent %llu",
		 flat_verdict_name(v), (unsigned long long)info.records,
		 (unsigned long long)info.extent);
	check(v == FLAT_COMPLETE && info.records == 2 && info.extent == 4096,
	      "flat.zero_size_record", detail);
}

static void test_status(void)
{
	struct capture_status st;
	char err[256];
	int rc;

	rc = status_parse("status=success\nmakedumpfile_rc=0\nend\n", &st, err,
			  sizeof(err));
	check(!rc && !strcmp(status_get(&st, "status"), "success") &&
		      !strcmp(status_get(&st, "makedumpfile_rc"), "0"),
	      "status.ok", rc ? err : "status=success makedumpfile_rc=0");

	rc = status_parse("status=success\nmakedumpfile_rc=0\n", &st, err,
			  sizeof(err));
	check(rc && strstr(err, "end"), "status.no_end_is_cut_short",
	      rc ? err : "accepted");

	rc = status_parse("status=success\ngarbage\nend\n", &st, err,
			  sizeof(err));
	check(rc && strstr(err, "line 2"), "status.bad_line",
	      rc ? err : "accepted");

	rc = status_parse("status=success\nstatus=failed\nend\n", &st, err,
			  sizeof(err));
	check(rc && strstr(err, "twice"), "status.duplicate_key",
	      rc ? err : "accepted");

	rc = status_parse("dmesg_rc=0\nend\n", &st, err, sizeof(err));
	check(rc && strstr(err, "status="), "status.no_status_field",
	      rc ? err : "accepted");

	rc = status_parse("status=success\nend\nstatus=x\n", &st, err,
			  sizeof(err));
	check(rc && strstr(err, "after"), "status.text_after_end",
	      rc ? err : "accepted");
}

static void test_guestlog(void)
{
	struct guest_progress g;
	char detail[700];

	guestlog_scan(
		"BPK-STATE booted t=1.37\nBPK-STATE crash-kernel-loaded t=1.99 crash_size=1\n"
		"BPK-STATE armed t=2.20 trigger=x\n",
		"[    0.1] boot\r\n[    2.238384] Kernel panic - not syncing: hello %s world\r\n"
		"[    2.3] Kernel panic - not syncing: second\r\n",
		&g);
	snprintf(detail, sizeof(detail),
		 "armed %.2f panic %.6f msg '%s' state %s", g.armed, g.panic,
		 g.panic_msg, g.last_state);
	check(g.booted == 1.37 && g.armed == 2.20 && g.panic == 2.238384 &&
		      !strcmp(g.panic_msg, "hello %s world") &&
		      !strcmp(g.last_state, "armed"),
	      "guestlog.progress_and_first_panic", detail);

	guestlog_scan(
		"BPK-STATE booted t=1\nBPK-STATE refused t=2 reason=kexec -p failed: no crash kernel\n",
		"", &g);
	check(!strcmp(g.refused, "kexec -p failed: no crash kernel") &&
		      g.panic < 0,
	      "guestlog.refused_reason", g.refused);
}

static void test_capture_panic(void)
{
	struct guest_progress g;

	guestlog_scan(
		"",
		"[ 0.0] Command line: a\n[ 2.0] Kernel panic - not syncing: trig\n"
		"[ 2.1] Kernel panic - not syncing: again, same kernel\n"
		"[ 0.0] Command line: capture\n"
		"[ 1.1] Kernel panic - not syncing: System is deadlocked on memory\n",
		&g);
	check(!strcmp(g.panic_msg, "trig") &&
		      !strcmp(g.capture_panic,
			      "System is deadlocked on memory"),
	      "guestlog.capture_kernel_panic", g.capture_panic);
}

/* crash_kexec prints no panic line: a panic the capture kernel prints is
 * its own death, not the trigger's, and gives no fire time.
 */
static void test_crash_kexec_attribution(void)
{
	struct guest_progress g;
	char detail[2048];

	guestlog_scan(
		"BPK-STATE booted t=1.0\nBPK-STATE armed t=2.20 trigger=x action=crash_kexec\n",
		"[    0.000000] Command line: console=ttyS0 crashkernel=64M\r\n"
		"[    2.100000] something\r\n"
		"[    0.000000] Command line: console=ttyS0 irqpoll nr_cpus=1\r\n"
		"[    1.100000] Kernel panic - not syncing: System is deadlocked on memory\r\n",
		&g);
	snprintf(
		detail, sizeof(detail),
		"panic_msg '%s' panic %.2f capture_panic '%s' action %s boots %d",
		g.panic_msg, g.panic, g.capture_panic, g.action, g.boots);
	check(!g.panic_msg[0] && g.panic < 0 &&
		      !strcmp(g.capture_panic,
			      "System is deadlocked on memory") &&
		      !strcmp(g.action, "crash_kexec") && g.boots == 2,
	      "guestlog.crash_kexec_capture_panic_not_the_trigger", detail);
}

static void test_oops(void)
{
	struct guest_progress g;
	char detail[2048];

	guestlog_scan(
		"BPK-STATE armed t=2.2 trigger=none\n",
		"[    0.000000] Command line: console=ttyS0 oops=panic\r\n"
		"[    3.000001] lkdtm: Performing direct entry EXCEPTION\r\n"
		"[    3.000002] BUG: kernel NULL pointer dereference, address: 0000000000000000\r\n"
		"[    3.000003] #PF: supervisor write access in kernel mode\r\n"
		"[    3.000004] Oops: 0002 [#1] PREEMPT SMP NOPTI\r\n"
		"[    3.000005] RIP: 0010:lkdtm_EXCEPTION+0x5/0x10\r\n"
		"[    3.000006] RIP: 0010:later_one+0x1/0x2\r\n"
		"[    3.100000] Kernel panic - not syncing: Fatal exception\r\n"
		"[    0.000000] Command line: console=ttyS0 irqpoll\r\n"
		"[    0.500000] WARNING: CPU: 0 PID: 1 at capture.c:1 f+0x1/0x2\r\n",
		&g);
	snprintf(detail, sizeof(detail), "oops '%s' at '%s', panic '%s' %.6f",
		 g.oops, g.oops_where, g.panic_msg, g.panic);
	check(!strcmp(g.oops, "BUG: kernel NULL pointer dereference, address: "
			      "0000000000000000") &&
		      !strcmp(g.oops_where, "lkdtm_EXCEPTION+0x5/0x10") &&
		      !strcmp(g.panic_msg, "Fatal exception") &&
		      g.panic == 3.1 && !g.oops_ended,
	      "guestlog.oops_line_and_function", detail);

	/* panic_on_oops with kdump loaded: crash_kexec() from the oops, no
	 * panic line, no end of trace; without it the oops ends
	 */
	guestlog_scan(
		"",
		"[    0.000000] Command line: a\r\n"
		"[    3.000002] BUG: kernel NULL pointer dereference, address: 0\r\n"
		"[    3.000005] RIP: 0010:lkdtm_EXCEPTION+0x7/0xf\r\n"
		"[    3.000006] CR2: 0000000000000000\r\n"
		"[    0.000000] Command line: capture\r\n",
		&g);
	snprintf(detail, sizeof(detail), "oops '%s' ended %d boots %d", g.oops,
		 g.oops_ended, g.boots);
	check(g.oops[0] && !g.oops_ended && !g.panic_msg[0] && g.boots == 2,
	      "guestlog.oops_straight_to_kexec", detail);
	guestlog_scan("",
		      "[    3.000002] Oops: 0002 [#1] SMP\r\n"
		      "[    3.000006] ---[ end trace 0000000000000000 ]---\r\n",
		      &g);
	snprintf(detail, sizeof(detail), "oops '%s' ended %d", g.oops,
		 g.oops_ended);
	check(g.oops_ended, "guestlog.oops_ran_to_its_end", detail);
}

static void test_untrusted_lines(void)
{
	struct guest_progress g;
	char detail[2048];

	/* a task's words are not the kernel's: a panic line counts only
	 * where a kernel log record begins (its stamp), also mid-line after
	 * a task's text; control bytes ride along, escaped later by bpk
	 */
	guestlog_scan(
		"BPK-STATE armed t=2.0 trigger=x\vcause=forged\n",
		"[    0.000000] Command line: a\r\n"
		"echo Kernel panic - not syncing: fake\r\n"
		"[    2.5] user says Kernel panic - not syncing: fake too\r\n"
		"flood\033[2J xxx[    3.000000] Kernel panic - not syncing: real\033]0;t\007\r\n",
		&g);
	snprintf(detail, sizeof(detail), "panic '%s' at %.1f, state '%s'",
		 g.panic_msg, g.panic, g.last_state);
	check(!strcmp(g.panic_msg, "real\033]0;t\007") && g.panic == 3.0 &&
		      !strcmp(g.last_state, "armed"),
	      "guestlog.panic_only_where_a_record_begins", detail);

	/* an oops the kernel survived (its trace ended) is not the one that
	 * brought it down: a later one is
	 */
	guestlog_scan("",
		      "[ 1.0] WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\r\n"
		      "[ 1.1] ---[ end trace 0000000000000000 ]---\r\n"
		      "[ 2.0] BUG: unable to handle page fault\r\n"
		      "[ 2.1] RIP: 0010:g+0x2/0x3\r\n",
		      &g);
	snprintf(detail, sizeof(detail), "oops '%s' at '%s' ended %d", g.oops,
		 g.oops_where, g.oops_ended);
	check(!strcmp(g.oops, "BUG: unable to handle page fault") &&
		      !strcmp(g.oops_where, "g+0x2/0x3") && !g.oops_ended,
	      "guestlog.survived_oops_replaced", detail);

	/* console_msg_format=syslog, told by the first record: only the
	 * kernel's own (facility 0) count. A /dev/kmsg line is LOG_USER
	 * (<12>); one written straight to the console has no "<N>" or a
	 * forged one; firmware text before the first record decides nothing
	 */
	guestlog_scan(
		"",
		"SeaBIOS (version 1.16)\r\n"
		"<5>[    0.000000] Linux version 6.1\r\n"
		"<6>[    0.000000] Command line: console=ttyS0\r\n"
		"<12>[    2.0] Kernel panic - not syncing: from /dev/kmsg\r\n"
		"<12>[    2.1] BUG: from /dev/kmsg\r\n"
		"[    2.2] Kernel panic - not syncing: on /dev/console\r\n"
		"<0>[    3.0] Kernel panic - not syncing: real\r\n",
		&g);
	snprintf(
		detail, sizeof(detail),
		"syslog %d, panic '%s' at %.1f, oops '%s', %lu not the kernel's",
		g.syslog, g.panic_msg, g.panic, g.oops, g.not_kernel);
	check(g.syslog == 1 && !strcmp(g.panic_msg, "real") && g.panic == 3.0 &&
		      !g.oops[0] && g.not_kernel == 3,
	      "guestlog.syslog_kernel_records_only", detail);
	/* the capture kernel's boot is a kernel record too */
	guestlog_scan(
		"",
		"<6>[    0.000000] Command line: a\r\n"
		"<12>[    0.1] Command line: fake capture boot\r\n"
		"<0>[    3.0] Kernel panic - not syncing: real\r\n"
		"<6>[    0.000000] Command line: irqpoll\r\n"
		"<0>[    1.0] Kernel panic - not syncing: capture died\r\n",
		&g);
	snprintf(detail, sizeof(detail), "boots %d, panic '%s', capture '%s'",
		 g.boots, g.panic_msg, g.capture_panic);
	check(g.boots == 2 && !strcmp(g.panic_msg, "real") &&
		      !strcmp(g.capture_panic, "capture died"),
	      "guestlog.syslog_boots", detail);
	/* after "BPK-WORKLOAD" the job sends only not-fired or dry-run-done:
	 * another state is the guest's user space claiming it, not acted on
	 */
	guestlog_scan("BPK-STATE armed t=2.0 trigger=x action=bpf_panic\n"
		      "BPK-WORKLOAD t=2.1 runs=1\n"
		      "BPK-STATE refused t=2.2 reason=claimed\n"
		      "BPK-STATE armed t=2.3 trigger=y\n"
		      "BPK-STATE not-fired t=3.0 runs=1\n",
		      "", &g);
	snprintf(
		detail, sizeof(detail),
		"workload at %.1f, last state '%s', refused '%s', %lu claims, first '%s'",
		g.workload, g.last_state, g.refused, g.claims, g.claimed);
	check(g.workload == 2.1 && !strcmp(g.last_state, "not-fired") &&
		      !g.refused[0] && g.claims == 2 &&
		      !strcmp(g.claimed,
			      "BPK-STATE refused t=2.2 reason=claimed") &&
		      g.armed == 2.0,
	      "guestlog.claims_after_workload", detail);

	/* a plain console (a kernel without the option): every record */
	guestlog_scan("",
		      "[    0.0] Command line: a\r\n"
		      "[    3.0] Kernel panic - not syncing: plain\r\n",
		      &g);
	snprintf(detail, sizeof(detail), "syslog %d, panic '%s'", g.syslog,
		 g.panic_msg);
	check(g.syslog == 0 && !strcmp(g.panic_msg, "plain"),
	      "guestlog.plain_console", detail);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] =
		"FAIL unit.guestlog.linear: scanning did not finish in 20 s\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* 40 MiB of console, the panic on its last line: found, in linear time,
 * with nothing cut (the old scanner searched the rest of the buffer from
 * every line, and read only the first 32 MiB).
 */
static void test_linear(void)
{
	const size_t lines = 700000, width = 60;
	size_t len = lines * width;
	char *big = malloc(len + 200), detail[1024];
	struct guest_progress g;
	struct timespec a, b;
	double secs;

	if (!big) {
		check(0, "guestlog.linear", "out of memory");
		return;
	}
	for (size_t i = 0; i < lines; i++) {
		memset(big + i * width, 'x', width - 1);
		big[i * width] = '[';
		big[i * width + width - 1] = '\n';
	}
	strcpy(big + len,
	       "[ 9.0] Kernel panic - not syncing: at the very end\n");
	signal(SIGALRM, on_alarm);
	alarm(20);
	/* the scanner's own CPU time: what it costs, whatever else the
	 * machine runs beside it (run-all runs scripts side by side)
	 */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	guestlog_scan("", big, &g);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	alarm(0);
	secs = (double)(b.tv_sec - a.tv_sec) +
	       (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	snprintf(detail, sizeof(detail),
		 "%zu MiB, %lu lines in %.3f s of CPU, panic '%s'", len >> 20,
		 g.console_lines, secs, g.panic_msg);
	check(!strcmp(g.panic_msg, "at the very end") && secs < 2.0 &&
		      g.console_lines == lines + 1,
	      "guestlog.linear_40MiB_panic_at_end", detail);
	free(big);
}

/* A line longer than GUESTLOG_LINE_MAX from a file: scanned by its start,
 * counted, and the lines after it are still read.
 */
static void test_long_line_file(void)
{
	struct guest_progress g;
	char detail[1024];
	FILE *f = tmpfile();
	int rc;

	if (!f) {
		check(0, "guestlog.long_line_counted", "tmpfile failed");
		return;
	}
	fputs("[ 1.0] Command line: x\n", f);
	for (int i = 0; i < 3 * GUESTLOG_LINE_MAX; i++)
		fputc('y', f);
	fputs("\n[ 2.0] Kernel panic - not syncing: after the long line\n", f);
	rewind(f);
	guestlog_init(&g);
	rc = guestlog_scan_file(&g, f, 1);
	fclose(f);
	snprintf(detail, sizeof(detail),
		 "rc %d, %lu lines, %lu cut, panic '%s'", rc, g.console_lines,
		 g.lines_cut, g.panic_msg);
	check(!rc && g.lines_cut == 1 && g.console_lines == 3 &&
		      !strcmp(g.panic_msg, "after the long line"),
	      "guestlog.long_line_counted", detail);
}

static void test_fire_decode(void)
{
	unsigned char buf[sizeof(struct trigger_state)];
	struct trigger_state st;
	char text[8192], err[256], detail[300];
	size_t used = 0;
	long n;

	/* a state with a record, dumped the way crash's "rd -8" prints it */
	memset(&st, 0, sizeof(st));
	st.matches = 3;
	memcpy(st.fire.magic, FIRE_MAGIC, 8);
	strcpy(st.fire.trigger, "syscall_errno");
	strcpy(st.fire.comm, "ab"); /* ASCII column text that looks like hex */
	st.fire.pid = 67;
	memcpy(buf, &st, sizeof(st));
	for (size_t off = 0; off < sizeof(buf); off += 16) {
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "ffffa77a%08zx: ", 0x26000 + off);
		for (size_t i = off; i < off + 16 && i < sizeof(buf); i++)
			used += (size_t)snprintf(text + used,
						 sizeof(text) - used, " %02x",
						 buf[i]);
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "   ab ab\n");
	}
	n = hexdump_parse(text, buf, sizeof(buf), err, sizeof(err));
	snprintf(detail, sizeof(detail), "%ld bytes", n);
	check(n == (long)sizeof(st), "fire.hexdump_round_trip",
	      n < 0 ? err : detail);
	memset(&st, 0, sizeof(st));
	{
		int bad = n <= 0 ||
			  state_decode(buf, (size_t)n, &st, err, sizeof(err));

		snprintf(detail, sizeof(detail),
			 "%s matches=%llu pid=%u comm=%.16s",
			 bad ? err : "decoded", (unsigned long long)st.matches,
			 st.fire.pid, st.fire.comm);
		check(!bad && st.matches == 3 && st.fire.pid == 67 &&
			      !strcmp(st.fire.comm, "ab"),
		      "fire.decode_fields", detail);
	}

	n = hexdump_parse("ffff0000:  01 02\nffff0020:  03 04\n", buf,
			  sizeof(buf), err, sizeof(err));
	snprintf(detail, sizeof(detail), "accepted: %ld bytes", n);
	check(n < 0 && strstr(err, "expected"), "fire.address_gap",
	      n < 0 ? err : detail);

	n = hexdump_parse("crash: invalid address\n", buf, sizeof(buf), err,
			  sizeof(err));
	snprintf(detail, sizeof(detail), "accepted: %ld bytes", n);
	check(n < 0, "fire.garbage", n < 0 ? err : detail);

	check(state_decode(buf, 10, &st, err, sizeof(err)) &&
		      strstr(err, "10 bytes"),
	      "fire.short_state", err);
}

/* write @len bytes of @p to @path (created), 0 or -1 */
static int write_file(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(p, 1, len, f) == len;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/* the utsname field @i (0 sysname ... 4 machine) of the kdump file @path */
static void uts_field(const char *path, int i, char *out)
{
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (!f)
		return;
	if (fseek(f, 12 + i * UTS_FIELD, SEEK_SET) ||
	    fread(out, 1, UTS_FIELD, f) != UTS_FIELD)
		out[0] = '\0';
	out[UTS_FIELD - 1] = '\0';
	fclose(f);
}

/*
 * The host's dump made a vmcore: QEMU's flattened stream rearranged by
 * makedumpfile -R, its header's utsname completed from the kernel image's
 * version string, what is set kept; a stream cut short makes no vmcore and
 * is kept.
 */
static void test_host_dump(void)
{
	static const char vs[] =
		"6.1.192 (bpk@build (gcc 12)) #1 SMP PREEMPT_DYNAMIC Sun Dec  6 21:47:44 UTC 2026";
	char dir[] = "/tmp/unit-hostdump.XXXXXX", path[4][128], why[512];
	char rel[UTS_FIELD], ver[UTS_FIELD], got[5][UTS_FIELD], detail[1024];
	static unsigned char image[0x400], kdump[4096];
	struct stream *s = calloc(1, sizeof(*s));
	int32_t hv = 6;
	int rc;

	if (!s || !mkdtemp(dir)) {
		check(0, "host_dump.setup", "mkdtemp or calloc failed");
		free(s);
		return;
	}
	for (int i = 0; i < 4; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir,
			 (const char *[]){ "bzImage", "vmcore.host", "vmcore",
					   "notakernel" }[i]);
	memcpy(image + 0x202, "HdrS", 4);
	image[0x20e] = 0x00;
	image[0x20f] = 0x01; /* the string at 0x200 + 0x100 */
	memcpy(image + 0x300, vs, sizeof(vs));
	write_file(path[0], image, sizeof(image));
	write_file(path[3], "MZ not a kernel", 15);

	rc = bzimage_uts(path[0], rel, ver, why, sizeof(why));
	snprintf(detail, sizeof(detail),
		 "rc %d, release \"%s\", version \"%s\"", rc, rc ? "" : rel,
		 rc ? why : ver);
	check(!rc && !strcmp(rel, "6.1.192") &&
		      !strcmp(ver,
			      "#1 SMP PREEMPT_DYNAMIC Sun Dec  6 21:47:44 UTC 2026"),
	      "host_dump.bzimage_version", detail);
	rc = bzimage_uts(path[3], rel, ver, why, sizeof(why));
	check(rc == -1 && strstr(why, "no HdrS setup header") &&
		      strstr(why, path[3]),
	      "host_dump.not_a_kernel_image", why);

	/* QEMU's stream: the header record (machine set, the rest empty) */
	memcpy(kdump, "KDUMP   ", 8);
	memcpy(kdump + 8, &hv, 4);
	memcpy(kdump + 12 + 4 * UTS_FIELD, "x86_64", 6);
	put_header(s);
	{
		uint64_t rec[2] = { htobe64(0), htobe64(sizeof(kdump)) };

		put(s, rec, sizeof(rec));
		put(s, kdump, sizeof(kdump));
	}
	put_record(s, -1, -1, 0);
	write_file(path[1], s->buf, s->len);
	rc = host_dump_finish(path[1], path[2], 0, path[0], why, sizeof(why));
	for (int i = 0; i < 5; i++)
		uts_field(path[2], i, got[i]);
	snprintf(
		detail, sizeof(detail),
		"rc %d (%s), sysname \"%s\", release \"%s\", version \"%s\", machine \"%s\", stream %s",
		rc, rc ? why : "made", got[0], got[2], got[3], got[4],
		access(path[1], F_OK) ? "removed" : "left");
	check(rc == 0 && !strcmp(got[0], "Linux") &&
		      !strcmp(got[2], "6.1.192") &&
		      !strncmp(got[3], "#1 SMP", 6) &&
		      !strcmp(got[4], "x86_64") && access(path[1], F_OK),
	      "host_dump.made_and_filled", detail);

	/* a field the dump has is kept */
	rc = kdump_fill_uts(path[2], "9.9", "#9", why, sizeof(why));
	uts_field(path[2], 2, got[2]);
	snprintf(detail, sizeof(detail), "rc %d, release \"%s\"", rc, got[2]);
	check(rc == 0 && !strcmp(got[2], "6.1.192"),
	      "host_dump.set_fields_kept", detail);
	rc = kdump_fill_uts(path[0], "9.9", "#9", why, sizeof(why));
	check(rc == -1 && strstr(why, "not a kdump-compressed file"),
	      "host_dump.fill_refuses_other_files", why);

	/* cut short: no vmcore, the stream kept */
	unlink(path[2]);
	write_file(path[1], s->buf, s->len - 100);
	rc = host_dump_finish(path[1], path[2], 0, path[0], why, sizeof(why));
	snprintf(detail, sizeof(detail), "rc %d: %s; vmcore %s, stream %s", rc,
		 why, access(path[2], F_OK) ? "absent" : "present",
		 access(path[1], F_OK) ? "gone" : "kept");
	check(rc == -1 && access(path[2], F_OK) && !access(path[1], F_OK),
	      "host_dump.truncated_stream_kept", detail);

	/* made, but the image names no release: said, the vmcore kept */
	write_file(path[1], s->buf, s->len);
	rc = host_dump_finish(path[1], path[2], 0, path[3], why, sizeof(why));
	snprintf(detail, sizeof(detail), "rc %d: %s; vmcore %s", rc, why,
		 access(path[2], F_OK) ? "absent" : "present");
	check(rc == 1 && !access(path[2], F_OK) && strstr(why, "no HdrS"),
	      "host_dump.header_unfilled_said", detail);

	for (int i = 0; i < 4; i++)
		unlink(path[i]);
	rmdir(dir);
	free(s);
}

int main(void)
{
	test_flat();
	test_status();
	test_guestlog();
	test_capture_panic();
	test_crash_kexec_attribution();
	test_oops();
	test_untrusted_lines();
	test_linear();
	test_long_line_file();
	test_fire_decode();
	test_host_dump();
	return failures ? 1 : 0;
}
