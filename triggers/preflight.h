/* SPDX-License-Identifier: GPL-2.0 */
/* What this kernel and this process can do: crash kernel, fire actions. */
#ifndef BPK_PREFLIGHT_H
#define BPK_PREFLIGHT_H

#include <stddef.h>

struct preflight {
	int crash_loaded; /* /sys/kernel/kexec_crash_loaded == 1 */
	/* a pvpanic device bound to its driver (bpk run --dump host): its
	 * sysfs name, "" if none
	 */
	char pvpanic[64];
	int has_series; /* kernel.destructive_bpf_enabled exists */
	int sysctl_on; /* ... and is 1 */
	int btf_panic; /* BPF_FUNC_panic in the kernel's BTF */
	int btf_crash_kexec; /* crash_kexec kfunc in the kernel's BTF */
	int cap_sys_boot, cap_bpf; /* effective capabilities */
	unsigned int action; /* enum fire_action available, FIRE_NONE if none */
};

void preflight_probe(struct preflight *p);
/* Can @action fire here? 1, or 0 with the reason in @why (if not NULL). */
int preflight_action_usable(const struct preflight *p, unsigned int action,
			    char *why, size_t len);
/* Print one line per check; returns 0 when a trigger could fire into a
 * loaded crash kernel.
 */
int preflight_report(const struct preflight *p);
const char *action_name(unsigned int action);
/* With the host dumping the guest (no crash kernel, pvpanic): can
 * @action take it down there? 1, or 0 with the reason in @why.
 */
int preflight_host_dump_usable(const struct preflight *p, unsigned int action,
			       char *why, size_t len);

#endif
