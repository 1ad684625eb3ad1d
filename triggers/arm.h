/* SPDX-License-Identifier: GPL-2.0 */
/* Loading, attaching, pinning and unpinning a trigger. */
#ifndef BPK_ARM_H
#define BPK_ARM_H

#include <stddef.h>

#include "params.h"

#define PIN_ROOT "/sys/fs/bpf/bpk"

/*
 * Open @a's trigger, set its parameters, the fire action and the panic
 * message, load it (with BPF_F_DESTRUCTIVE when it fires with bpf_panic()),
 * attach every program and pin the links and the state map under
 * PIN_ROOT/<name>/ so that it stays armed after we exit.
 * Returns 0, or -1 with a one-line reason in @err.
 */
int trigger_arm(const struct arm_args *a, unsigned int action, char *err,
		size_t errlen);

/* The arguments armed trigger @name was given: "key=value" words, each
 * ended by a NUL, an empty word after the last, in @blob (ARGS_BLOB_LEN
 * bytes at least). 0 or -errno.
 */
#define ARGS_BLOB_LEN 2048
int trigger_saved_args(const char *name, char *blob, size_t len);

/* Remove the pins of trigger @name: its programs detach. 0 or -errno. */
int trigger_disarm(const char *name);

/* Read the pinned state of armed trigger @name into @state. 0 or -errno. */
struct trigger_state;
int trigger_read_state(const char *name, struct trigger_state *state);

/* "name=N ..." for each own map of armed trigger @name (N: its entries)
 * into @buf, "" if it has none. 0 or -errno.
 */
int trigger_map_counts(const char *name, char *buf, size_t len);

#endif
