/* SPDX-License-Identifier: GPL-2.0 */
/* The kernels a guest can boot, and what the host checks of them. */
#ifndef BPK_KERNELS_H
#define BPK_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "bpk.h"

struct kernel_info {
	const char *flavor; /* "ours", "debian" or "path" */
	char *spec; /* as --kernel takes it: ours, debian, debian:KVER, PATH */
	char *dir; /* the kernel's build dir (vmlinux, config ...) */
	char *image; /* what QEMU boots (also the crash kernel) */
	char *vmlinux; /* with debug info, for crash and drgn */
	char *config;
	char *root_img; /* the guest image built for this kernel */
	char *modules; /* its modules tree, or NULL (built in) */
	char *name; /* which build: the cache entry's name */
	char *package, *release; /* Debian's: package + version, uname -r */
	const char *default_crashkernel; /* measured: see kernels.c */
	bool measured; /* default_crashkernel was measured for this kernel */
	bool preinit; /* its drivers are modules: boot with the preinit */
	const char *make_target; /* what builds the pieces */
	char *make_vars[3]; /* NAME=VALUE for make, NULL-ended */
	char *btf_names; /* Debian's: func/tp names of its BTF (btf-names) */
	char *dbg_package; /* Debian's: the package vmlinux comes from */
	char *no_hostfs; /* why its guest cannot mount the host's /usr over
			  * 9p, or NULL
			  */
};

/* "ours", "debian", "debian:RELEASE" (resolved with apt: a release the
 * archive serves, or a series such as 6.12 or 6.12-rt for its newest) or
 * the path of a kernel of the user's own (a build dir, or a bzImage with
 * vmlinux and .config beside it); bad input (exit 2) for anything else.
 * Fills @k with paths whether they exist or not.
 */
void kernel_resolve(const char *flavor, struct kernel_info *k);

/* Read again what the build made of @k (a Debian kernel fetched since
 * kernel_resolve: its release, package, modules).
 */
void kernel_refresh(struct kernel_info *k);

/* The pieces a run needs that are not there, as one line naming each and
 * how to make it ("" when none); malloc'd.
 */
char *kernel_missing(const struct kernel_info *k);

/* What the kernel's config lacks for the appliance, one line an option
 * (kconfig_missing), into @out; -1 with a reason in @err when the config
 * cannot be read.
 */
int kernel_config_missing(const struct kernel_info *k, struct strv *out,
			  char *err, size_t errlen);

/* A kernel that is not ours whose config lacks what the appliance needs is
 * refused (bad input, exit 2), every lacking option named.
 */
void kernel_refuse_unfit(const struct kernel_info *k);

/* A Debian kernel's @vmlinux (from its -dbg package) fetched into its cache
 * entry if it is not there yet, saying so first; 0 when it is there, or -1
 * with the reason in @err.
 */
int kernel_fetch_vmlinux(const char *vmlinux, char *err, size_t errlen);

/* Are these names in the kernel's symbol table (and its modules')?
 * @names: NULL-ended. Fills @found (same order). 0, or -1 with a one-line
 * reason in @err when the symbol table cannot be read.
 */
int kernel_has_symbols(const struct kernel_info *k, const char *const *names,
		       bool *found, char *err, size_t errlen);

/* appliance/debian-kernel.sh, the one place that knows the archive's names
 * and the cache's Debian entries; malloc'd.
 */
char *debian_kernel_script(void);

/* What kernel_has_symbols reads for @k, for messages: the vmlinux, or a
 * Debian kernel's BTF names until its debug package is fetched. Static.
 */
const char *kernel_symbols_from(const struct kernel_info *k);

/* Is @name a symbol of @elf_path's symbol table? For bpk check. */
int elf_has_symbol(const char *elf_path, const char *name, bool *found,
		   char *err, size_t errlen);

/* BPF_FUNC_panic's value in enum bpf_func_id of @btf, -1 if none. */
struct btf;
long long btf_panic_helper_id(const struct btf *btf);

/* Can triggers fire through bpf_panic() on @k (ours, or a kernel of the
 * user's own built with the series)?
 */
bool kernel_has_bpf_panic(const struct kernel_info *k);

/* Where @k's vmlinux is or will be (a Debian kernel's arrives with its
 * debug package), as an absolute path into its cache entry; malloc'd.
 */
char *kernel_vmlinux_path(const struct kernel_info *k);

/* @key's value in a key=value file (a Debian kernel entry's "ok", a kept
 * reservation), malloc'd; NULL when the file or the key is not there.
 */
char *kv_get(const char *path, const char *key);

/* The crashkernel= measured for the Debian kernel entry @name on this
 * machine (kept under paths.reservations), malloc'd; NULL: never measured.
 */
char *kernel_reservation(const char *name);

/* The smallest crashkernel= that dumps on @k, found by boots (its runs
 * under paths.runs/measure-NAME) and, for a Debian kernel, kept under
 * paths.reservations, doubled, as its default; in MiB. The kernel must be
 * built.
 */
int kernel_measure(struct kernel_info *k);

/* A Debian kernel whose reservation was never measured is measured now,
 * once (said first; a second bpk waits for the first), and @k's default
 * is what was measured.
 */
void kernel_measure_unmeasured(struct kernel_info *k);

#endif
