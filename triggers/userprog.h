/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user's own trigger program (bpk run --prog FILE): its trigger_def made
 * from the BPF object itself. Its parameters are its `const volatile
 * cfg_*` globals, by their BTF types; its attachment, its programs' SEC()
 * names. Once loaded, trigger_find() finds it by its name, and everything
 * a built-in trigger goes through (parsing, arming, status) works on it.
 */
#ifndef BPK_USERPROG_H
#define BPK_USERPROG_H

#include <stddef.h>

#include "table.h"

/* Where a run's own program is in the guest: USERPROG_DIR/NAME.bpf.o */
#define USERPROG_DIR "/etc/bpk/prog"

/* Is @name usable as a program's name ([a-z0-9_], 1-31 characters)? */
int userprog_name_ok(const char *name);

/*
 * Read the BPF object at @path as trigger @name (its summary: @source, the
 * file the user gave, or NULL for @path). Refused, with a one-line
 * reason naming @path in @err (and -1): not a BPF ELF object for this
 * machine, no BTF, a cfg_* of a type that cannot be a parameter, a SEC()
 * the appliance cannot attach, no program that calls the fire function.
 */
int userprog_load(const char *path, const char *name, const char *source,
		  char *err, size_t errlen);

/* Forget the loaded program: another may be loaded then. */
void userprog_unload(void);

/* The loaded program's def, or NULL. */
const struct trigger_def *userprog_def(void);

/*
 * The kernel's names its programs' SEC() point at, to check against the
 * booting kernel's symbol table: @syms[i] (a function, __tracepoint_NAME,
 * str__CAT__trace_system_name) and @whats[i] (its SEC() and program, for
 * the message). Returns how many (at most @max).
 */
int userprog_kernel_names(const char **syms, const char **whats, int max);

#endif
