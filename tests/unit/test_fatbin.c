/* The fatbin parser on synthetic containers (well-formed, truncated,
 * hostile) and the serving rules. Real nvcc output is in tests/fatbin.bats. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/gpus.h"
#include "elf/fatbin.h"
#include "tap.h"

static struct gpudb db;

struct buf {
	unsigned char b[8192];
	size_t n;
};

static void put(struct buf *b, size_t at, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b->b[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

/* Start a container; returns its offset, to be closed by end_container. */
static size_t begin_container(struct buf *b)
{
	size_t at = b->n;

	put(b, at, 0xBA55ED50u, 4);
	put(b, at + 4, 1, 2);
	put(b, at + 6, 16, 2);
	b->n += 16;
	return at;
}

static void end_container(struct buf *b, size_t at)
{
	put(b, at + 8, b->n - at - 16, 8);
}

/* An entry with a 64-byte header and `size` payload bytes. */
static size_t add_entry(struct buf *b, unsigned kind, unsigned sm, uint64_t flags, size_t size)
{
	size_t at = b->n;

	memset(b->b + at, 0, 64 + size);
	put(b, at, kind, 2);
	put(b, at + 2, 0x0101, 2);
	put(b, at + 4, 64, 4);
	put(b, at + 8, size, 8);
	if (flags & 0xA000)
		put(b, at + 0x10, size - 2, 4);
	put(b, at + 0x18, kind == 1 ? 0x00090000 : 0x00010008, 4);
	put(b, at + 0x1c, sm, 4);
	put(b, at + 0x28, flags, 8);
	if (flags & 0xA000)
		put(b, at + 0x38, 4 * size, 8);
	b->n += 64 + size;
	return at;
}

static int parse(struct buf *b, int strict, struct fatbin_file *f, struct xcc_error *err)
{
	memset(f, 0, sizeof *f);
	xcc_error_clear(err);
	return fatbin_parse_section(b->b, b->n, strict, ".nv_fatbin", 0, 0, f, err);
}

/* The database's capability (with its Tegra flag), or a bare one. */
static struct gpu_cap cap(int major, int minor, char variant)
{
	const struct gpu_cap *known = gpudb_find_cap(&db, major, minor, variant);
	struct gpu_cap c = { .major = major, .minor = minor, .variant = variant };

	return known ? *known : c;
}

/* A file holding exactly the given entries ("sass sm_86", "ptx sm_90a"). */
static void fake(struct fatbin_file *f, const char *const *specs)
{
	memset(f, 0, sizeof *f);
	for (; *specs; specs++) {
		struct fatbin_entry e = { 0 };
		char kind[8], v = 0;
		unsigned sm;
		int n = 0;

		if (sscanf(*specs, "%7s sm_%u%n", kind, &sm, &n) < 2)
			abort();
		if ((*specs)[n] == 'a' || (*specs)[n] == 'f')
			v = (*specs)[n];
		e.kind = strcmp(kind, "ptx") == 0 ? FATBIN_KIND_PTX : FATBIN_KIND_SASS;
		e.sm = sm;
		e.variant = v;
		f->entries = realloc(f->entries, (f->n_entries + 1) * sizeof e);
		f->entries[f->n_entries++] = e;
	}
}

static const char *verdict(const char *const *specs, int major, int minor, char *how_buf,
			   size_t len)
{
	struct fatbin_file f;
	struct fatbin_serving how;
	struct gpu_cap c = cap(major, minor, 0);
	char sm[32];

	fake(&f, specs);
	fatbin_serves(&db, &f, &c, &how);
	if (how.verdict == FATBIN_NOT_SERVED)
		snprintf(how_buf, len, "%s", fatbin_verdict_name(how.verdict));
	else
		snprintf(how_buf, len, "%s %s", fatbin_verdict_name(how.verdict),
			 fatbin_sm_name(how.sm, how.variant, sm, sizeof sm));
	free(f.entries);
	return how_buf;
}

static void test_parse(void)
{
	struct buf b = { .n = 0 };
	struct fatbin_file f;
	struct xcc_error err;
	size_t c;
	char *line;

	c = begin_container(&b);
	add_entry(&b, 2, 90, 0x100011, 32);
	add_entry(&b, 1, 90, 0x8011, 24);
	end_container(&b, c);
	b.n += 8; /* zero padding between containers */
	c = begin_container(&b);
	add_entry(&b, 2, 100, 0x1200011, 16);
	add_entry(&b, 2, 86, 0x2011, 16);
	add_entry(&b, 8, 75, 0x12011, 8);
	end_container(&b, c);

	ok(parse(&b, 1, &f, &err) == 0, "two containers with padding parse (%s)", err.msg);
	ok(f.n_containers == 2 && f.n_entries == 5, "2 containers, 5 entries (%zu, %zu)",
	   f.n_containers, f.n_entries);
	ok(f.entries[0].kind == FATBIN_KIND_SASS && f.entries[0].sm == 90 &&
	   f.entries[0].variant == 'a' && f.entries[0].compression == FATBIN_COMPRESS_NONE,
	   "flag 0x100000 is the 'a' variant");
	ok(f.entries[0].size == 32 && f.entries[0].uncompressed_size == 32,
	   "uncompressed size equals size when not compressed");
	ok(f.entries[1].kind == FATBIN_KIND_PTX && f.entries[1].compression == FATBIN_COMPRESS_ZSTD &&
	   f.entries[1].version_major == 9 && f.entries[1].version_minor == 0 &&
	   f.entries[1].uncompressed_size == 96,
	   "PTX entry: ZSTD, ISA 9.0, uncompressed size from the header");
	ok(f.entries[2].variant == 'f' && f.entries[2].sm == 100, "flag 0x200000 is the 'f' variant");
	ok(f.entries[3].compression == FATBIN_COMPRESS_LZ4, "flag 0x2000 is LZ4");
	ok(f.entries[4].kind == FATBIN_KIND_LTOIR, "kind 8 is LTO-IR");
	ok(f.entries[1].offset == 16 + 64 + 32, "offsets point at entry headers (%llu)",
	   (unsigned long long)f.entries[1].offset);
	line = fatbin_summary_line(&f);
	is_str(line, "sass sm_86 sm_90a sm_100f ptx sm_90 lto-ir sm_75", "summary line");
	free(line);
	ok(fatbin_has_device_code(&f), "has device code");
	fatbin_file_free(&f);

	/* The same bytes found by the data-section scan, behind junk. */
	{
		struct buf j = { .n = 0 };

		memset(j.b, 0x50, 40); /* the magic's first byte, repeated */
		j.n = 40;
		memcpy(j.b + j.n, b.b, b.n);
		j.n += b.n;
		ok(parse(&j, 0, &f, &err) == 0 && f.n_entries == 5 && f.n_containers == 2,
		   "the scan finds both containers behind junk");
		ok(f.entries[0].offset == 40 + 16, "scan offsets count from the section start");
		fatbin_file_free(&f);
		ok(parse(&j, 1, &f, &err) != 0 && strstr(err.msg, "+0x0: no fatbin container"),
		   "strict mode refuses junk: %s", err.msg);
		fatbin_file_free(&f);
	}
}

/* Each hostile variant of a one-entry container must fail with `want` in
 * the message, in strict mode, and be skipped without error by the scan. */
static void expect_broken(struct buf *b, const char *want, const char *what)
{
	struct fatbin_file f;
	struct xcc_error err;
	int rc = parse(b, 1, &f, &err);

	ok(rc != 0 && strstr(err.msg, want), "%s: %s", what, err.msg);
	fatbin_file_free(&f);
	rc = parse(b, 0, &f, &err);
	ok(rc == 0 && f.n_entries == 0, "%s: the scan skips it (%zu entries)", what, f.n_entries);
	fatbin_file_free(&f);
}

static void one_entry(struct buf *b, size_t *c, size_t *e)
{
	memset(b, 0, sizeof *b);
	*c = begin_container(b);
	*e = add_entry(b, 2, 87, 0x11, 32);
	end_container(b, *c);
}

static void test_hostile(void)
{
	struct buf b;
	struct fatbin_file f;
	struct xcc_error err;
	size_t c, e;

	one_entry(&b, &c, &e);
	ok(parse(&b, 1, &f, &err) == 0 && f.n_entries == 1, "the baseline parses");
	fatbin_file_free(&f);

	one_entry(&b, &c, &e);
	b.n -= 10;
	expect_broken(&b, "remain in the section", "truncated section");

	one_entry(&b, &c, &e);
	b.n = 10;
	expect_broken(&b, "container header cut off", "truncated container header");

	one_entry(&b, &c, &e);
	put(&b, c + 8, UINT64_MAX, 8);
	expect_broken(&b, "remain in the section", "container size 2^64-1");

	one_entry(&b, &c, &e);
	put(&b, c + 6, 0, 2);
	expect_broken(&b, "header size 0", "container header size 0");

	one_entry(&b, &c, &e);
	put(&b, c + 4, 2, 2);
	expect_broken(&b, "version 2", "container version 2");

	one_entry(&b, &c, &e);
	put(&b, e + 4, 0, 4);
	expect_broken(&b, "entry header size 0", "entry header size 0 (would loop)");

	one_entry(&b, &c, &e);
	put(&b, e + 4, 0xFFFFFFFFu, 4);
	expect_broken(&b, "entry header size 4294967295", "entry header size past the end");

	one_entry(&b, &c, &e);
	put(&b, e + 8, UINT64_MAX - 10, 8);
	expect_broken(&b, "runs past the end of its container", "entry payload size near 2^64");

	one_entry(&b, &c, &e);
	put(&b, e + 8, 33, 8);
	expect_broken(&b, "runs past the end of its container", "payload one byte too long");

	one_entry(&b, &c, &e);
	put(&b, e, 0, 2);
	expect_broken(&b, "kind 0", "entry kind 0");

	one_entry(&b, &c, &e);
	put(&b, e + 0x1c, 0, 4);
	expect_broken(&b, "without an SM", "SASS without an SM");

	one_entry(&b, &c, &e);
	put(&b, e + 0x28, 0xA011, 8);
	expect_broken(&b, "both LZ4 and ZSTD", "two compressions");

	one_entry(&b, &c, &e);
	put(&b, e + 0x28, 0x300011, 8);
	expect_broken(&b, "both the 'a' and the 'f'", "two variants");

	one_entry(&b, &c, &e);
	put(&b, e + 0x28, 0x8011, 8);
	put(&b, e + 0x10, 1000, 4);
	expect_broken(&b, "compressed size", "compressed size beyond the payload");

	one_entry(&b, &c, &e);
	put(&b, c + 8, 40, 8); /* entries end inside the header of the first */
	expect_broken(&b, "entry header cut off", "container too short for its entry");

	one_entry(&b, &c, &e);
	b.b[b.n++] = 0x7f;
	ok(parse(&b, 1, &f, &err) != 0 && strstr(err.msg, "+0x70: no fatbin container"),
	   "a stray byte after the container: %s", err.msg);
	fatbin_file_free(&f);

	/* An empty container is harmless: 16 bytes of progress. */
	memset(&b, 0, sizeof b);
	c = begin_container(&b);
	end_container(&b, c);
	ok(parse(&b, 1, &f, &err) == 0 && f.n_containers == 1 && f.n_entries == 0,
	   "an empty container parses to nothing");
	fatbin_file_free(&f);

	/* Many tiny entries: the count is bounded by the bytes. */
	memset(&b, 0, sizeof b);
	c = begin_container(&b);
	for (int i = 0; i < 100; i++)
		add_entry(&b, 2, 75, 0x11, 0);
	end_container(&b, c);
	ok(parse(&b, 1, &f, &err) == 0 && f.n_entries == 100, "100 empty-payload entries parse");
	fatbin_file_free(&f);

	ok(parse(&(struct buf){ .n = 0 }, 1, &f, &err) == 0 && f.n_entries == 0,
	   "an empty section has no entries");
	fatbin_file_free(&f);
}

static void test_memory(void)
{
	struct buf b = { .n = 0 };
	struct fatbin_file f;
	struct xcc_error err = { 0 };
	char junk[] = "this is no ELF file at all";
	size_t c;

	ok(fatbin_read_memory(junk, sizeof junk, "junk.txt", NULL, &f, &err) != 0 &&
	   err.status == XCC_EFAIL && strstr(err.msg, "junk.txt: not an ELF file"),
	   "text is refused as a failure (what is inside a file): %s", err.msg);
	c = begin_container(&b);
	add_entry(&b, 2, 121, 0x1000011, 8);
	end_container(&b, c);
	ok(fatbin_read_memory((char *)b.b, b.n, "k.fatbin", NULL, &f, &err) == 0 &&
	   f.n_entries == 1 && f.entries[0].sm == 121 && strcmp(f.entries[0].section, "fatbin") == 0,
	   "a bare fatbin is read");
	fatbin_file_free(&f);
	b.n -= 4;
	ok(fatbin_read_memory((char *)b.b, b.n, "cut.fatbin", NULL, &f, &err) != 0 &&
	   strncmp(err.msg, "cut.fatbin: fatbin+0x0:", 23) == 0,
	   "a truncated bare fatbin names file and offset: %s", err.msg);
}

static void test_names(void)
{
	char buf[32];
	struct fatbin_file f;
	char **names;
	static const char *const mix[] = { "sass sm_100f", "sass sm_90", "sass sm_100",
					   "sass sm_90a", "sass sm_90", "sass sm_100a",
					   "ptx sm_75", NULL };

	is_str(fatbin_sm_name(90, 'a', buf, sizeof buf), "sm_90a", "sm_90a");
	is_str(fatbin_sm_name(121, 0, buf, sizeof buf), "sm_121", "sm_121");
	is_str(fatbin_kind_name(2), "sass", "kind 2 is sass");
	is_str(fatbin_kind_name(77), "unknown", "kind 77 is unknown");
	is_str(fatbin_compression_name(FATBIN_COMPRESS_ZSTD), "zstd", "zstd");
	fake(&f, mix);
	ok(fatbin_sm_set(&f, FATBIN_KIND_SASS, &names) == 5, "duplicates are merged");
	ok(strcmp(names[0], "sm_90") == 0 && strcmp(names[1], "sm_90a") == 0 &&
	   strcmp(names[2], "sm_100") == 0 && strcmp(names[3], "sm_100a") == 0 &&
	   strcmp(names[4], "sm_100f") == 0 && names[5] == NULL,
	   "sorted numerically, then \"\" < a < f");
	fatbin_names_free(names);
	free(f.entries);
	memset(&f, 0, sizeof f);
	names = NULL;
	{
		char *line = fatbin_summary_line(&f);

		is_str(line, "sass - ptx -", "empty sets print as -");
		free(line);
	}
	ok(!fatbin_has_device_code(&f), "no device code in an empty inventory");
}

static void test_rules(void)
{
	/* One SASS entry at a time against GPUs. */
	ok(fatbin_sass_runs_on(80, 0, 8, 0, 0), "sm_80 runs on 8.0");
	ok(fatbin_sass_runs_on(80, 0, 8, 6, 0), "sm_80 runs on 8.6 (same major, higher minor)");
	ok(!fatbin_sass_runs_on(80, 0, 8, 7, 1), "sm_80 does not run on Orin 8.7 (Tegra: no minor-revision compatibility)");
	ok(!fatbin_sass_runs_on(86, 0, 8, 7, 1), "sm_86 does not run on Orin 8.7");
	ok(fatbin_sass_runs_on(87, 0, 8, 7, 1), "sm_87 runs on Orin 8.7");
	ok(!fatbin_sass_runs_on(87, 0, 8, 9, 1), "Tegra sm_87 does not run on desktop 8.9");
	ok(!fatbin_sass_runs_on(72, 0, 7, 5, 1), "Tegra sm_72 does not run on desktop 7.5");
	ok(fatbin_sass_runs_on(110, 'f', 11, 0, 1), "sm_110f runs on Thor 11.0 (same capability)");
	ok(fatbin_sass_runs_on(110, 'a', 11, 0, 1), "sm_110a runs on Thor 11.0");
	ok(!fatbin_sass_runs_on(86, 0, 8, 0, 0), "sm_86 does not run on 8.0 (lower minor)");
	ok(!fatbin_sass_runs_on(86, 0, 9, 0, 0), "sm_86 does not run on 9.0 (other major)");
	ok(!fatbin_sass_runs_on(90, 0, 8, 9, 0), "sm_90 does not run on 8.9");
	ok(fatbin_sass_runs_on(90, 'a', 9, 0, 0), "sm_90a runs on 9.0");
	ok(!fatbin_sass_runs_on(100, 'a', 10, 3, 0), "sm_100a does not run on 10.3");
	ok(!fatbin_sass_runs_on(120, 'a', 12, 1, 0), "sm_120a does not run on 12.1");
	ok(fatbin_sass_runs_on(100, 'f', 10, 0, 0), "sm_100f runs on 10.0");
	ok(fatbin_sass_runs_on(100, 'f', 10, 3, 0), "sm_100f runs on 10.3 (its family)");
	ok(!fatbin_sass_runs_on(103, 'f', 10, 0, 0), "sm_103f does not run on 10.0");
	ok(!fatbin_sass_runs_on(100, 'f', 10, 1, 0), "sm_100f does not run on 10.1 (own family)");
	ok(!fatbin_sass_runs_on(100, 0, 10, 1, 0), "sm_100 does not run on 10.1");
	ok(fatbin_sass_runs_on(101, 0, 10, 1, 0), "sm_101 runs on 10.1");
	ok(!fatbin_sass_runs_on(101, 0, 10, 3, 0), "sm_101 does not run on 10.3");
	ok(fatbin_sass_runs_on(120, 'f', 12, 1, 0), "sm_120f runs on 12.1");
	ok(!fatbin_sass_runs_on(110, 'f', 12, 0, 0), "sm_110f does not run on 12.0");
	ok(fatbin_sass_runs_on(110, 'f', 11, 0, 0), "sm_110f runs on Thor 11.0");

	ok(fatbin_ptx_jits_on(75, 0, 8, 7), "compute_75 JITs on 8.7");
	ok(fatbin_ptx_jits_on(87, 0, 8, 7), "compute_87 JITs on 8.7");
	ok(fatbin_ptx_jits_on(80, 0, 12, 1), "compute_80 JITs on 12.1 (any later major)");
	ok(!fatbin_ptx_jits_on(89, 0, 8, 7), "compute_89 does not JIT on 8.7");
	ok(!fatbin_ptx_jits_on(90, 0, 8, 9), "compute_90 does not JIT on 8.9");
	ok(fatbin_ptx_jits_on(90, 'a', 9, 0), "compute_90a JITs on 9.0 only");
	ok(!fatbin_ptx_jits_on(90, 'a', 10, 0), "compute_90a does not JIT on 10.0");
	ok(!fatbin_ptx_jits_on(100, 'f', 12, 0), "compute_100f does not JIT on 12.0");
	ok(fatbin_ptx_jits_on(100, 'f', 10, 3), "compute_100f JITs on 10.3");
}

static void test_serving(void)
{
	char b[64];
	static const char *const orin_lib[] = { "sass sm_75", "sass sm_80", "sass sm_86",
						"sass sm_90", "ptx sm_90", NULL };
	static const char *const jetson_ok[] = { "sass sm_72", "sass sm_87", NULL };
	static const char *const only_a[] = { "sass sm_90a", "sass sm_100a", NULL };
	static const char *const ptx_only[] = { "ptx sm_75", "ptx sm_86", NULL };
	static const char *const ptx_a[] = { "ptx sm_90a", NULL };
	static const char *const fam[] = { "sass sm_100f", "sass sm_120f", "ptx sm_120", NULL };
	static const char *const blas[] = { "sass sm_75", "sass sm_80", "sass sm_86", "sass sm_89",
					    "sass sm_90", "sass sm_90a", "sass sm_100",
					    "sass sm_100a", "sass sm_103", "sass sm_120",
					    "sass sm_121", "ptx sm_75", "ptx sm_120", NULL };
	static const char *const empty[] = { NULL };

	is_str(verdict(orin_lib, 8, 7, b, sizeof b), "NOT SERVED",
	       "Orin 8.7 is not served by sm_86 or sm_80 (no binary compatibility on Tegra)");
	is_str(verdict(orin_lib, 8, 6, b, sizeof b), "OK sm_86", "8.6 served by its own SASS");
	is_str(verdict(orin_lib, 8, 9, b, sizeof b), "OK sm_86", "8.9 served by sm_86");
	is_str(verdict(orin_lib, 9, 0, b, sizeof b), "OK sm_90", "9.0 served by sm_90");
	is_str(verdict(orin_lib, 10, 0, b, sizeof b), "PTX-JIT sm_90",
	       "10.0 has only compute_90 to JIT");
	is_str(verdict(orin_lib, 12, 1, b, sizeof b), "PTX-JIT sm_90", "12.1 likewise");
	is_str(verdict(orin_lib, 7, 2, b, sizeof b), "NOT SERVED",
	       "Xavier 7.2: sm_75 SASS cannot run, no PTX low enough");
	is_str(verdict(jetson_ok, 8, 7, b, sizeof b), "OK sm_87", "exact SASS wins");
	is_str(verdict(jetson_ok, 7, 5, b, sizeof b), "NOT SERVED",
	       "desktop 7.5 does not run Tegra sm_72 SASS");
	is_str(verdict(jetson_ok, 8, 9, b, sizeof b), "NOT SERVED",
	       "desktop 8.9 does not run Tegra sm_87 SASS");
	is_str(verdict(jetson_ok, 8, 6, b, sizeof b), "NOT SERVED", "sm_87 does not serve 8.6");
	is_str(verdict(only_a, 9, 0, b, sizeof b), "OK sm_90a", "sm_90a serves 9.0");
	is_str(verdict(only_a, 10, 3, b, sizeof b), "NOT SERVED", "sm_100a does not serve 10.3");
	is_str(verdict(only_a, 12, 0, b, sizeof b), "NOT SERVED", "a-only code serves no later GPU");
	is_str(verdict(ptx_only, 8, 7, b, sizeof b), "PTX-JIT sm_86",
	       "PTX-only: the highest PTX at or below the GPU");
	is_str(verdict(ptx_only, 7, 5, b, sizeof b), "PTX-JIT sm_75", "7.5 JITs compute_75");
	is_str(verdict(ptx_only, 7, 2, b, sizeof b), "NOT SERVED", "7.2 is below every PTX");
	is_str(verdict(ptx_a, 9, 0, b, sizeof b), "PTX-JIT sm_90a", "compute_90a JITs for 9.0");
	is_str(verdict(ptx_a, 10, 0, b, sizeof b), "NOT SERVED",
	       "compute_90a is no forward-compatible PTX");
	is_str(verdict(fam, 10, 3, b, sizeof b), "OK sm_100f", "sm_100f serves 10.3");
	is_str(verdict(fam, 12, 1, b, sizeof b), "OK sm_120f", "sm_120f serves 12.1");
	is_str(verdict(fam, 11, 0, b, sizeof b), "NOT SERVED",
	       "Thor 11.0: neither family, PTX 12.0 too high");
	is_str(verdict(blas, 8, 7, b, sizeof b), "PTX-JIT sm_75",
	       "a server cuBLAS-like set serves Orin 8.7 only through PTX");
	is_str(verdict(blas, 9, 0, b, sizeof b), "OK sm_90a",
	       "9.0: sm_90a preferred over sm_90 at the same SM");
	is_str(verdict(blas, 11, 0, b, sizeof b), "PTX-JIT sm_75",
	       "Thor 11.0 gets only compute_75 from the cuBLAS-like set");
	is_str(verdict(blas, 12, 1, b, sizeof b), "OK sm_121", "12.1 served by sm_121");
	is_str(verdict(empty, 8, 7, b, sizeof b), "NOT SERVED", "nothing serves nothing");

	{
		struct fatbin_file f;
		struct gpu_cap c = cap(9, 0, 'a');
		struct fatbin_serving how;

		fake(&f, orin_lib);
		ok(fatbin_serves(&db, &f, &c, &how) == FATBIN_SERVED_SASS && how.sm == 90,
		   "a requested 9.0a GPU is a 9.0 device: plain sm_90 SASS serves it");
		ok(fatbin_serves(&db, &f, &c, NULL) == FATBIN_SERVED_SASS, "how may be NULL");
		free(f.entries);
	}
	is_str(fatbin_verdict_name(FATBIN_SERVED_SASS), "OK", "verdict name OK");
	is_str(fatbin_verdict_name(FATBIN_SERVED_PTX_JIT), "PTX-JIT", "verdict name PTX-JIT");
	is_str(fatbin_verdict_name(FATBIN_NOT_SERVED), "NOT SERVED", "verdict name NOT SERVED");
}

/* fatbin_container_size: how sysroot's serving pass cuts a long section
 * into whole containers without a decoder of its own. */
static void test_container_size(void)
{
	static struct buf b;
	size_t c1, c2;

	b.n = 0;
	c1 = begin_container(&b);
	add_entry(&b, 2, 87, 0x11, 32);
	end_container(&b, c1);
	c2 = begin_container(&b);
	add_entry(&b, 2, 90, 0x11, 8);
	end_container(&b, c2);
	ok(fatbin_container_size(b.b + c1, b.n - c1) == c2 - c1,
	   "the first container's size, header included (%zu)", c2 - c1);
	ok(fatbin_container_size(b.b + c2, b.n - c2) == b.n - c2, "the second's");
	ok(fatbin_container_size(b.b + c1, 15) == 0, "fewer than 16 bytes: no container");
	ok(fatbin_container_size(b.b + c1 + 1, b.n - c1 - 1) == 0, "no magic: no container");
}

/* The SM fatbin_l4t_sass finds in specs for CUDA major.minor. */
static unsigned l4t_sm(const char *const *specs, int major, int minor)
{
	struct cuda_version v = { major, minor, -1 };
	struct fatbin_file f;
	unsigned sm;

	fake(&f, specs);
	sm = fatbin_l4t_sass(&db, &f, v);
	free(f.entries);
	return sm;
}

static void test_l4t(void)
{
	static const char *const sbsa_devrt[] = { "sass sm_35", "sass sm_37", "sass sm_50",
						  "sass sm_52", "sass sm_60", "sass sm_61",
						  "sass sm_70", "sass sm_75", "sass sm_80",
						  "sass sm_86", "sass sm_89", "sass sm_90",
						  "ptx sm_90", NULL };
	static const char *const l4t_devrt[] = { "sass sm_53", "sass sm_62", "sass sm_72",
						 "sass sm_87", NULL };
	static const char *const thor[] = { "sass sm_101", "sass sm_110", "sass sm_90", NULL };
	static const char *const orin13[] = { "sass sm_87", "sass sm_110", NULL };
	static const char *const ptx87[] = { "ptx sm_87", NULL };

	ok(l4t_sm(sbsa_devrt, 11, 8) == 0,
	   "Debian's 11.8 libcudadevrt.a set (SBSA) has no L4T-only SASS");
	ok(l4t_sm(l4t_devrt, 12, 6) == 53, "an L4T set: the first Jetson SM");
	ok(l4t_sm(thor, 12, 9) == 0, "Thor's sm_101 and sm_110 are SBSA GPUs: no L4T evidence");
	ok(l4t_sm(orin13, 13, 2) == 0, "CUDA 13 serves Orin through SBSA: sm_87 proves nothing");
	ok(l4t_sm(ptx87, 12, 6) == 0, "PTX is no build's mark: only SASS counts");
	{
		static const char *const cufile[] = { "sass sm_60", "sass sm_61", "sass sm_62",
						      "sass sm_70", "sass sm_72", "sass sm_75",
						      "sass sm_80", "sass sm_86", "ptx sm_80", NULL };
		struct fatbin_file f;

		fake(&f, cufile);
		ok(fatbin_l4t_sass(&db, &f, (struct cuda_version){ 12, 4, -1 }) == 62 &&
			   fatbin_discrete_sass(&db, &f) == 60,
		   "Debian's arm64 libcufile: Jetson SASS among every GPU's, so no build's mark");
		free(f.entries);
		fake(&f, l4t_devrt);
		ok(fatbin_discrete_sass(&db, &f) == 0, "an L4T set has no discrete GPU's SASS");
		free(f.entries);
	}
}

int main(void)
{
	struct xcc_error err = { 0 };

	if (gpudb_load(&db, &err)) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	test_parse();
	test_hostile();
	test_memory();
	test_names();
	test_rules();
	test_serving();
	test_container_size();
	test_l4t();
	gpudb_free(&db);
	return done_testing();
}
