// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the guest protocol's host side (protocol.c: the guest's
 * command line, the control message, the console patterns), the escape of
 * guest text (escape.c), QEMU's command line (qemu.c), bpk's number
 * and size parsers (util.c) and bpk dump's socket (livedump.c). One line
 * per check, what was observed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpk.h"
#include "check.h"
#include "escape.h"
#include "livedump.h"
#include "protocol.h"
#include "qemu.h"
#include "supervise.h"

bool json_output;
bool pretty_output;
json_writer_t *json_wtr;
const char *bin_name = "protocol-test";

/* jw_* are not linked here: util.c's JSON error path is never taken */
void jw_start_object(json_writer_t *w)
{
	(void)w;
}

void jw_end_object(json_writer_t *w)
{
	(void)w;
}

void jw_string_field(json_writer_t *w, const char *n, const char *s)
{
	(void)w;
	(void)n;
	(void)s;
}

void jw_destroy(json_writer_t **w)
{
	(void)w;
}

static void test_cmdline(void)
{
	struct guest_params p = { 0 };
	char *c;

	p.trigger = "syscall_errno";
	p.args = "syscall=openat errno=ENOENT";
	p.repeat = 3;
	p.sysctl = p.reservation_check = p.panic_on_oops = true;
	p.crashkernel = "192M";
	c = guest_cmdline(&p);
	check("cmdline.run",
	      !strcmp(c,
		      "bpk.job=appliance bpk.trigger=syscall_errno bpk.repeat=3 bpk.args=syscall=openat,errno=ENOENT oops=panic crashkernel=192M"),
	      "%s", c);
	free(c);

	memset(&p, 0, sizeof(p));
	p.trigger = "warn";
	p.repeat = 0;
	p.dry = p.kexec_checks = p.panic_on_warn = p.preinit = true;
	p.panic_softlockup = p.panic_hung = p.panic_rcu = p.nmi_panic = true;
	p.capture_append = "initcall_debug ignore_loglevel";
	p.append = "quiet loglevel=3";
	p.crashkernel = "none";
	p.attempt = 7;
	c = guest_cmdline(&p);
	check("cmdline.every_switch",
	      !strcmp(c,
		      "bpk.job=appliance bpk.trigger=warn bpk.repeat=0 bpk.dry=1 bpk.capture_append=initcall_debug,ignore_loglevel bpk.kexec_checks=1 quiet loglevel=3 bpk.sysctl=0 bpk.reservation_check=0 panic_on_warn=1 softlockup_panic=1 hung_task_panic=1 sysctl.kernel.panic_on_rcu_stall=1 unknown_nmi_panic rdinit=/etc/bpk/preinit bpk.attempt=7"),
	      "%s", c);
	free(c);

	memset(&p, 0, sizeof(p));
	p.control = true;
	p.repeat = -1;
	p.sysctl = p.reservation_check = true;
	p.crashkernel = "192M";
	c = guest_cmdline(&p);
	check("cmdline.snapshot_unarmed",
	      !strcmp(c, "bpk.job=appliance bpk.control=1 crashkernel=192M"),
	      "%s", c);
	free(c);
}

static void test_control(void)
{
	struct guest_params p = { 0 };
	char *h;

	p.trigger = "tracepoint";
	p.args = "tp=sched:sched_process_fork comm=forker";
	p.repeat = 2;
	p.sysctl = p.panic_on_oops = true;
	p.attempt = 4;
	h = control_header(&p, "00ff", 1234);
	check("control.header",
	      h && !strcmp(h,
			   "BPK-CONTROL trigger=tracepoint args=tp=sched:sched_process_fork,comm=forker repeat=2 dry=0 sysctl=1 panic_on_oops=1 panic_on_warn=0 softlockup_panic=0 hung_task_panic=0 panic_on_rcu_stall=0 unknown_nmi_panic=0 dump=kdump attempt=4 seed=00ff size=1234\n"),
	      "%s", vis(h));
	free(h);
	p.panic_softlockup = p.panic_rcu = p.nmi_panic = true;
	p.host_time = 1796650000;
	h = control_header(&p, "00ff", 0);
	check("control.header_stall_clock",
	      h && !strcmp(h,
			   "BPK-CONTROL trigger=tracepoint args=tp=sched:sched_process_fork,comm=forker repeat=2 dry=0 sysctl=1 panic_on_oops=1 panic_on_warn=0 softlockup_panic=1 hung_task_panic=0 panic_on_rcu_stall=1 unknown_nmi_panic=1 dump=kdump attempt=4 seed=00ff time=1796650000 size=0\n"),
	      "%s", vis(h));
	free(h);
	p.trigger = "short_pipe_write";
	p.args = "comm=python3";
	p.panic_softlockup = p.panic_rcu = p.nmi_panic = false;
	p.dump_host = true;
	p.prog_size = 18446744073709551615ULL;
	h = control_header(&p, "00ff", 7);
	check("control.header_prog_dump_host",
	      h && !strcmp(h,
			   "BPK-CONTROL trigger=short_pipe_write args=comm=python3 repeat=2 dry=0 sysctl=1 panic_on_oops=1 panic_on_warn=0 softlockup_panic=0 hung_task_panic=0 panic_on_rcu_stall=0 unknown_nmi_panic=0 dump=host attempt=4 seed=00ff time=1796650000 prog_size=18446744073709551615 size=7\n"),
	      "%s", vis(h));
	free(h);
}

/* The records console_next_record() finds in @line, each as
 * "<message|stamp|facility>", in a static buffer.
 */
static const char *records_of(const char *line)
{
	static char got[512];
	const char *p = line, *end = line + strlen(line), *m;
	size_t mlen, used = 0;
	double st;
	int fac;

	got[0] = '\0';
	while ((m = console_next_record(p, end, &mlen, &st, &fac))) {
		used += (size_t)snprintf(got + used, sizeof(got) - used,
					 "<%.*s|%g|%d>", (int)mlen, m, st, fac);
		if (used >= sizeof(got))
			break;
		p = m + mlen;
	}
	return got;
}

static void test_patterns(void)
{
	static const struct {
		const char *line;
		int kind;
		double stamp;
		int facility;
	} lines[] = {
		{ "[    4.770852] Kernel panic - not syncing: bpf_panic trigger x fired",
		  PAT_PANIC, 4.770852, -1 },
		{ "[    0.000000] Command line: console=ttyS0\r", PAT_BOOT, 0,
		  -1 },
		{ "[   12.1] BUG: kernel NULL pointer dereference", PAT_OOPS,
		  12.1, -1 },
		{ "[   12.1] WARNING: CPU: 0 PID: 1 at x.c:1", PAT_WARNING,
		  12.1, -1 },
		{ "[   9.9] sysrq: Trigger a crash", PAT_SYSRQ, 9.9, -1 },
		{ "[   1.5] ---[ end trace 0000000000000000 ]---",
		  PAT_END_TRACE, 1.5, -1 },
		/* anchored: the words inside a line are not a panic */
		{ "[    4.7] user says Kernel panic - not syncing: fake", -1,
		  4.7, -1 },
		{ "echo Kernel panic - not syncing: fake", -1, -1, -1 },
		{ "no stamp Oops: ", -1, -1, -1 },
		/* console_msg_format=syslog: the facility before the stamp */
		{ "<0>[    4.7] Kernel panic - not syncing: x", PAT_PANIC, 4.7,
		  0 },
		{ "<14>[    4.7] Kernel panic - not syncing: fake", PAT_PANIC,
		  4.7, 1 },
		{ "<191>[    4.7] Oops: ", PAT_OOPS, 4.7, 23 },
		/* no stamp after it, too many digits, no digits: no prefix */
		{ "<0>Kernel panic - not syncing: x", -1, -1, -1 },
		{ "<123456789>[    4.7] Oops: ", -1, -1, -1 },
		{ "<>[    4.7] Oops: ", -1, -1, -1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		size_t mlen, tag;
		double stamp;
		int facility, want_facility = lines[i].facility;
		const char *msg = console_message(lines[i].line,
						  strlen(lines[i].line), &mlen,
						  &stamp, &facility);
		int kind = console_match(msg, mlen, SCOPE_LINE, &tag);
		char name[64];

		snprintf(name, sizeof(name), "patterns.line%zu", i);
		check(name,
		      kind == lines[i].kind && stamp == lines[i].stamp &&
			      facility == want_facility,
		      "%s: kind %d (want %d), stamp %g (want %g), facility %d (want %d)",
		      vis(lines[i].line), kind, lines[i].kind, stamp,
		      lines[i].stamp, facility, want_facility);
	}
	{
		const char *m = "sysrq triggered crash";

		check("patterns.panic_sysrq",
		      console_match(m, strlen(m), SCOPE_PANIC, NULL) ==
			      PAT_SYSRQ,
		      "%s: %d", m,
		      console_match(m, strlen(m), SCOPE_PANIC, NULL));
		m = "NMI: Not continuing";
		check("patterns.panic_nmi",
		      console_match(m, strlen(m), SCOPE_PANIC, NULL) == PAT_NMI,
		      "%s: %d", m,
		      console_match(m, strlen(m), SCOPE_PANIC, NULL));
		m = "bpf_panic trigger hung_task fired: pid=3";
		check("patterns.panic_trigger",
		      console_match(m, strlen(m), SCOPE_PANIC, NULL) ==
			      PAT_TRIGGER,
		      "%s: %d", m,
		      console_match(m, strlen(m), SCOPE_PANIC, NULL));
	}
	{
		/* a record that begins mid-line, after a task's text */
		const char *got = records_of(
			"flood 12 xxx[    7.100000] Kernel panic - not syncing: bpf_panic trigger t fired[    7.2] next");

		check("patterns.records_mid_line",
		      !strcmp(got,
			      "<flood 12 xxx|-1|-1><Kernel panic - not syncing: bpf_panic trigger t fired|7.1|-1><next|7.2|-1>"),
		      "%s", got);
		/* in syslog format a record starts at its "<N>" */
		got = records_of(
			"task text<14>[    7.000000] Kernel panic - not syncing: fake<0>[    7.100000] Kernel panic - not syncing: real");
		check("patterns.records_syslog",
		      !strcmp(got,
			      "<task text|-1|-1><Kernel panic - not syncing: fake|7|1><Kernel panic - not syncing: real|7.1|0>"),
		      "%s", got);
	}
	check("patterns.table_loaded", n_console_patterns >= 10,
	      "%zu patterns from lib/console-patterns", n_console_patterns);
}

static void test_escape(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{ "plain text", 10, "plain text" },
		{ "\033]0;title\007", 10, "\\x1b]0;title\\x07" },
		{ "a\nb\rc\vd\fe", 9, "a\\x0ab\\x0dc\\x0bd\\x0ce" },
		{ "back\\slash", 10, "back\\slash" },
		{ "\xe2\x80\xa8sep", 6, "\\xe2\\x80\\xa8sep" },
		{ "\xc2\x85nel", 5, "\\xc2\\x85nel" },
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },
		{ "bad\xff\xfe", 5, "bad\\xff\\xfe" },
		{ "over\xc0\xaf", 6, "over\\xc0\\xaf" },
		{ "cut\xe2\x82", 5, "cut\\xe2\\x82" },
		{ "del\x7f", 4, "del\\x7f" },
		{ "nul\0after", 9, "nul\\x00after" },
		/* bidi override, isolate, zero-width space, BOM */
		{ "a\xe2\x80\xae"
		  "b",
		  5, "a\\xe2\\x80\\xaeb" },
		{ "\xe2\x81\xa6x", 4, "\\xe2\\x81\\xa6x" },
		{ "z\xe2\x80\x8bw", 5, "z\\xe2\\x80\\x8bw" },
		{ "\xef\xbb\xbf"
		  "bom",
		  6, "\\xef\\xbb\\xbfbom" },
		/* their neighbours are text */
		{ "\xe2\x80\xaf\xe2\x81\xaa", 6, "\xe2\x80\xaf\xe2\x81\xaa" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = escape_text(cases[i].in, cases[i].len);
		char name[64];

		snprintf(name, sizeof(name), "escape.case%zu", i);
		check(name, got && !strcmp(got, cases[i].want), "%s -> %s",
		      vis_len(cases[i].in, cases[i].len), vis(got));
		free(got);
	}
	{
		const char *raw = "a\033[2Jb\xff\\x1b";
		char *once = escape_text(raw, strlen(raw));
		char *twice = once ? escape_text(once, strlen(once)) : NULL;

		check("escape.idempotent",
		      once && twice && !strcmp(once, twice), "%s -> %s -> %s",
		      vis(raw), vis(once), vis(twice));
		free(once);
		free(twice);
	}
	{
		char buf[8];

		escape_into(buf, sizeof(buf), "\001\002\003", 3);
		check("escape.cut_at_a_whole_escape", !strcmp(buf, "\\x01"),
		      "%s", vis(buf));
	}
}

static bool has_arg(const struct strv *a, const char *want)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], want))
			return true;
	return false;
}

static void test_qemu_argv(void)
{
	struct guest g = { 0 };
	struct qemu_setup q = { 0 };
	struct strv a = { 0 }, extra = { 0 };
	int iname = -1, idev = -1, ictl = -1;

	for (int i = 0; i < S_NSTREAMS; i++)
		g.qemu_fd[i] = 10 + i;
	g.qemu_control_fd = 20;
	g.qemu_qmp_fd = 21;
	strv_add(&extra, "-virtfs");
	strv_add(
		&extra,
		"local,path=/usr,mount_tag=hostusr,security_model=none,readonly=on");
	q.accel = "tcg";
	q.mem = "1G";
	q.smp = 2;
	q.kernel_image = "/k/bzImage";
	q.initrd = "/w/initrd";
	q.append = "bpk.job=appliance";
	q.name = "/runs,odd/.staging-x";
	q.ram_file = "/c/snap,1/ram";
	q.ram_shared = false;
	q.incoming = true;
	q.extra = &extra;
	qemu_argv(&q, &g, &a);
	for (int i = 0; i < a.n; i++) {
		if (!strcmp(a.v[i], "guest=bpk:/runs,,odd/.staging-x"))
			iname = i;
		if (!strcmp(a.v[i],
			    "virtserialport,chardev=port1,name=results"))
			idev = i;
		if (!strcmp(a.v[i],
			    "virtserialport,chardev=bpkctl,name=control"))
			ictl = i;
	}
	check("qemu.name_escaped", iname > 0, "-name %s",
	      iname > 0 ? a.v[iname] : "missing");
	check("qemu.console_on_socket",
	      has_arg(&a, "socket,id=console,fd=10") &&
		      has_arg(&a, "chardev:console"),
	      "%s", has_arg(&a, "socket,id=console,fd=10") ? "fd 10" : "no");
	check("qemu.ports_then_control", idev > 0 && ictl > idev,
	      "results port at %d, control at %d", idev, ictl);
	check("qemu.ram_backend_escaped",
	      has_arg(&a,
		      "memory-backend-file,id=bpkmem,size=1G,mem-path=/c/snap,,1/ram,share=off"),
	      "%s",
	      has_arg(&a, "-incoming") ? "incoming defer" : "no -incoming");
	check("qemu.qmp_monitor",
	      has_arg(&a, "socket,id=qmp,fd=21") &&
		      has_arg(&a, "chardev=qmp,mode=control"),
	      "qmp %s",
	      has_arg(&a, "socket,id=qmp,fd=21") ? "fd 21" : "missing");
	check("qemu.append_base",
	      has_arg(&a, GUEST_CMDLINE_BASE " bpk.job=appliance") &&
		      strstr(GUEST_CMDLINE_BASE, "console_msg_format=syslog"),
	      "%s", GUEST_CMDLINE_BASE " + the guest's words");
	check("qemu.extra_last", a.n >= 2 && !strcmp(a.v[a.n - 2], "-virtfs"),
	      "last two: %s %s", a.n >= 2 ? a.v[a.n - 2] : "?",
	      a.n >= 1 ? a.v[a.n - 1] : "?");
	check("qemu.tcg", has_arg(&a, "tcg") && has_arg(&a, "max"),
	      "-accel tcg -cpu max: %s", has_arg(&a, "tcg") ? "yes" : "no");
	strv_free(&a);
	strv_free(&extra);
}

static void test_parsers(void)
{
	check("size.512M", parse_size("512M") == 512LL << 20, "%lld",
	      parse_size("512M"));
	check("size.1G", parse_size("1G") == 1LL << 30, "%lld",
	      parse_size("1G"));
	check("size.no_unit", parse_size("512") == -1, "%lld",
	      parse_size("512"));
	check("size.lower_unit", parse_size("1g") == -1, "%lld",
	      parse_size("1g"));
	check("size.overflow", parse_size("99999999999999G") == -1, "%lld",
	      parse_size("99999999999999G"));
	check("num.range",
	      parse_num("5", 1, 10) == 5 && parse_num("0", 1, 10) == -1 &&
		      parse_num("11", 1, 10) == -1,
	      "5 %lld, 0 %lld, 11 %lld", parse_num("5", 1, 10),
	      parse_num("0", 1, 10), parse_num("11", 1, 10));
	check("num.text",
	      parse_num("5x", 0, 10) == -1 && parse_num("-1", -5, 10) == -1,
	      "5x %lld, -1 %lld", parse_num("5x", 0, 10),
	      parse_num("-1", -5, 10));
	{
		char *e = qemu_escape("a,b,,c");

		check("qemu_escape", !strcmp(e, "a,,b,,,,c"), "%s", e);
		free(e);
	}
	check("has_control",
	      has_control("a\rb") && has_control("\x7f") &&
		      !has_control("plain words"),
	      "\\r %d, DEL %d, plain %d", has_control("a\rb"),
	      has_control("\x7f"), has_control("plain words"));
}

/*
 * bpk dump's socket in a staging dir deeper than a socket address holds
 * (sun_path: 108 bytes): listened on and reached through the dir's fd; a
 * reply line with a newline inside stays one line; a dir with no run in
 * progress is named in the error.
 */
static void test_livedump(void)
{
	char base[] = "/tmp/bpk-livedump-test.XXXXXX", err[512], got[256];
	char *dir, *sock;
	int l, c, a;
	ssize_t n;

	if (!mkdtemp(base)) {
		check("livedump.tmpdir", false, "%s", strerror(errno));
		return;
	}
	dir = xasprintf("%s/%0150d", base, 0);
	check("livedump.deep_dir", !mkdir(dir, 0700) && strlen(dir) > 108,
	      "%zu bytes", strlen(dir));
	l = livedump_listen(dir, err, sizeof(err));
	check("livedump.listen", l >= 0, "%s", l >= 0 ? "listening" : err);
	c = livedump_connect(dir, err, sizeof(err));
	check("livedump.connect", c >= 0, "%s", c >= 0 ? "connected" : err);
	a = l >= 0 ? accept(l, NULL, NULL) : -1;
	{
		int bad = a >= 0 ? livedump_peer_ok(a, err, sizeof(err)) : -1;

		check("livedump.peer_is_mine", a >= 0 && !bad, "%s",
		      a < 0 ? "no connection" :
		      bad   ? err :
			      "this uid's");
	}
	if (a >= 0 && c >= 0) {
		livedump_say(a, "error", "two\nlines");
		n = recv(c, got, sizeof(got) - 1, 0);
		got[n > 0 ? n : 0] = '\0';
		check("livedump.one_line", !strcmp(got, "error two lines\n"),
		      "'%.*s'", (int)strcspn(got, "\n"), got);
	} else {
		check("livedump.one_line", false, "no connection");
	}
	if (a >= 0)
		close(a);
	if (c >= 0)
		close(c);
	if (l >= 0)
		close(l);
	sock = path_join(dir, LIVE_DUMP_SOCK);
	unlink(sock);
	c = livedump_connect(dir, err, sizeof(err));
	check("livedump.gone", c < 0 && strstr(err, "no longer in progress"),
	      "%s", err);
	if (c >= 0)
		close(c);
	free(sock);
	rmdir(dir);
	rmdir(base);
	free(dir);
}

/*
 * As root only (tests/02-build runs it so): a client of another uid is
 * refused by the run's end of a live-dump socket. The child drops to
 * nobody before it connects: SO_PEERCRED reports who connected.
 */
static void test_peer_other_uid(void)
{
	char base[] = "/tmp/bpk-peer-test.XXXXXX", err[512] = "";
	int l, a = -1, st = 0;
	pid_t pid;

	if (!mkdtemp(base) || chmod(base, 0755)) {
		check("peer.tmpdir", false, "%s", strerror(errno));
		return;
	}
	l = livedump_listen(base, err, sizeof(err));
	if (l < 0) {
		check("peer.listen", false, "%s", err);
		return;
	}
	{
		char *sock = path_join(base, LIVE_DUMP_SOCK);

		if (chmod(sock, 0777))
			check("peer.sock_mode", false, "%s", strerror(errno));
		free(sock);
	}
	pid = fork();
	if (pid == 0) {
		int c;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		/* the client's end refuses a listener that is not its
		 * user's or root's: root is, so it connects
		 */
		c = livedump_connect(base, err, sizeof(err));
		if (c < 0)
			_exit(4);
		sleep(1);
		_exit(0);
	}
	for (int i = 0; i < 50 && a < 0; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		a = accept4(l, NULL, NULL, SOCK_NONBLOCK);
		if (a < 0)
			nanosleep(&ts, NULL);
	}
	check("peer.other_uid_refused",
	      a >= 0 && livedump_peer_ok(a, err, sizeof(err)) == -1 &&
		      strstr(err, "uid 65534"),
	      "%s", a >= 0 ? err : "no connection");
	if (a >= 0)
		close(a);
	waitpid(pid, &st, 0);
	check("peer.child_connected", WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(l);
	{
		char *cmd = xasprintf("rm -rf %s", base);

		if (system(cmd))
			check("peer.cleanup", false, "%s", cmd);
		free(cmd);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--peer-other-uid")) {
		if (geteuid()) {
			check("peer.as_root", false, "uid %u: run as root",
			      (unsigned)geteuid());
			return checks_done("protocol-test --peer-other-uid");
		}
		test_peer_other_uid();
		return checks_done("protocol-test --peer-other-uid");
	}
	test_cmdline();
	test_control();
	test_patterns();
	test_escape();
	test_qemu_argv();
	test_parsers();
	test_livedump();
	return checks_done("protocol-test");
}
