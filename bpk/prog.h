/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user's own trigger program (--prog FILE): compiled with clang against
 * the SDK when it is a source, cached by what clang would compile; read as
 * a trigger (triggers/userprog.c) either way.
 */
#ifndef BPK_PROG_H
#define BPK_PROG_H

#include <stdbool.h>

/* The SDK's compiler flags: where <bpk/trigger.bpf.h>, fire.h and the
 * kernel's vmlinux.h are. Static storage.
 */
const char *prog_sdk_cflags(void);

/*
 * The object of @file, its trigger's name (from the file's name) into
 * *@name: @file itself when it is an ELF object, else @file compiled into
 * the cache (clang's diagnostics on stderr; exit 2 when it does not
 * compile; *@compiled set, when not NULL). Then read as trigger *@name: a
 * program the appliance cannot use is refused in one line (exit 2). Both
 * malloc'd.
 */
char *prog_prepare(const char *file, char **name, bool *compiled);

#endif
