// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the JSON writer (json_writer.c): layout, numbers, every
 * class of string escape, and thousands of random byte strings that must
 * come out as JSON that jansson and Python's json both parse, valid UTF-8
 * coming back byte for byte. One "PASS|FAIL json.<name>: ..." line per
 * check; exit 1 on a FAIL.
 *
 *	json-writer-test [SEED]
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <unistd.h>

#include "check.h"
#include "json_writer.h"

/* What @fn writes, as a string (the final newline included). */
static char *capture(void (*fn)(json_writer_t *), bool pretty)
{
	json_writer_t *jw;
	char *buf = NULL;
	size_t len;
	FILE *m;

	m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	jw = jw_new(m);
	if (!jw) {
		fclose(m);
		free(buf);
		return NULL;
	}
	jw_pretty(jw, pretty);
	fn(jw);
	jw_destroy(&jw);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void nested_doc(json_writer_t *jw)
{
	jw_start_object(jw);
	jw_int_field(jw, "a", 1);
	jw_name(jw, "b");
	jw_start_array(jw);
	jw_int(jw, 1);
	jw_string(jw, "x");
	jw_start_object(jw);
	jw_end_object(jw);
	jw_start_array(jw);
	jw_end_array(jw);
	jw_end_array(jw);
	jw_name(jw, "c");
	jw_start_object(jw);
	jw_null_field(jw, "d");
	jw_bool_field(jw, "e", true);
	jw_end_object(jw);
	jw_bool_field(jw, "f", false);
	jw_float_field(jw, "g", 0.5);
	jw_end_object(jw);
}

static void top_values(json_writer_t *jw)
{
	jw_int(jw, 1);
	jw_start_object(jw);
	jw_string_field(jw, "k", "v");
	jw_end_object(jw);
}

static void unbalanced(json_writer_t *jw)
{
	jw_start_array(jw);
	jw_end_array(jw);
	jw_end_array(jw);
	jw_end_object(jw);
}

static void escaped_name(json_writer_t *jw)
{
	jw_start_object(jw);
	jw_int_field(jw, "a\"b\n", 1);
	jw_end_object(jw);
}

static void test_layout(const char *dir)
{
	static const char compact[] =
		"{\"a\":1,\"b\":[1,\"x\",{},[]],\"c\":{\"d\":null,\"e\":true},"
		"\"f\":false,\"g\":0.5}\n";
	static const char pretty[] = "{\n"
				     " \"a\": 1,\n"
				     " \"b\": [\n"
				     "  1,\n"
				     "  \"x\",\n"
				     "  {},\n"
				     "  []\n"
				     " ],\n"
				     " \"c\": {\n"
				     "  \"d\": null,\n"
				     "  \"e\": true\n"
				     " },\n"
				     " \"f\": false,\n"
				     " \"g\": 0.5\n"
				     "}\n";
	char path[4096], cmd[8192], out[8192];
	char *s;
	FILE *f;
	int rc;

	s = capture(nested_doc, false);
	check("json.compact", s && !strcmp(s, compact), "%s", vis(s));
	free(s);

	s = capture(nested_doc, true);
	check("json.pretty", s && !strcmp(s, pretty), "%s", vis(s));

	/* The pretty layout is Python's json.dumps(indent=1), exactly. */
	snprintf(path, sizeof(path), "%s/pretty.json", dir);
	f = fopen(path, "w");
	if (f) {
		fputs(s ? s : "", f);
		if (fclose(f))
			f = NULL;
	}
	snprintf(
		cmd, sizeof(cmd),
		"python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
		" t=open(sys.argv[1]).read();"
		" print(\"same\" if json.dumps(d, indent=1) + \"\\n\" == t"
		" else \"differs: \" + repr(json.dumps(d, indent=1)))' %s 2>&1",
		path);
	rc = f ? run_capture(cmd, out, sizeof(out)) : -1;
	check("json.pretty-is-python-indent-1",
	      rc == 0 && !strcmp(out, "same\n"), "python3 exit %d: %s", rc,
	      vis(out));
	free(s);

	s = capture(top_values, false);
	check("json.top-level-lines", s && !strcmp(s, "1\n{\"k\":\"v\"}\n"),
	      "%s", vis(s));
	free(s);

	s = capture(unbalanced, false);
	check("json.unbalanced-end-ignored", s && !strcmp(s, "[]\n"), "%s",
	      vis(s));
	free(s);

	s = capture(escaped_name, false);
	check("json.name-escaped", s && !strcmp(s, "{\"a\\\"b\\n\":1}\n"), "%s",
	      vis(s));
	free(s);
}

/* --- numbers */

static double seconds_in;
static int64_t int_in;
static uint64_t uint_in;

static void one_seconds(json_writer_t *jw)
{
	jw_seconds(jw, seconds_in);
}

static void one_float(json_writer_t *jw)
{
	jw_float(jw, seconds_in);
}

static void one_int(json_writer_t *jw)
{
	jw_int(jw, int_in);
}

static void one_uint(json_writer_t *jw)
{
	jw_uint(jw, uint_in);
}

static void test_numbers(void)
{
	static const struct {
		double v;
		const char *seconds, *as_float;
	} cases[] = {
		{ 1.25, "1.25", "1.25" },
		{ 1.250, "1.25", "1.25" },
		{ 2.0, "2", "2" },
		{ 0.0, "0", "0" },
		{ -0.0, "0", "-0" },
		{ 0.0004, "0", "0.0004" },
		{ 12.3456, "12.346", "12.3456" },
		{ 100.0, "100", "100" },
		{ 0.1, "0.1", "0.1" },
		{ 1e20, "1e+20", "1e+20" },
		{ -1.0, "null", "-1" },
		{ -0.5, "null", "-0.5" },
		{ NAN, "null", "null" },
		{ INFINITY, "null", "null" },
		{ -INFINITY, "null", "null" },
	};
	char name[64], want[64];
	char *s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		seconds_in = cases[i].v;
		snprintf(want, sizeof(want), "%s\n", cases[i].seconds);
		s = capture(one_seconds, false);
		snprintf(name, sizeof(name), "json.seconds.%g", cases[i].v);
		check(name, s && !strcmp(s, want), "%s", vis(s));
		free(s);

		snprintf(want, sizeof(want), "%s\n", cases[i].as_float);
		s = capture(one_float, false);
		snprintf(name, sizeof(name), "json.float.%g", cases[i].v);
		check(name, s && !strcmp(s, want), "%s", vis(s));
		free(s);
	}

	int_in = INT64_MIN;
	s = capture(one_int, false);
	check("json.int.min", s && !strcmp(s, "-9223372036854775808\n"), "%s",
	      vis(s));
	free(s);
	uint_in = UINT64_MAX;
	s = capture(one_uint, false);
	check("json.uint.max", s && !strcmp(s, "18446744073709551615\n"), "%s",
	      vis(s));
	free(s);
}

/* --- strings, one escape class each */

static const char *string_in;
static size_t string_len;

static void one_string(json_writer_t *jw)
{
	if (string_in)
		jw_string_len(jw, string_in, string_len);
	else
		jw_string(jw, NULL);
}

#define S(lit) lit, sizeof(lit) - 1

static void test_escapes(void)
{
	static const struct {
		const char *name, *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "quote", S("a\"b"), "\"a\\\"b\"" },
		{ "backslash", S("a\\b"), "\"a\\\\b\"" },
		{ "short-forms", S("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"" },
		{ "nul", S("a\0b"), "\"a\\u0000b\"" },
		{ "vt", S("\v"), "\"\\u000b\"" },
		{ "x1c", S("\x1c"), "\"\\u001c\"" },
		{ "esc", S("\x1b[0m"), "\"\\u001b[0m\"" },
		{ "del", S("\x7f"), "\"\\u007f\"" },
		{ "slash-kept", S("a/b"), "\"a/b\"" },
		{ "u0080", S("\xc2\x80"), "\"\\u0080\"" },
		{ "u0085", S("\xc2\x85"), "\"\\u0085\"" },
		{ "u009f", S("\xc2\x9f"), "\"\\u009f\"" },
		{ "u00a0-kept", S("\xc2\xa0"), "\"\xc2\xa0\"" },
		{ "u2028", S("\xe2\x80\xa8"), "\"\\u2028\"" },
		{ "u2029", S("\xe2\x80\xa9"), "\"\\u2029\"" },
		{ "u2027-kept", S("\xe2\x80\xa7"), "\"\xe2\x80\xa7\"" },
		{ "utf8-kept", S("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
		  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "u10ffff-kept", S("\xf4\x8f\xbf\xbf"),
		  "\"\xf4\x8f\xbf\xbf\"" },
		{ "lone-ff",
		  S("a\xff"
		    "b"),
		  "\"a\\\\xffb\"" },
		{ "lone-continuation", S("\x80"), "\"\\\\x80\"" },
		{ "truncated",
		  S("\xe2\x82"
		    "z"),
		  "\"\\\\xe2\\\\x82z\"" },
		{ "truncated-at-end", S("\xf0\x9f\x98"),
		  "\"\\\\xf0\\\\x9f\\\\x98\"" },
		{ "overlong-2", S("\xc0\xaf"), "\"\\\\xc0\\\\xaf\"" },
		{ "overlong-3", S("\xe0\x80\xaf"),
		  "\"\\\\xe0\\\\x80\\\\xaf\"" },
		{ "overlong-4", S("\xf0\x80\x80\xaf"),
		  "\"\\\\xf0\\\\x80\\\\x80\\\\xaf\"" },
		{ "surrogate", S("\xed\xa0\x80"), "\"\\\\xed\\\\xa0\\\\x80\"" },
		{ "past-u10ffff", S("\xf4\x90\x80\x80"),
		  "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"" },
		{ "f5", S("\xf5\x80\x80\x80"),
		  "\"\\\\xf5\\\\x80\\\\x80\\\\x80\"" },
		{ "empty", S(""), "\"\"" },
		{ "null", NULL, 0, "null" },
	};
	char name[64], want[128];
	char *s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		string_in = cases[i].in;
		string_len = cases[i].len;
		snprintf(want, sizeof(want), "%s\n", cases[i].out);
		s = capture(one_string, false);
		snprintf(name, sizeof(name), "json.escape.%s", cases[i].name);
		check(name, s && !strcmp(s, want), "%s", vis(s));
		free(s);
	}
}

/* --- random strings */

static uint64_t rng;

static uint32_t rnd(void)
{
	/* xorshift64*: reproducible from the seed the test prints. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dULL) >> 32);
}

/* @cp in @n bytes of UTF-8's bit layout, whether or not that is valid. */
static size_t encode(unsigned char *p, uint32_t cp, size_t n)
{
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };

	if (n == 1) {
		p[0] = (unsigned char)cp;
		return 1;
	}
	for (size_t i = n - 1; i > 0; i--) {
		p[i] = 0x80 | (cp & 0x3f);
		cp >>= 6;
	}
	p[0] = (unsigned char)(lead[n] | cp);
	return n;
}

static size_t utf8_len_of(uint32_t cp)
{
	return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* One piece of a random string, at most 4 bytes, from every class. */
static size_t piece(unsigned char *p)
{
	static const uint32_t edges[] = {
		0x7f,	 0x80,	   0x85,   0x9f,   0xa0,   0x7ff,
		0x800,	 0xd7ff,   0xe000, 0xfeff, 0xfffd, 0xffff,
		0x10000, 0x10ffff, 0x2027, 0x2028, 0x2029, 0x202a,
	};
	uint32_t cp;
	size_t n;

	switch (rnd() % 10) {
	case 0:
		p[0] = (unsigned char)(0x20 + rnd() % 0x5f);
		return 1;
	case 1:
		p[0] = (unsigned char)(rnd() % 0x20);
		if (rnd() % 4 == 0)
			p[0] = "\"\\\x7f/"[rnd() % 4];
		return 1;
	case 2:
		p[0] = (unsigned char)(0x80 + rnd() % 0x80);
		return 1;
	case 3:
		cp = edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
		return encode(p, cp, utf8_len_of(cp));
	case 4:
		do
			cp = 0x80 + rnd() % (0x110000 - 0x80);
		while (cp >= 0xd800 && cp <= 0xdfff);
		return encode(p, cp, utf8_len_of(cp));
	case 5:
		/* overlong */
		n = 2 + rnd() % 3;
		cp = rnd() % (n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000);
		return encode(p, cp, n);
	case 6:
		return encode(p, 0xd800 + rnd() % 0x800, 3);
	case 7:
		return encode(p, 0x110000 + rnd() % 0xf0000, 4);
	case 8:
		/* a valid sequence cut short */
		cp = 0x80 + rnd() % (0x110000 - 0x80);
		n = encode(p, cp, utf8_len_of(cp));
		return 1 + rnd() % (n - 1);
	default:
		memcpy(p, "\\x41", 4);
		return 4;
	}
}

/*
 * What a reader gets back for @s: the test's own model, written from the
 * definition (decode, then refuse overlongs, surrogates and code points
 * past U+10FFFF) rather than from the writer's table of byte ranges.
 */
static size_t expected(const unsigned char *s, size_t len, char *out)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n = (c & 0xe0) == 0xc0 ? 2 :
			   (c & 0xf0) == 0xe0 ? 3 :
			   (c & 0xf8) == 0xf0 ? 4 :
						0;
		uint32_t cp = n ? c & (0x7f >> n) : 0;
		bool ok = n && i + n <= len;

		if (c < 0x80) {
			out[o++] = (char)c;
			i++;
			continue;
		}
		for (size_t k = 1; ok && k < n; k++) {
			ok = (s[i + k] & 0xc0) == 0x80;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (ok && cp >= min[n] && cp <= 0x10ffff &&
		    !(cp >= 0xd800 && cp <= 0xdfff)) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			o += (size_t)sprintf(out + o, "\\x%02x", c);
			i++;
		}
	}
	return o;
}

/* Bytes no reader should see raw: controls, DEL, C1, U+2028/9. */
static const char *forbidden(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			return "a control character";
		if (s[i] == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 &&
		    s[i + 1] <= 0x9f)
			return "a C1 control";
		if (s[i] == 0xe2 && i + 2 < len && s[i + 1] == 0x80 &&
		    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
			return "U+2028 or U+2029";
	}
	return NULL;
}

#define N_RANDOM 4000
#define MAX_PIECES 24

struct sample {
	unsigned char in[MAX_PIECES * 4];
	size_t len;
};

static void test_random(const char *dir, uint64_t seed)
{
	static struct sample samples[N_RANDOM];
	char path[4096], cmd[8192], out[256], want[MAX_PIECES * 16];
	size_t identical = 0, valid = 0, matched = 0, flen = 0;
	const char *bad = NULL;
	unsigned char *text = NULL;
	json_writer_t *jw;
	json_error_t jerr;
	json_t *root;
	FILE *f;
	int rc;

	rng = seed;
	snprintf(path, sizeof(path), "%s/random.json", dir);
	f = fopen(path, "w");
	jw = f ? jw_new(f) : NULL;
	if (!jw) {
		check("json.random.write", false, "%s: cannot write", path);
		if (f)
			fclose(f);
		return;
	}
	jw_start_array(jw);
	for (int i = 0; i < N_RANDOM; i++) {
		struct sample *sm = &samples[i];
		int pieces = (int)(rnd() % MAX_PIECES);

		sm->len = 0;
		for (int k = 0; k < pieces; k++)
			sm->len += piece(sm->in + sm->len);
		jw_string_len(jw, (const char *)sm->in, sm->len);
	}
	jw_end_array(jw);
	jw_destroy(&jw);
	rc = ferror(f) | fclose(f);
	check("json.random.write", rc == 0, "%d strings to %s, status %d",
	      N_RANDOM, path, rc);

	f = fopen(path, "r");
	if (f) {
		text = malloc(N_RANDOM * sizeof(want));
		flen = text ? fread(text, 1, N_RANDOM * sizeof(want), f) : 0;
		fclose(f);
	}
	/* The final newline is jw_destroy()'s, outside the document. */
	bad = text && flen ? forbidden(text, flen - 1) : "no output";
	check("json.random.no-raw-separators", !bad, "%zu bytes, %s", flen,
	      bad ? bad : "none of controls, DEL, C1, U+2028/9 raw");
	free(text);

	root = json_load_file(path, JSON_ALLOW_NUL, &jerr);
	check("json.random.jansson-parses", root && json_is_array(root), "%s",
	      root ? "an array" : jerr.text);
	for (int i = 0; root && i < N_RANDOM; i++) {
		json_t *v = json_array_get(root, (size_t)i);
		size_t n = expected(samples[i].in, samples[i].len, want);
		bool is_valid = n == samples[i].len &&
				!memcmp(want, samples[i].in, n);

		if (!json_is_string(v))
			continue;
		valid += is_valid;
		if (json_string_length(v) == n &&
		    !memcmp(json_string_value(v), want, n)) {
			matched++;
			identical += is_valid;
		} else if (matched == (size_t)i) {
			printf("first mismatch: item %d in %s out %s\n", i,
			       vis_len((char *)samples[i].in, samples[i].len),
			       vis_len(json_string_value(v),
				       json_string_length(v)));
		}
	}
	check("json.random.read-back", matched == N_RANDOM,
	      "%zu of %d strings read back as the model says (seed %" PRIu64
	      ")",
	      matched, N_RANDOM, seed);
	check("json.random.valid-utf8-identical", identical == valid && valid,
	      "%zu of %zu valid UTF-8 strings came back byte for byte",
	      identical, valid);
	json_decref(root);

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; "
		 "d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
		 "print(len(d), all(isinstance(s, str) for s in d))' %s 2>&1",
		 path);
	rc = run_capture(cmd, out, sizeof(out));
	snprintf(want, sizeof(want), "%d True\n", N_RANDOM);
	check("json.random.python-parses", rc == 0 && !strcmp(out, want),
	      "python3 exit %d: %s", rc, vis(out));
}

static void nothing(json_writer_t *jw)
{
	(void)jw;
}

static void test_destroy(void)
{
	json_writer_t *none = NULL, *jw;
	char *s = capture(nothing, true), *buf = NULL;
	size_t len;
	FILE *m;

	check("json.destroy-newline", s && !strcmp(s, "\n"), "%s", vis(s));
	free(s);
	m = open_memstream(&buf, &len);
	jw = m ? jw_new(m) : NULL;
	jw_destroy(&jw);
	jw_destroy(&none);
	jw_destroy(NULL);
	check("json.destroy", m && jw == NULL, "pointer %s after jw_destroy()",
	      jw ? "kept" : "NULL");
	if (m)
		fclose(m);
	free(buf);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/json-writer-test.XXXXXX";
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20240611;
	char cmd[128];

	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	test_layout(dir);
	test_numbers();
	test_escapes();
	test_random(dir, seed ? seed : 1);
	test_destroy();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "json-writer-test: %s: not removed\n", dir);
	return checks_done("json-writer-test");
}
