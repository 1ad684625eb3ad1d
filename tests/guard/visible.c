// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "progs.h"
#include "result.h"
#include "sysctl.h"
#include "visible.h"

#define SYSLOG_ACTION_READ_ALL 3

static char klog[256 * 1024];

/* The value of "@key:\t..." in @fd's fdinfo, or "" */
const char *fdinfo_value(int fd, const char *key)
{
	static char val[64];
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;

	val[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return val;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			snprintf(val, sizeof(val), "%s",
				 line + klen + 1 +
					 strspn(line + klen + 1, "\t "));
			val[strcspn(val, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
	return val;
}

static void check_load_warning(int fd)
{
	const char *id = "m.load_warning";
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char want[192];
	int n;

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		result(0, id, "cannot read the program's id: %s",
		       strerror(errno));
		return;
	}
	/* task, pid, id, name and tag: who armed what */
	snprintf(
		want, sizeof(want),
		"guard[%d] loaded BPF program %u (guard, tag %02x%02x%02x%02x%02x%02x%02x%02x) with BPF_F_DESTRUCTIVE",
		getpid(), info.id, info.tag[0], info.tag[1], info.tag[2],
		info.tag[3], info.tag[4], info.tag[5], info.tag[6],
		info.tag[7]);
	n = klogctl(SYSLOG_ACTION_READ_ALL, klog, sizeof(klog) - 1);
	if (n < 0) {
		result(0, id, "klogctl: %s", strerror(errno));
		return;
	}
	klog[n] = '\0';
	result(strstr(klog, want) != NULL, id, "kernel log %s \"%s\"",
	       strstr(klog, want) ? "has" : "lacks", want);
}

void check_visible(int msg_fd, char *log, size_t log_size)
{
	const struct prog_kind raw_tp = { "raw_tracepoint",
					  BPF_PROG_TYPE_RAW_TRACEPOINT, 0, NULL,
					  0 };
	const char *val;
	int fd, err;

	err = sysctl_write(DESTRUCTIVE_SYSCTL, "1");
	if (err) {
		result(0, "l.fdinfo_destructive",
		       "cannot enable the sysctl: %s", strerror(-err));
		return;
	}
	fd = load_panic_prog(&raw_tp, msg_fd, BPF_F_DESTRUCTIVE, log, log_size);
	if (fd < 0) {
		result(0, "l.fdinfo_destructive", "load -> %s, log: %s",
		       strerror(-fd), log);
		return;
	}
	val = fdinfo_value(fd, "destructive");
	result(!strcmp(val, "1"), "l.fdinfo_destructive",
	       "BPF_F_DESTRUCTIVE program: fdinfo destructive: \"%s\" (want 1)",
	       val);
	check_load_warning(fd);
	close(fd);

	/* a program that neither has the flag nor calls anything destructive
	 * says 0 (a crash_kexec kfunc caller says 1: g.crash_kexec_*)
	 */
	fd = load_plain_prog(&raw_tp, 0, log, log_size);
	if (fd < 0) {
		result(0, "l.fdinfo_not_destructive", "load -> %s, log: %s",
		       strerror(-fd), log);
		return;
	}
	val = fdinfo_value(fd, "destructive");
	result(!strcmp(val, "0"), "l.fdinfo_not_destructive",
	       "plain program without the flag: fdinfo destructive: \"%s\" (want 0)",
	       val);
	close(fd);
}
