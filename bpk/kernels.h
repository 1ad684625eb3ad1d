/* SPDX-License-Identifier: GPL-2.0 */
/* The kernels a guest can boot, and what the host checks of them. */
#ifndef BPK_KERNELS_H
#define BPK_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_info {
	const char *flavor; /* "ours" or "debian" */
	char *dir; /* the kernel's build dir (vmlinux, config ...) */
	char *image; /* what QEMU boots (also the crash kernel) */
	char *vmlinux; /* with debug info, for crash and drgn */
	char *config;
	char *root_img; /* the guest image built for this kernel */
	char *modules; /* its modules tree, or NULL (built in) */
	char *name; /* which build: the cache entry's name */
	char *package, *release; /* Debian's: package + version, uname -r */
	const char *default_crashkernel; /* measured: see kernels.c */
	bool preinit; /* its drivers are modules: boot with the preinit */
	const char *make_target; /* what builds the pieces */
};

/* "ours" or "debian"; bad input (exit 2) for anything else. Fills @k with
 * paths whether they exist or not.
 */
void kernel_resolve(const char *flavor, struct kernel_info *k);

/* The pieces a run needs that are not there, as one line naming each and
 * how to make it ("" when none); malloc'd.
 */
char *kernel_missing(const struct kernel_info *k);

/* Are these names in the kernel's symbol table (and its modules')?
 * @names: NULL-ended. Fills @found (same order). 0, or -1 with a one-line
 * reason in @err when the symbol table cannot be read.
 */
int kernel_has_symbols(const struct kernel_info *k, const char *const *names,
		       bool *found, char *err, size_t errlen);

/* Is @name a symbol of @elf_path's symbol table? For bpk check. */
int elf_has_symbol(const char *elf_path, const char *name, bool *found,
		   char *err, size_t errlen);

#endif
