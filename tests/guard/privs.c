// SPDX-License-Identifier: GPL-2.0
/*
 * Capability changes by raw capget/capset: the guest has no libcap, and the
 * checks only ever toggle one bit of the effective set, which the permitted
 * set still holds, so it can always be raised again.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"

static int cap_set_effective(int cap, int on)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2];
	unsigned int idx = (unsigned int)cap / 32;
	unsigned int bit = 1U << ((unsigned int)cap % 32);

	if (cap < 0 || idx >= 2)
		return -EINVAL;
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	if (on)
		data[idx].effective |= bit;
	else
		data[idx].effective &= ~bit;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

int cap_drop_effective(int cap)
{
	return cap_set_effective(cap, 0);
}

int cap_raise_effective(int cap)
{
	return cap_set_effective(cap, 1);
}
