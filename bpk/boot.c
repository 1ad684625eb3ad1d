// SPDX-License-Identifier: GPL-2.0
/*
 * bpk boot: a guest image booted under the same supervision as a run, no
 * trigger, no filing: the test suite's and the benchmarks' guests (a job
 * of their own in their own initramfs). The console and the ports land in
 * OUT/ (console.log, results.txt, dmesg.txt, dump.flat, status.txt).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "kernels.h"
#include "qemu.h"
#include "run.h"
#include "supervise.h"

static void usage_boot(void)
{
	printf("usage: bpk boot --initrd CPIO --out DIR [--kernel ours|debian|debian:RELEASE|PATH] [--append STR]\n"
	       "                [--timeout S] [--mem SIZE] [--smp N] [--accel auto|tcg|kvm]\n"
	       "                [--bzimage FILE] [--quiet] [-- QEMU-ARGS ...]\n"
	       "       bpk boot --probe-accel [--kernel ours|debian|debian:RELEASE|PATH]\n"
	       "\n"
	       "Boot the kernel with CPIO as its initramfs (the job it runs named by\n"
	       "bpk.job= in --append), under bpk's supervision; the console and the\n"
	       "virtio-serial ports are written into DIR. --probe-accel: print what\n"
	       "--accel auto picks (kvm or tcg). --bzimage: boot FILE instead of the\n"
	       "kernel's own image (a variant build of it, as the tests make).\n"
	       "Exit: QEMU's status; 124 killed at the timeout; 125 stopped on a full\n"
	       "file system; 128+N stopped by signal N; 2 bad input.\n");
}

int do_boot(int argc, char **argv)
{
	const char *kernel = "ours", *initrd = NULL, *out = NULL, *append = "";
	const char *bzimage = NULL;
	const char *mem = "1G", *accel = config_accel();
	int timeout = 300, smp = 2, rc;
	bool quiet = false, probe = false;
	struct strv extra = { 0 };
	struct kernel_info k;
	struct guest g = { 0 };
	struct qemu_setup q = { 0 };
	char el[32];

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_boot();
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
		} else if (!strcmp(a, "--probe-accel")) {
			probe = true;
		} else if (!strcmp(a, "--")) {
			for (int j = i + 1; j < argc; j++)
				strv_add(&extra, argv[j]);
			break;
		} else if (a[0] == '-' && a[1] == '-') {
			static const char *const with_value[] = {
				"--kernel",  "--initrd", "--out", "--append",
				"--accel",   "--mem",	 "--smp", "--timeout",
				"--bzimage", NULL
			};
			bool known = false;
			const char *v;

			for (int k = 0; with_value[k]; k++)
				known |= !strcmp(a, with_value[k]);
			if (!known)
				usage_error(
					"boot: unknown argument '%s' (bpk boot --help)",
					a);
			if (i + 1 >= argc)
				usage_error(
					"%s needs a value (bpk boot --help)",
					a);
			v = argv[++i];
			if (!strcmp(a, "--kernel"))
				kernel = v;
			else if (!strcmp(a, "--bzimage"))
				bzimage = v;
			else if (!strcmp(a, "--initrd"))
				initrd = v;
			else if (!strcmp(a, "--out"))
				out = v;
			else if (!strcmp(a, "--append"))
				append = v;
			else if (!strcmp(a, "--accel"))
				accel = v;
			else if (!strcmp(a, "--mem")) {
				if (parse_size(v) < 0)
					usage_error(
						"--mem '%s' is not a size like 512M or 1G",
						v);
				mem = v;
			} else if (!strcmp(a, "--smp")) {
				smp = (int)parse_num(v, 1, 1024);
				if (smp < 1)
					usage_error(
						"--smp '%s' is not a positive number",
						v);
			} else if (!strcmp(a, "--timeout")) {
				timeout = (int)parse_num(v, 1, 1 << 30);
				if (timeout < 1)
					usage_error(
						"--timeout '%s' is not a positive number of seconds",
						v);
			} else {
				usage_error(
					"boot: unknown argument '%s' (bpk boot --help)",
					a);
			}
		} else {
			usage_error(
				"boot: unknown argument '%s' (bpk boot --help)",
				a);
		}
	}
	if (strcmp(accel, "auto") && strcmp(accel, "tcg") &&
	    strcmp(accel, "kvm"))
		usage_error("--accel '%s' must be auto, tcg or kvm", accel);
	kernel_resolve(kernel, &k);
	if (bzimage) {
		if (!file_exists(bzimage))
			usage_error("--bzimage %s: not found", bzimage);
		k.image = xstrdup(bzimage);
	}
	if (!file_exists(k.image))
		usage_error(
			"%s: kernel image not found (bpk run --kernel %s builds it)",
			k.image, k.spec);
	if (probe) {
		printf("%s\n", qemu_accel("auto", k.image));
		return 0;
	}
	if (!initrd)
		usage_error("--initrd is required (bpk boot --help)");
	if (!file_exists(initrd))
		usage_error("%s: initramfs not found", initrd);
	if (!out)
		usage_error("--out is required (bpk boot --help)");
	if (has_control(append) || has_control(out))
		usage_error("boot: a control character in --append or --out");
	if (mkdir_p(out, 0755))
		usage_error("cannot create %s: %m", out);
	/* the files of an earlier boot into the same dir are replaced */
	{
		static const char *const names[] = {
			"console.log", "results.txt",  "dmesg.txt", "dump.flat",
			"status.txt",  "workload.txt", "qemu.log",  NULL
		};

		for (int i = 0; names[i]; i++) {
			char *p = path_join(out, names[i]);

			unlink(p);
			free(p);
		}
	}
	g.staging = out;
	g.timeout_s = timeout;
	run_caps(&g, parse_size(mem), LOG_CAP_DEFAULT);
	if (guest_prepare(&g))
		return 1;
	q.accel = qemu_accel(accel, k.image);
	g.kvm = !strcmp(q.accel, "kvm");
	q.mem = mem;
	q.smp = smp;
	q.kernel_image = guest_pass_file(&g, k.image, false, false);
	q.initrd = guest_pass_file(&g, initrd, false, false);
	if (!q.kernel_image || !q.initrd)
		return 1;
	q.append = append;
	q.name = out;
	q.extra = &extra;
	qemu_argv(&q, &g, &g.qemu_argv);
	if (!quiet)
		p_info("booting (%s, %s, %d cpus, timeout %ds), console: %s/console.log",
		       q.accel, mem, smp, timeout, out);
	if (guest_start(&g))
		return 1;
	rc = guest_supervise(&g);
	if (!quiet)
		p_info("QEMU exited with status %d after %s", rc,
		       fmt_ms(g.ended_ms - g.started_ms, el, sizeof(el)));
	if (rc && g.qemu_err[0] && rc != 124 && rc != 125 && !g.signum)
		p_err("QEMU: %s", g.qemu_err);
	guest_cleanup(&g);
	strv_free(&extra);
	return rc;
}
