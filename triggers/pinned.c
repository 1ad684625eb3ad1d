// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "pinned.h"

int pinned_value_save(const char *pin, const char *name, const void *val,
		      size_t size)
{
	int fd, zero = 0, rc;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(zero),
			    (unsigned int)size, 1, NULL);
	if (fd < 0)
		return fd;
	rc = bpf_map_update_elem(fd, &zero, val, BPF_ANY);
	if (!rc)
		rc = bpf_obj_pin(fd, pin);
	close(fd);
	return rc;
}

int pinned_value_load(const char *pin, void *val)
{
	int fd, zero = 0, rc = 0;

	fd = bpf_obj_get(pin);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, val))
		rc = -errno;
	close(fd);
	return rc;
}
