// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loadfail.h"

/* The rest of the line of @log after the first @marker, or NULL. */
static const char *after(const char *log, const char *marker, int *n)
{
	const char *p = strstr(log, marker);

	if (!p)
		return NULL;
	p += strlen(marker);
	*n = (int)strcspn(p, "\n");
	return p;
}

int load_failure_reason(const char *log, char *buf, size_t len)
{
	const char *p;
	int n;

	/*
	 * libbpf (1.1) poisons an instruction whose relocation found no match
	 * in the kernel's BTF; when the verifier reaches it, libbpf rewrites
	 * that verifier log line as "failed to resolve CO-RE relocation <spec>",
	 * the spec being "<byte_off> [6] struct task_struct.cgroups (0:170 @
	 * offset 3600)" as in the BTF it was built against: the field is named.
	 */
	p = after(log, "failed to resolve CO-RE relocation ", &n);
	if (p) {
		const char *name = memchr(p, ']', (size_t)n), *paren;

		if (name && name + 2 < p + n) {
			n -= (int)(name + 2 - p);
			p = name + 2;
		}
		/* "(0:170 @ offset 3600)" is where it was in the BTF built against */
		paren = memchr(p, '(', (size_t)n);
		if (paren && paren > p && paren[-1] == ' ')
			n = (int)(paren - 1 - p);
		snprintf(
			buf, len,
			"this kernel has no %.*s (a CO-RE relocation it cannot satisfy)",
			n, p);
		return 1;
	}
	/* a kfunc that is not weak: "extern (func ksym) 'name': not found ..." */
	p = after(log, "extern (func ksym) '", &n);
	if (p && strstr(p, "not found")) {
		snprintf(
			buf, len,
			"this kernel has no function %.*s (a kfunc the program calls)",
			(int)strcspn(p, "'"), p);
		return 1;
	}
	return 0;
}

/* Copy the line at @p (up to its newline) into @buf. */
static void copy_line(const char *p, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
}

/* Is the line at @p an instruction the verifier checked ("12: (61) ...")? */
static int insn_line(const char *p)
{
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return p[0] == ':' && p[1] == ' ' && p[2] == '(';
}

int verifier_rejection(const char *log, char *prog, size_t plen, char *src,
		       size_t slen, char *why, size_t wlen)
{
	static const char begin[] = "': -- BEGIN PROG LOAD LOG --\n";
	const char *b = NULL, *p, *end, *name, *after_insn = NULL;

	for (p = strstr(log, begin); p; p = strstr(p + 1, begin))
		b = p;
	if (!b)
		return 0;
	/* "libbpf: prog 'NAME': -- BEGIN ..." */
	for (name = b; name > log && name[-1] != '\''; name--)
		;
	snprintf(prog, plen, "%.*s", (int)(b - name), name);
	p = b + strlen(begin);
	end = strstr(p, "-- END PROG LOAD LOG --");
	if (!end)
		end = p + strlen(p);
	src[0] = why[0] = '\0';
	for (; p < end; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : end) {
		if (p[0] == ';' && p[1] == ' ')
			copy_line(p + 2, src, slen);
		else if (insn_line(p))
			after_insn = strchr(p, '\n') ? strchr(p, '\n') + 1 :
						       end;
	}
	/* the error: after the last instruction, else the first line */
	p = after_insn ? after_insn : b + strlen(begin);
	while (p < end && (*p == '\n' || !strncmp(p, "processed ", 10)))
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : end;
	if (p < end)
		copy_line(p, why, wlen);
	return 1;
}

/* ELF section @name's bytes, or NULL. */
static const unsigned char *section(Elf *elf, const char *name, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		n = elf_strptr(elf, shstr, sh.sh_name);
		if (!n || strcmp(n, name))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* String @off of .BTF's string section, bounded, or NULL. */
static const char *btf_str(const unsigned char *btf, size_t size, uint32_t off)
{
	uint32_t hdr, str_off, str_len;

	if (size < 24)
		return NULL;
	hdr = u32_at(btf + 4);
	str_off = u32_at(btf + 16);
	str_len = u32_at(btf + 20);
	if ((uint64_t)hdr + str_off + str_len > size || off >= str_len ||
	    !memchr(btf + hdr + str_off + off, '\0', str_len - off))
		return NULL;
	return (const char *)btf + hdr + str_off + off;
}

int source_line_of(const void *bytes, size_t size, const char *sec,
		   const char *text, char *file, size_t flen,
		   unsigned int *line)
{
	const unsigned char *btf, *ext, *p, *end;
	size_t bsize = 0, esize = 0;
	uint32_t hdr, off, len, rec;
	int found = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(elf = elf_memory((char *)bytes, size)))
		return 0;
	btf = section(elf, ".BTF", &bsize);
	ext = section(elf, ".BTF.ext", &esize);
	/* header: magic, version, flags, hdr_len, func_info off/len,
	 * line_info off/len
	 */
	if (!btf || !ext || esize < 24 || ext[0] != 0x9f || ext[1] != 0xeb)
		goto out;
	hdr = u32_at(ext + 4);
	off = u32_at(ext + 16);
	len = u32_at(ext + 20);
	if ((uint64_t)hdr + off + len > esize || len < 4)
		goto out;
	p = ext + hdr + off;
	end = p + len;
	rec = u32_at(p);
	p += 4;
	if (rec < 16)
		goto out;
	/* per section: its name, how many records, the records (insn_off,
	 * file_name_off, line_off, line_col: line << 10 | column)
	 */
	while (found >= 0 && end - p >= 8) {
		const char *name = btf_str(btf, bsize, u32_at(p));
		uint32_t n = u32_at(p + 4);

		p += 8;
		if ((uint64_t)n * rec > (uint64_t)(end - p))
			break;
		/* the program's section, and its subprograms' (.text) */
		for (uint32_t i = 0;
		     name && (!strcmp(name, sec) || !strcmp(name, ".text")) &&
		     i < n;
		     i++) {
			const unsigned char *r = p + (size_t)i * rec;
			const char *t = btf_str(btf, bsize, u32_at(r + 8));
			const char *f = btf_str(btf, bsize, u32_at(r + 4));

			/* the verifier prints it with its indent trimmed */
			while (t && (*t == ' ' || *t == '\t'))
				t++;
			if (t && f && !strcmp(t, text)) {
				const char *base = strrchr(f, '/');
				unsigned int l = u32_at(r + 12) >> 10;

				/* the same text on two lines: which one
				 * the verifier stopped at is not known
				 */
				if (found &&
				    (l != *line ||
				     strcmp(file, base ? base + 1 : f))) {
					found = -1;
					break;
				}
				snprintf(file, flen, "%s", base ? base + 1 : f);
				*line = l;
				found = 1;
			}
		}
		p += (size_t)n * rec;
	}
out:
	elf_end(elf);
	return found == 1;
}
