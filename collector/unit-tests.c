// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the host-side parsers: the flattened dump stream, the
 * capture status record, the guest's progress lines, and the fire record
 * decoder. One "PASS|FAIL unit.<name>: ..." line per check; exit 1 on a FAIL.
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "fire_decode.h"
#include "flat.h"
#include "guestlog.h"
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
	v = flat_check(f, info, why, whylen);
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
	check(v == FLAT_BAD && strstr(why, "after the end"),
	      "flat.data_after_end", why);

	memset(&s, 0, sizeof(s));
	put_header(&s);
	put_record(&s, -5, 10, 0);
	v = run_flat(&s, &info, why, sizeof(why));
	check(v == FLAT_BAD, "flat.negative_offset", why);
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
	check(n > 0 && !state_decode(buf, (size_t)n, &st, err, sizeof(err)) &&
		      st.matches == 3 && st.fire.pid == 67 &&
		      !strcmp(st.fire.comm, "ab"),
	      "fire.decode_fields", "matches=3 pid=67 comm=ab");

	n = hexdump_parse("ffff0000:  01 02\nffff0020:  03 04\n", buf,
			  sizeof(buf), err, sizeof(err));
	check(n < 0 && strstr(err, "expected"), "fire.address_gap",
	      n < 0 ? err : "accepted");

	n = hexdump_parse("crash: invalid address\n", buf, sizeof(buf), err,
			  sizeof(err));
	check(n < 0, "fire.garbage", n < 0 ? err : "accepted");

	check(state_decode(buf, 10, &st, err, sizeof(err)) &&
		      strstr(err, "10 bytes"),
	      "fire.short_state", err);
}

int main(void)
{
	test_flat();
	test_status();
	test_guestlog();
	test_capture_panic();
	test_fire_decode();
	return failures ? 1 : 0;
}
