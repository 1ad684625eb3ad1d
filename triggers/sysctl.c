// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "pinned.h"
#include "sysctl.h"

static int read_value(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_value(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	/* the handler runs when the write reaches the kernel, at fclose() */
	if (fprintf(f, "%s\n", value) < 0) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

int sysctl_save_and_set(const char *path, const char *value, const char *dir,
			char *err, size_t errlen)
{
	char old[SYSCTL_VALUE_LEN] = "", pin[512];
	int rc;

	rc = read_value(path, old, sizeof(old));
	if (rc) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(-rc));
		return -1;
	}
	snprintf(pin, sizeof(pin), "%s/%s", dir, SYSCTL_SAVED_PIN);
	rc = pinned_value_save(pin, "sysctl_saved", old, sizeof(old));
	if (rc) {
		snprintf(err, errlen, "%s: cannot keep %s's value: %s", pin,
			 path, strerror(-rc));
		return -1;
	}
	rc = write_value(path, value);
	if (rc) {
		snprintf(err, errlen, "%s refused %s: %s", path, value,
			 strerror(-rc));
		return -1;
	}
	printf("set %s = %s (was %s; disarm puts it back)\n", path, value, old);
	return 0;
}

int sysctl_saved(const char *dir, char *buf, size_t len)
{
	char pin[512], val[SYSCTL_VALUE_LEN];
	int rc;

	snprintf(pin, sizeof(pin), "%s/%s", dir, SYSCTL_SAVED_PIN);
	rc = pinned_value_load(pin, val);
	if (rc)
		return rc;
	val[sizeof(val) - 1] = '\0';
	snprintf(buf, len, "%s", val);
	return 0;
}

int sysctl_restore(const char *path, const char *dir)
{
	char val[SYSCTL_VALUE_LEN];
	int rc = sysctl_saved(dir, val, sizeof(val));

	if (rc == -ENOENT)
		return 0;
	return rc ?: write_value(path, val);
}
