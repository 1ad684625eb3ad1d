/* SPDX-License-Identifier: GPL-2.0 */
/* Name <-> number tables for syscalls, errnos and signals. */
#ifndef BPK_NAMES_H
#define BPK_NAMES_H

struct name_num {
	const char *name;
	long num;
};

extern const struct name_num syscall_names[]; /* generated, x86_64 */
/* generated: entry point names without sys_ ("newfstat" for fstat) */
extern const struct name_num syscall_entries[];
extern const struct name_num errno_names[]; /* generated */
extern const struct name_num signal_names[];

/* Parse @text as a name from @table (case-insensitive, for signals with or
 * without "SIG") or as a decimal number that is in the table.
 * Returns 0 and sets *num, or -1.
 */
int name_lookup(const struct name_num *table, const char *text, long *num);
/* The name of @num in @table, or NULL. */
const char *name_of(const struct name_num *table, long num);

#endif
