/* SPDX-License-Identifier: GPL-2.0 */
/* Capability and identity changes for the guard tests. */
#ifndef GUARD_PRIVS_H
#define GUARD_PRIVS_H

/* Remove capability @cap from the effective set; returns 0 or -errno. */
int cap_drop_effective(int cap);
/* Put capability @cap back into the effective set; returns 0 or -errno. */
int cap_raise_effective(int cap);

#endif
