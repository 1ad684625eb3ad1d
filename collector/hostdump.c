// SPDX-License-Identifier: GPL-2.0
/* The host's dump made a vmcore like kdump's (hostdump.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flat.h"
#include "hostdump.h"

/* x86 boot protocol: the setup header's magic, and the offset (from 0x200)
 * of the kernel's version string, both at fixed places in the image
 */
#define SETUP_MAGIC_OFF 0x202
#define SETUP_MAGIC "HdrS"
#define KERNEL_VERSION_OFF 0x20e
#define SETUP_BASE 0x200

/* struct disk_dump_header: signature[8], int header_version, then
 * struct new_utsname (sysname, nodename, release, version, machine,
 * domainname)
 */
#define KDUMP_SIGNATURE "KDUMP   "
#define UTS_OFF 12
#define UTS_SYSNAME 0
#define UTS_RELEASE 2
#define UTS_VERSION 3
#define UTS_FIELDS 6

int flat_rebuild(const char *flat, const char *out)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(flat, O_RDONLY);
		int null = open("/dev/null", O_WRONLY);

		if (fd < 0 || null < 0 || dup2(fd, 0) < 0 || dup2(null, 1) < 0)
			_exit(126);
		/* the vmcore holds guest memory: only its owner reads it */
		umask(077);
		execlp("makedumpfile", "makedumpfile", "-R", out, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int bzimage_uts(const char *image, char release[UTS_FIELD],
		char version[UTS_FIELD], char *why, size_t whylen)
{
	unsigned char hdr[SETUP_BASE + 0x20];
	char text[256];
	const char *v;
	size_t rlen;
	ssize_t n;
	int fd, off;

	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", image, strerror(errno));
		return -1;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr + SETUP_MAGIC_OFF, SETUP_MAGIC, 4)) {
		snprintf(
			why, whylen, "%s: %s", image,
			n < 0 ? strerror(errno) :
				"not an x86 kernel image (no HdrS setup header)");
		close(fd);
		return -1;
	}
	off = hdr[KERNEL_VERSION_OFF] | hdr[KERNEL_VERSION_OFF + 1] << 8;
	n = off ? pread(fd, text, sizeof(text) - 1, SETUP_BASE + off) : 0;
	close(fd);
	if (n <= 0) {
		snprintf(why, whylen, "%s: %s", image,
			 n < 0 ? strerror(errno) :
				 "its setup header has no version string");
		return -1;
	}
	text[n] = '\0';
	/* "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP ..." */
	rlen = strcspn(text, " ");
	v = strstr(text, ") #");
	if (!rlen || rlen >= UTS_FIELD || text[rlen] != ' ' || !v) {
		snprintf(
			why, whylen,
			"%s: its version string is not \"RELEASE (BUILDER) #VERSION\"",
			image);
		return -1;
	}
	memcpy(release, text, rlen);
	release[rlen] = '\0';
	snprintf(version, UTS_FIELD, "%s", v + 2);
	return 0;
}

int kdump_fill_uts(const char *path, const char *release, const char *version,
		   char *why, size_t whylen)
{
	char hdr[UTS_OFF + UTS_FIELDS * UTS_FIELD];
	const char *fill[UTS_FIELDS] = { [UTS_SYSNAME] = "Linux",
					 [UTS_RELEASE] = release,
					 [UTS_VERSION] = version };
	int fd, rc = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, KDUMP_SIGNATURE, 8)) {
		snprintf(why, whylen, "%s: not a kdump-compressed file", path);
		close(fd);
		return -1;
	}
	for (int i = 0; i < UTS_FIELDS; i++) {
		char *field = hdr + UTS_OFF + i * UTS_FIELD;

		/* a field the dump has, or one nobody gave, is kept */
		if (!fill[i] || field[0])
			continue;
		memset(field, 0, UTS_FIELD);
		snprintf(field, UTS_FIELD, "%s", fill[i]);
	}
	errno = 0;
	if (pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    fsync(fd)) {
		snprintf(why, whylen, "%s: %s", path,
			 strerror(errno ? errno : EIO));
		rc = -1;
	}
	if (close(fd) && !rc) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

int host_dump_finish(const char *flat, const char *out, uint64_t max_mem,
		     const char *image, char *why, size_t whylen)
{
	char release[UTS_FIELD], version[UTS_FIELD], sig[8], uwhy[400];
	/* kdump's form adds page descriptors and bitmaps to the pages: some
	 * 1/32 of the guest's memory at worst
	 */
	uint64_t max_extent = max_mem + max_mem / 32;
	struct flat_info info = { 0 };
	enum flat_verdict v;
	struct stat st;
	FILE *f;
	int rc;

	f = fopen(flat, "r");
	if (!f) {
		snprintf(why, whylen, "%s: %s", flat, strerror(errno));
		return -1;
	}
	v = flat_check(f, max_extent, &info, why, whylen);
	if (ferror(f)) {
		snprintf(why, whylen, "%s: %s", flat,
			 strerror(errno ? errno : EIO));
		fclose(f);
		return -1;
	}
	fclose(f);
	if (v != FLAT_COMPLETE)
		return -1;
	rc = flat_rebuild(flat, out);
	if (rc) {
		snprintf(why, whylen, "makedumpfile -R %s < %s exited %d", out,
			 flat, rc);
		unlink(out);
		return -1;
	}
	f = fopen(out, "r");
	if (!f || stat(out, &st) || (uint64_t)st.st_size != info.extent ||
	    fread(sig, 1, sizeof(sig), f) != sizeof(sig) ||
	    memcmp(sig, KDUMP_SIGNATURE, sizeof(sig))) {
		snprintf(
			why, whylen,
			"%s: not the kdump-compressed file of %llu bytes the stream describes",
			out, (unsigned long long)info.extent);
		if (f)
			fclose(f);
		unlink(out);
		return -1;
	}
	fclose(f);
	unlink(flat);
	if (bzimage_uts(image, release, version, uwhy, sizeof(uwhy)) ||
	    kdump_fill_uts(out, release, version, uwhy, sizeof(uwhy))) {
		snprintf(
			why, whylen,
			"its header lacks the kernel's release (drgn cannot open it): %s",
			uwhy);
		return 1;
	}
	return 0;
}
