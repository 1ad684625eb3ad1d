// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <bpf/btf.h>

#include "fire.h"
#include "preflight.h"

#define CRASH_LOADED "/sys/kernel/kexec_crash_loaded"
#define DESTRUCTIVE_SYSCTL "/proc/sys/kernel/destructive_bpf_enabled"
/* What the BTF said, kept for this boot: parsing the kernel's BTF is most
 * of an arming's cost under TCG, and a guest restored from a snapshot
 * (whose boot filled it) arms at once. Root's only, in the appliance's
 * own directory.
 */
#define BTF_FACTS "/etc/bpk/.btf-facts"
#define BOOT_ID "/proc/sys/kernel/random/boot_id"

/* Where a bound pvpanic device shows: QEMU's ISA one (ACPI QEMU0001) and
 * its PCI one.
 */
static const char *const pvpanic_drivers[] = {
	"/sys/bus/platform/drivers/pvpanic-mmio",
	"/sys/bus/pci/drivers/pvpanic-pci",
	NULL,
};

/* The first device bound to a pvpanic driver, into @name ("" if none). */
static void probe_pvpanic(char *name, size_t len)
{
	name[0] = '\0';
	for (int i = 0; pvpanic_drivers[i] && !name[0]; i++) {
		DIR *d = opendir(pvpanic_drivers[i]);
		struct dirent *e;

		if (!d)
			continue;
		/* a driver's directory lists its devices by their bus names
		 * (QEMU0001:00, 0000:00:03.0) beside bind, unbind, module
		 */
		while ((e = readdir(d)))
			if (strchr(e->d_name, ':')) {
				size_t n = strnlen(e->d_name, len - 1);

				memcpy(name, e->d_name, n);
				name[n] = '\0';
				break;
			}
		closedir(d);
	}
}

static int read_int(const char *path, int *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
						0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return !!(data[cap / 32].effective & (1U << (cap % 32)));
}

static int boot_id(char *buf, size_t len)
{
	FILE *f = fopen(BOOT_ID, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

/* The facts this boot's earlier probe kept: 0, or -1 (probe again). */
static int btf_facts_read(struct preflight *p, const char *boot)
{
	FILE *f = fopen(BTF_FACTS, "r");
	char id[64];
	int panic, kexec, ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%63s %d %d", id, &panic, &kexec) == 3 &&
	     !strcmp(id, boot) && (panic == 0 || panic == 1) &&
	     (kexec == 0 || kexec == 1);
	fclose(f);
	if (!ok)
		return -1;
	p->btf_panic = panic;
	p->btf_crash_kexec = kexec;
	return 0;
}

/* Kept if it can be (a guest without the directory just probes again). */
static void btf_facts_write(const struct preflight *p, const char *boot)
{
	FILE *f = fopen(BTF_FACTS ".tmp", "w");

	if (!f)
		return;
	if (fprintf(f, "%s %d %d\n", boot, p->btf_panic, p->btf_crash_kexec) <
		    0 ||
	    fclose(f) || rename(BTF_FACTS ".tmp", BTF_FACTS))
		unlink(BTF_FACTS ".tmp");
}

/* Is enumerator BPF_FUNC_panic / function crash_kexec in vmlinux BTF? */
static void probe_btf(struct preflight *p)
{
	struct btf *btf;
	char boot[64];
	bool have_boot = !boot_id(boot, sizeof(boot));
	int id;

	if (have_boot && !btf_facts_read(p, boot))
		return;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return;
	p->btf_crash_kexec =
		btf__find_by_name_kind(btf, "crash_kexec", BTF_KIND_FUNC) > 0;
	id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (unsigned short i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off),
				    "BPF_FUNC_panic"))
				p->btf_panic = 1;
	}
	btf__free(btf);
	if (have_boot)
		btf_facts_write(p, boot);
}

void preflight_probe(struct preflight *p)
{
	int v = 0;

	memset(p, 0, sizeof(*p));
	p->crash_loaded = !read_int(CRASH_LOADED, &v) && v == 1;
	probe_pvpanic(p->pvpanic, sizeof(p->pvpanic));
	p->has_series = !read_int(DESTRUCTIVE_SYSCTL, &v);
	p->sysctl_on = p->has_series && v == 1;
	p->cap_sys_boot = cap_effective(CAP_SYS_BOOT);
	p->cap_bpf = cap_effective(CAP_BPF) || cap_effective(CAP_SYS_ADMIN);
	probe_btf(p);
	if (preflight_action_usable(p, FIRE_BPF_PANIC, NULL, 0))
		p->action = FIRE_BPF_PANIC;
	else if (preflight_action_usable(p, FIRE_CRASH_KEXEC, NULL, 0))
		p->action = FIRE_CRASH_KEXEC;
	else
		p->action = FIRE_NONE;
}

/*
 * On a kernel with the series, kernel.destructive_bpf_enabled governs the
 * crash_kexec kfunc as well as bpf_panic(): off, neither loads. A stock
 * kernel gates the kfunc by CAP_SYS_BOOT alone.
 */
int preflight_action_usable(const struct preflight *p, unsigned int action,
			    char *why, size_t len)
{
	const char *no = NULL;

	if (!p->cap_sys_boot)
		no = "CAP_SYS_BOOT is missing";
	else if (action == FIRE_BPF_PANIC && !p->btf_panic)
		no = "this kernel has no bpf_panic helper";
	else if (action == FIRE_CRASH_KEXEC && !p->btf_crash_kexec)
		no = "this kernel has no crash_kexec kfunc";
	else if (action != FIRE_BPF_PANIC && action != FIRE_CRASH_KEXEC)
		no = "not a fire action";
	else if (p->has_series && !p->sysctl_on)
		no = "kernel.destructive_bpf_enabled is 0, and it governs every destructive call";
	if (no && why)
		snprintf(why, len, "%s", no);
	return !no;
}

/*
 * panic() runs its notifiers, pvpanic's among them, only when no crash
 * kernel takes over first; the crash_kexec kfunc returns at once without
 * one. So the host's dump takes bpf_panic() and a bound pvpanic device.
 */
int preflight_host_dump_usable(const struct preflight *p, unsigned int action,
			       char *why, size_t len)
{
	const char *no = NULL;

	if (!p->pvpanic[0])
		no = "no pvpanic device bound to a driver (QEMU's -device pvpanic and the kernel's CONFIG_PVPANIC_MMIO): the host would not hear of the panic";
	else if (p->crash_loaded)
		no = "a crash kernel is loaded: panic() would kexec into it before pvpanic is told";
	else if (action == FIRE_CRASH_KEXEC)
		no = "the crash_kexec kfunc does nothing without a loaded crash kernel";
	else if (action != FIRE_BPF_PANIC)
		no = "no fire action that panics";
	if (no && why)
		snprintf(why, len, "%s", no);
	return !no;
}

const char *action_name(unsigned int action)
{
	switch (action) {
	case FIRE_BPF_PANIC:
		return "bpf_panic";
	case FIRE_CRASH_KEXEC:
		return "crash_kexec";
	default:
		return "none";
	}
}

static void line(int ok, const char *what, const char *detail)
{
	printf("%-4s %-22s %s\n", ok ? "ok" : "FAIL", what, detail);
}

int preflight_report(const struct preflight *p)
{
	line(p->crash_loaded, "crash kernel",
	     p->crash_loaded ?
		     "loaded (" CRASH_LOADED " = 1)" :
		     "not loaded: a panic now would lose the evidence (kexec -p)");
	line(1, "pvpanic",
	     p->pvpanic[0] ?
		     p->pvpanic :
		     "none (the host's dump, bpk run --dump host, needs one)");
	line(p->cap_bpf, "CAP_BPF",
	     p->cap_bpf ? "present" : "missing: cannot load programs");
	line(p->cap_sys_boot, "CAP_SYS_BOOT",
	     p->cap_sys_boot ? "present" :
			       "missing: no destructive action can be used");
	line(p->btf_panic, "bpf_panic helper",
	     p->btf_panic ?
		     "in this kernel (BPF_FUNC_panic)" :
		     "not in this kernel (stock kernel: the kfunc path is used)");
	if (p->has_series)
		line(p->sysctl_on, "destructive sysctl",
		     p->sysctl_on ?
			     "kernel.destructive_bpf_enabled = 1" :
			     "kernel.destructive_bpf_enabled = 0: bpf_panic and crash_kexec unavailable");
	line(p->btf_crash_kexec, "crash_kexec kfunc",
	     !p->btf_crash_kexec ? "not in this kernel" :
	     p->has_series ? "in this kernel, under the destructive sysctl" :
			     "in this kernel");
	line(p->action != FIRE_NONE, "fire action", action_name(p->action));
	return p->crash_loaded && p->cap_bpf && p->action != FIRE_NONE ? 0 : 1;
}
