/* Fatbin inventory and the serving check.
 *
 * What the bytes say (nvcc 13.0 fixtures, tests/fatbin.bats, and the CUDA
 * 13.0 libraries; all little-endian):
 *
 * - Containers: u32 magic 0xBA55ED50, u16 version 1, u16 header size 16,
 *   u64 size of the entries that follow. Sections hold them back to back
 *   (libcublasLt: 2782 in .nv_fatbin); the next one starts right after.
 * - Entries: u16 kind (1 PTX, 2 ELF cubin, 8 LTO-IR), u16 0x0101, u32 header
 *   size (64; 80 or 96 for PTX; 112 for sm_100 and later cubins; 128 for
 *   LTO-IR), u64 payload size in the file (padded), +0x10 u32 compressed size
 *   (0 when not compressed), +0x14 u32 offset of an options block inside the
 *   header (0 when none; the block holds u32 offset and u32 length of e.g.
 *   "--compile-only"), +0x18 u16 minor and +0x1A u16 major version (the PTX
 *   ISA for PTX, 9.0 from nvcc 13.0; 1.8 for cubins), +0x1C u32 SM (90, 100,
 *   121), +0x28 u64 flags, +0x38 u64 uncompressed size (0 when not
 *   compressed).
 * - Flags: 0x1 64-bit, 0x10 Linux host, 0x2000 LZ4, 0x8000 ZSTD (the payload
 *   then starts with the zstd frame magic 28 b5 2f fd; an LZ4 payload is a
 *   raw block), 0x10000 on LTO-IR entries, 0x1000000 on every sm_100 and
 *   later cubin whatever its variant, and:
 *     0x100000  arch-specific 'a' (sm_90a, sm_100a, sm_120a, compute_90a)
 *     0x200000  family-specific 'f' (sm_100f, sm_110f, compute_100f)
 *   These two bits are the only reliable record of the variant. The
 *   embedded cubin's ELF header does not carry it: nvcc 13.0 writes ELF ABI
 *   version 8 with e_flags 0x06000000 | SM << 8 | 0x04 (0x02 from sm_100),
 *   identical for sm_90 and sm_90a, sm_100, sm_100a and sm_100f. Only the
 *   ptxas command line in the cubin's .note.nv.tkinfo ("-arch sm_90a")
 *   repeats it, and the first word of the extended header of sm_100+
 *   cubins (0x1090200 for 'a' against 0x90200). Uncompressed PTX text says
 *   ".target sm_90a" / ".target sm_100f", but PTX is compressed by default.
 * - Compression: nvcc 13.0 compresses PTX with ZSTD by default and leaves
 *   cubins alone; --compress-mode=size compresses everything with ZSTD,
 *   --compress-mode=speed uses LZ4 for PTX, -Xfatbin=-compress-all with
 *   speed makes the cubins LZ4 too, --compress-mode=none stores everything
 *   plain. The inventory never needs to decompress: kind, SM and variant
 *   are in the entry header.
 * - Sections: a whole-program object or library has .nv_fatbin; a -rdc=true
 *   object has __nv_relfatbin instead (relocatable cubins, PTX with
 *   "--compile-only"); an -rdc executable has both, the device-linked code
 *   in .nv_fatbin. Libraries that load their kernels themselves keep
 *   containers in ordinary data sections: libcufft.so.12 has one container
 *   in .nv_fatbin and about 24000 in .ldata, so those are searched by magic
 *   too (unless fatbin_sections_only). cuSPARSE's spmm_op.o keeps PTX in
 *   .rodata the same way.
 * - cuobjdump 11.8 names the SM after the cubin's e_flags in the old layout
 *   (SM in the low byte), so it lists nvcc 13 cubins as "sm_4" and misreads
 *   CUDA 13 libraries; the fatbin header is the only stable source.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/fatbin.h"

#define CONTAINER_MAGIC 0xBA55ED50u
#define CONTAINER_HEADER 16
#define ENTRY_HEADER_MIN 64

#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define FLAG_ARCH_SPECIFIC 0x100000u
#define FLAG_FAMILY_SPECIFIC 0x200000u

/* The first 8 bytes of every container nvcc writes: magic, version 1,
 * header size 16. */
static const unsigned char container_start[8] = { 0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00 };

static uint64_t rd_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t fatbin_container_size(const unsigned char *data, size_t avail)
{
	/* u32 magic, u16 version, u16 header size, u64 size of what follows */
	if (avail < CONTAINER_HEADER || rd_le(data, 4) != CONTAINER_MAGIC)
		return 0;
	return rd_le(data + 6, 2) + rd_le(data + 8, 8);
}

static void push_entry(struct fatbin_file *f, const struct fatbin_entry *e)
{
	XGROW(f->entries, f->n_entries + 1, f->cap_entries);
	f->entries[f->n_entries++] = *e;
}

static size_t push_object(struct fatbin_file *f, const char *member)
{
	XGROW(f->objects, f->n_objects + 1, f->cap_objects);
	f->objects[f->n_objects].member = member ? xstrdup(member) : NULL;
	return f->n_objects++;
}

/* An error at offset `at` of a section: "SECTION+0xAT: message". */
static int __attribute__((format(printf, 4, 5)))
at_fail(struct xcc_error *err, const char *section, uint64_t at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xcc_vfail(err, XCC_EFAIL, fmt, ap);
	va_end(ap);
	return xcc_error_prefix(err, "%s+0x%llx", section, (unsigned long long)at);
}

/* Parse the container at data[0..avail); on success *len is its length.
 * strict=0 adds the checks that tell a container from data that happens to
 * start with the magic. Offsets in messages are from the section start. */
static int parse_container(const unsigned char *data, size_t avail, uint64_t at, int strict,
			   const char *section, size_t object, uint64_t base, struct fatbin_file *f,
			   size_t *len, struct xcc_error *err)
{
	typedef unsigned long long ull;
	uint64_t version, header, fat, pos, end;

	if (avail < CONTAINER_HEADER)
		return at_fail(err, section, at, "container header cut off after %zu bytes", avail);
	version = rd_le(data + 4, 2);
	header = rd_le(data + 6, 2);
	fat = rd_le(data + 8, 8);
	if (version != 1)
		return at_fail(err, section, at, "fatbin container version %llu (only 1 is known)",
			       (ull)version);
	if (header < CONTAINER_HEADER || header > avail)
		return at_fail(err, section, at, "container header size %llu is outside 16..%zu",
			       (ull)header, avail);
	if (fat > avail - header)
		return at_fail(err, section, at,
			       "container declares 0x%llx bytes of entries but only 0x%llx remain in "
			       "the section",
			       (ull)fat, (ull)(avail - header));
	if (!strict && fat == 0)
		return xcc_fail(err, XCC_EFAIL, "empty container");

	pos = header;
	end = header + fat;
	while (pos < end) {
		const unsigned char *e = data + pos;
		uint64_t rem = end - pos, ehs, size, flags, eat = at + pos;
		struct fatbin_entry ent = { 0 };

		if (rem < ENTRY_HEADER_MIN)
			return at_fail(err, section, eat,
				       "entry header cut off: %llu bytes left in the container, 64 needed",
				       (ull)rem);
		ent.kind = (unsigned)rd_le(e, 2);
		ehs = rd_le(e + 4, 4);
		size = rd_le(e + 8, 8);
		flags = rd_le(e + 0x28, 8);
		if (ehs < ENTRY_HEADER_MIN || ehs > rem)
			return at_fail(err, section, eat, "entry header size %llu is outside 64..%llu",
				       (ull)ehs, (ull)rem);
		if (size > rem - ehs)
			return at_fail(err, section, eat,
				       "entry payload of 0x%llx bytes runs past the end of its container "
				       "(0x%llx bytes left)",
				       (ull)size, (ull)(rem - ehs));
		if (ent.kind == 0)
			return at_fail(err, section, eat, "entry of kind 0");
		if (!strict && (rd_le(e + 2, 2) != 0x0101 ||
				(ent.kind != FATBIN_KIND_PTX && ent.kind != FATBIN_KIND_SASS &&
				 ent.kind != FATBIN_KIND_LTOIR)))
			return xcc_fail(err, XCC_EFAIL, "not an entry");
		ent.sm = (unsigned)rd_le(e + 0x1c, 4);
		if (ent.sm == 0 && ent.kind <= FATBIN_KIND_SASS)
			return at_fail(err, section, eat, "%s entry without an SM number",
				       fatbin_kind_name(ent.kind));
		if ((flags & FLAG_LZ4) && (flags & FLAG_ZSTD))
			return at_fail(err, section, eat,
				       "entry flags 0x%llx claim both LZ4 and ZSTD compression",
				       (ull)flags);
		if ((flags & FLAG_ARCH_SPECIFIC) && (flags & FLAG_FAMILY_SPECIFIC))
			return at_fail(err, section, eat,
				       "entry flags 0x%llx claim both the 'a' and the 'f' variant",
				       (ull)flags);
		ent.variant = flags & FLAG_ARCH_SPECIFIC ? 'a' : flags & FLAG_FAMILY_SPECIFIC ? 'f' : 0;
		ent.compression = flags & FLAG_LZ4    ? FATBIN_COMPRESS_LZ4
				  : flags & FLAG_ZSTD ? FATBIN_COMPRESS_ZSTD
						      : FATBIN_COMPRESS_NONE;
		ent.size = size;
		ent.uncompressed_size = ent.compression ? rd_le(e + 0x38, 8) : size;
		if (ent.compression && rd_le(e + 0x10, 4) > size)
			return at_fail(err, section, eat,
				       "compressed size 0x%llx is larger than the payload (0x%llx bytes)",
				       (ull)rd_le(e + 0x10, 4), (ull)size);
		ent.version_minor = (unsigned)rd_le(e + 0x18, 2);
		ent.version_major = (unsigned)rd_le(e + 0x1a, 2);
		ent.flags = flags;
		ent.section = section;
		ent.offset = base + eat;
		ent.object = object;
		push_entry(f, &ent);
		pos += ehs + size;
	}
	f->n_containers++;
	*len = (size_t)end;
	return 0;
}

int fatbin_parse_section(const unsigned char *data, size_t size, int strict, const char *section,
			 size_t object, uint64_t base, struct fatbin_file *f, struct xcc_error *err)
{
	size_t pos = 0, len;

	if (strict) {
		while (pos < size) {
			if (data[pos] == 0) {
				/* Alignment padding between containers. */
				pos++;
				continue;
			}
			if (size - pos < 4 || rd_le(data + pos, 4) != CONTAINER_MAGIC)
				return at_fail(err, section, pos,
					       "no fatbin container here (bad magic)");
			if (parse_container(data + pos, size - pos, pos, 1, section, object, base, f,
					    &len, err))
				return -1;
			pos += len;
		}
		return 0;
	}
	while (pos + sizeof container_start <= size) {
		const unsigned char *hit = memmem(data + pos, size - pos, container_start,
						  sizeof container_start);
		size_t at, saved_entries = f->n_entries;

		if (!hit)
			break;
		at = (size_t)(hit - data);
		if (parse_container(hit, size - at, at, 0, section, object, base, f, &len, NULL) == 0) {
			pos = at + len;
		} else {
			f->n_entries = saved_entries;
			pos = at + 1;
		}
	}
	return 0;
}

static int is_fatbin_section(const char *name)
{
	return strcmp(name, ".nv_fatbin") == 0 || strcmp(name, "__nv_relfatbin") == 0;
}

static const char *section_name_static(const char *name)
{
	static const char *const known[] = { ".nv_fatbin", "__nv_relfatbin", ".ldata", ".lrodata",
					     ".rodata", ".data", ".data.rel.ro", NULL };

	for (const char *const *k = known; *k; k++)
		if (strcmp(name, *k) == 0)
			return *k;
	return "data section";
}

static int read_elf_object(Elf *e, const char *label, const struct fatbin_options *opt,
			   struct fatbin_file *f, size_t object, struct xcc_error *err)
{
	size_t shstrndx, raw_size;
	const unsigned char *raw = (const unsigned char *)elf_rawfile(e, &raw_size);
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (!raw)
		return xcc_fail(err, XCC_EFAIL, "%s: cannot read the ELF image: %s", label,
				elf_errmsg(-1));
	if (!gelf_getehdr(e, &eh))
		return xcc_fail(err, XCC_EFAIL, "%s: cannot read the ELF header: %s", label,
				elf_errmsg(-1));
	/* libelf quietly finds no sections when their table was cut off. */
	if (eh.e_shoff > raw_size ||
	    (uint64_t)eh.e_shnum * eh.e_shentsize > raw_size - eh.e_shoff)
		return xcc_fail(err, XCC_EFAIL,
				"%s: the section header table (at 0x%llx) lies past the end of the file "
				"(0x%zx bytes): the file is truncated",
				label, (unsigned long long)eh.e_shoff, raw_size);
	if (elf_getshdrstrndx(e, &shstrndx))
		return xcc_fail(err, XCC_EFAIL, "%s: cannot read the section headers: %s", label,
				elf_errmsg(-1));
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		int fatbin;

		if (!gelf_getshdr(scn, &sh))
			return xcc_fail(err, XCC_EFAIL, "%s: cannot read a section header: %s", label,
					elf_errmsg(-1));
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			continue;
		fatbin = is_fatbin_section(name);
		if (!fatbin && (opt->fatbin_sections_only || sh.sh_type != SHT_PROGBITS ||
				!(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & SHF_EXECINSTR)))
			continue;
		if (sh.sh_offset > raw_size || sh.sh_size > raw_size - sh.sh_offset) {
			if (!fatbin)
				continue;
			return xcc_fail(err, XCC_EFAIL,
					"%s: section %s (0x%llx bytes at 0x%llx) runs past the end of the "
					"file (0x%zx bytes): the file is truncated",
					label, name, (unsigned long long)sh.sh_size,
					(unsigned long long)sh.sh_offset, raw_size);
		}
		if (fatbin_parse_section(raw + sh.sh_offset, sh.sh_size, fatbin,
					 section_name_static(name), object, sh.sh_offset, f, err))
			return xcc_error_prefix(err, "%s", label);
	}
	return 0;
}

static int read_archive(Elf *ar, const char *name, const struct fatbin_options *opt,
			struct fatbin_file *f, struct xcc_error *err)
{
	Elf_Cmd cmd = ELF_C_READ_MMAP;
	size_t ar_size = 0;
	Elf *m;

	elf_rawfile(ar, &ar_size);
	/* Members must be opened with the command the archive was: elf_memory
	 * uses ELF_C_READ_MMAP in elfutils 0.188, other versions the private
	 * variant. */
	m = elf_begin(-1, cmd, ar);
	if (!m) {
		cmd = ELF_C_READ_MMAP_PRIVATE;
		m = elf_begin(-1, cmd, ar);
	}
	if (!m && ar_size > 8) /* more than the "!<arch>\n" of an empty archive */
		return xcc_fail(err, XCC_EFAIL, "%s: broken archive: %s", name, elf_errmsg(-1));
	while (m) {
		Elf_Arhdr *h = elf_getarhdr(m);
		const char *member = h && h->ar_name ? h->ar_name : "?";

		/* The symbol table, the long-name table and anything that is no
		 * ELF object carry no device code. */
		if (elf_kind(m) == ELF_K_ELF) {
			char *label = xasprintf("%s(%s)", name, member);
			size_t object = push_object(f, member);
			int rc = read_elf_object(m, label, opt, f, object, err);

			free(label);
			if (rc) {
				elf_end(m);
				return -1;
			}
		}
		/* elf_next reports the end of the archive as an error too. */
		cmd = elf_next(m);
		elf_end(m);
		if (cmd == ELF_C_NULL)
			break;
		m = elf_begin(-1, cmd, ar);
		if (!m)
			return xcc_fail(err, XCC_EFAIL, "%s: broken archive after member %zu: %s", name,
					f->n_objects, elf_errmsg(-1));
	}
	return 0;
}

int fatbin_read_memory(char *buf, size_t len, const char *name, const struct fatbin_options *opt,
		       struct fatbin_file *out, struct xcc_error *err)
{
	static const struct fatbin_options defaults = { 0 };
	Elf *e;
	int rc = 0;

	memset(out, 0, sizeof *out);
	out->path = xstrdup(name);
	if (!opt)
		opt = &defaults;
	if (len >= 4 && rd_le((const unsigned char *)buf, 4) == CONTAINER_MAGIC) {
		/* A bare fatbin, as nvcc -fatbin writes it. */
		push_object(out, NULL);
		if (fatbin_parse_section((const unsigned char *)buf, len, 1, "fatbin", 0, 0, out, err)) {
			xcc_error_prefix(err, "%s", name);
			goto fail;
		}
		return 0;
	}
	if (elfinfo_begin_memory(buf, len, name, &e, err))
		goto fail;
	switch (elf_kind(e)) {
	case ELF_K_ELF:
		push_object(out, NULL);
		rc = read_elf_object(e, name, opt, out, 0, err);
		break;
	case ELF_K_AR:
		rc = read_archive(e, name, opt, out, err);
		break;
	default:
		rc = xcc_fail(err, XCC_EFAIL,
			      "%s: not an ELF file, static archive or fatbin; give a library, an "
			      "executable, an object file or a .a",
			      name);
	}
	elf_end(e);
	if (rc)
		goto fail;
	return 0;
fail:
	fatbin_file_free(out);
	return -1;
}

int fatbin_read_file(const char *path, const struct fatbin_options *opt, struct fatbin_file *out,
		     struct xcc_error *err)
{
	struct stat st;
	void *map;
	int fd, rc;

	memset(out, 0, sizeof *out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xcc_fail(err, errno == ENOENT ? XCC_EUSAGE : XCC_EFAIL, "%s: %s", path,
				strerror(errno));
	if (fstat(fd, &st)) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return xcc_fail(err, XCC_EUSAGE, "%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return xcc_fail(err, XCC_EFAIL, "%s: empty file", path);
	}
	/* Private and writable: libelf may convert headers in place, and the
	 * file must never change. Pages are only copied if that happens. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return xcc_fail(err, XCC_EFAIL, "%s: cannot map the file: %s", path, strerror(errno));
	rc = fatbin_read_memory(map, (size_t)st.st_size, path, opt, out, err);
	munmap(map, (size_t)st.st_size);
	return rc;
}

void fatbin_file_free(struct fatbin_file *f)
{
	for (size_t i = 0; i < f->n_objects; i++)
		free(f->objects[i].member);
	free(f->objects);
	free(f->entries);
	free(f->path);
	memset(f, 0, sizeof *f);
}

const char *fatbin_sm_name(unsigned sm, char variant, char *buf, size_t len)
{
	snprintf(buf, len, "sm_%u%s", sm, variant == 'a' ? "a" : variant == 'f' ? "f" : "");
	return buf;
}

const char *fatbin_kind_name(unsigned kind)
{
	static const char *const names[] = { [FATBIN_KIND_PTX] = "ptx", [FATBIN_KIND_SASS] = "sass",
					     [FATBIN_KIND_LTOIR] = "lto-ir" };

	if (kind < sizeof names / sizeof *names && names[kind])
		return names[kind];
	return "unknown";
}

const char *fatbin_compression_name(enum fatbin_compression c)
{
	switch (c) {
	case FATBIN_COMPRESS_LZ4: return "lz4";
	case FATBIN_COMPRESS_ZSTD: return "zstd";
	default: return "none";
	}
}

static int variant_rank(char v)
{
	return v == 'a' ? 1 : v == 'f' ? 2 : 0;
}

struct sm_key {
	unsigned sm;
	char variant;
};

static int sm_key_cmp(const void *pa, const void *pb)
{
	const struct sm_key *a = pa, *b = pb;

	if (a->sm != b->sm)
		return a->sm < b->sm ? -1 : 1;
	return variant_rank(a->variant) - variant_rank(b->variant);
}

size_t fatbin_sm_set(const struct fatbin_file *f, unsigned kind, char ***names)
{
	struct sm_key *keys = xmalloc((f->n_entries + 1) * sizeof *keys);
	size_t n = 0, out = 0;

	for (size_t i = 0; i < f->n_entries; i++)
		if (f->entries[i].kind == kind)
			keys[n++] = (struct sm_key){ f->entries[i].sm, f->entries[i].variant };
	qsort(keys, n, sizeof *keys, sm_key_cmp);
	*names = xmalloc((n + 1) * sizeof **names);
	for (size_t i = 0; i < n; i++) {
		char buf[32];

		if (i && sm_key_cmp(&keys[i - 1], &keys[i]) == 0)
			continue;
		(*names)[out++] = xstrdup(fatbin_sm_name(keys[i].sm, keys[i].variant, buf, sizeof buf));
	}
	(*names)[out] = NULL;
	free(keys);
	return out;
}

void fatbin_names_free(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

static void append_set(struct strvec *sv, const struct fatbin_file *f, unsigned kind, int always)
{
	char **names;
	size_t n = fatbin_sm_set(f, kind, &names);

	if (n || always) {
		strvec_push(sv, fatbin_kind_name(kind));
		if (!n)
			strvec_push(sv, "-");
		for (size_t i = 0; i < n; i++)
			strvec_push(sv, names[i]);
	}
	fatbin_names_free(names);
}

char *fatbin_summary_line(const struct fatbin_file *f)
{
	struct strvec sv = STRVEC_INIT;
	char *s;

	append_set(&sv, f, FATBIN_KIND_SASS, 1);
	append_set(&sv, f, FATBIN_KIND_PTX, 1);
	append_set(&sv, f, FATBIN_KIND_LTOIR, 0);
	s = strvec_join(&sv, " ");
	strvec_free(&sv);
	return s;
}

int fatbin_has_device_code(const struct fatbin_file *f)
{
	for (size_t i = 0; i < f->n_entries; i++)
		if (f->entries[i].kind == FATBIN_KIND_SASS || f->entries[i].kind == FATBIN_KIND_PTX)
			return 1;
	return 0;
}

/* Binary compatibility groups: a cubin for X.y runs on X.z, z >= y, of the
 * same group. The group is the major version, except 10.1 (Thor under CUDA
 * 12.8-12.9), which NVIDIA split off on its own (its family sm_101f holds
 * only 10.1, and CUDA 13 renamed it 11.0). */
static int compat_group(int major, int minor)
{
	if (major == 10 && minor == 1)
		return 1001;
	return major;
}

/*
 * The minor-revision rule is the desktop's. NVIDIA's CUDA C++ Programming
 * Guide, "Binary Compatibility" (section 6.1.2 in the 12.x guides,
 * https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility),
 * after "a cubin object generated for compute capability X.y will only
 * execute on devices of compute capability X.z where z>=y", notes:
 * "Binary compatibility is supported only for the desktop. It is not
 * supported for Tegra. Also, the binary compatibility between desktop and
 * Tegra is not supported." So when the GPU or the cubin's SM is an
 * integrated (Tegra) one, only a cubin of exactly that capability runs
 * (any variant: sm_87, sm_110a and sm_110f all name that one GPU); PTX is
 * still JIT-compiled by the driver.
 */
int fatbin_sass_runs_on(unsigned sm, char variant, int major, int minor, int tegra)
{
	int smaj = (int)sm / 10, smin = (int)sm % 10;

	if (tegra)
		return smaj == major && smin == minor;
	/* 'a' code uses features of exactly one GPU. */
	if (variant == 'a')
		return smaj == major && smin == minor;
	/* Plain and 'f' code: within the group (for 'f' the family, which
	 * is the same set: sm_100f runs on 10.0 and 10.3, sm_120f on 12.0 and
	 * 12.1), on that minor or a later one. */
	return compat_group(smaj, smin) == compat_group(major, minor) && minor >= smin;
}

int fatbin_ptx_jits_on(unsigned sm, char variant, int major, int minor)
{
	int smaj = (int)sm / 10, smin = (int)sm % 10;

	/* a/f PTX uses features outside the forward-compatible set: the
	 * driver can only compile it for the GPUs its SASS would run on. */
	if (variant)
		return fatbin_sass_runs_on(sm, variant, major, minor, 0);
	/* Plain PTX JIT-compiles for any GPU at or above its SM. */
	return major > smaj || (major == smaj && minor >= smin);
}

/* Prefer the closest code: the highest SM that still serves, plain before
 * a/f at the same SM only when nothing more specific exists. */
static int better(const struct fatbin_entry *e, const struct fatbin_serving *best)
{
	if (!best->sm)
		return 1;
	if (e->sm != best->sm)
		return e->sm > best->sm;
	return variant_rank(e->variant) > variant_rank(best->variant);
}

enum fatbin_verdict fatbin_serves(const struct gpudb *db, const struct fatbin_file *f,
				  const struct gpu_cap *cap, struct fatbin_serving *how)
{
	struct fatbin_serving sass = { FATBIN_SERVED_SASS, 0, 0 }, ptx = { FATBIN_SERVED_PTX_JIT, 0, 0 };
	struct fatbin_serving none = { FATBIN_NOT_SERVED, 0, 0 }, *res = &none;

	for (size_t i = 0; i < f->n_entries; i++) {
		const struct fatbin_entry *e = &f->entries[i];

		int tegra = cap->tegra || gpudb_is_tegra(db, (int)e->sm / 10, (int)e->sm % 10);

		if (e->kind == FATBIN_KIND_SASS &&
		    fatbin_sass_runs_on(e->sm, e->variant, cap->major, cap->minor, tegra)) {
			if (better(e, &sass)) {
				sass.sm = e->sm;
				sass.variant = e->variant;
			}
		} else if (e->kind == FATBIN_KIND_PTX &&
			   fatbin_ptx_jits_on(e->sm, e->variant, cap->major, cap->minor)) {
			if (better(e, &ptx)) {
				ptx.sm = e->sm;
				ptx.variant = e->variant;
			}
		}
	}
	if (sass.sm)
		res = &sass;
	else if (ptx.sm)
		res = &ptx;
	if (how)
		*how = *res;
	return res->verdict;
}

unsigned fatbin_l4t_sass(const struct gpudb *db, const struct fatbin_file *f,
			 struct cuda_version v)
{
	int tmaj, tmin;

	gpudb_sbsa_threshold(db, v, &tmaj, &tmin);
	for (size_t i = 0; i < f->n_entries; i++) {
		const struct fatbin_entry *e = &f->entries[i];
		int major = (int)e->sm / 10, minor = (int)e->sm % 10;
		const struct gpu_cap *c;

		if (e->kind != FATBIN_KIND_SASS)
			continue;
		c = gpudb_find_cap(db, major, minor, '\0');
		if (c && c->jetson && (major < tmaj || (major == tmaj && minor < tmin)))
			return e->sm;
	}
	return 0;
}

unsigned fatbin_discrete_sass(const struct gpudb *db, const struct fatbin_file *f)
{
	for (size_t i = 0; i < f->n_entries; i++) {
		const struct fatbin_entry *e = &f->entries[i];
		const struct gpu_cap *c;

		if (e->kind != FATBIN_KIND_SASS)
			continue;
		c = gpudb_find_cap(db, (int)e->sm / 10, (int)e->sm % 10, '\0');
		if (c && !c->jetson)
			return e->sm;
	}
	return 0;
}

const char *fatbin_verdict_name(enum fatbin_verdict v)
{
	switch (v) {
	case FATBIN_SERVED_SASS: return "OK";
	case FATBIN_SERVED_PTX_JIT: return "PTX-JIT";
	default: return "NOT SERVED";
	}
}

int fatbin_verdict_parse(const char *name, enum fatbin_verdict *v)
{
	static const enum fatbin_verdict all[] = { FATBIN_SERVED_SASS, FATBIN_SERVED_PTX_JIT,
						   FATBIN_NOT_SERVED };

	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (strcmp(name, fatbin_verdict_name(all[i])) == 0) {
			*v = all[i];
			return 0;
		}
	return -1;
}

/*
 * The inventory of one shared library with bounded memory. fatbin_read_file
 * maps the whole file and searches every data section for containers, so
 * its resident set grows to the size of the library (cuFFT: 280 MB). Here
 * the search runs over windows of the mapping, each handed back to the
 * kernel (MADV_DONTNEED) once done; windows overlap so that a container
 * cut by one window's end is whole in the next, and entries seen twice are
 * counted once. .nv_fatbin sections are parsed whole: that parse reads the
 * headers only.
 */
#define SCAN_WINDOW ((size_t)8 << 20)
#define SCAN_OVERLAP ((size_t)8 << 20)

/* Entries are found in file order, so only those at or after the window's
 * start can be the same. */
static int entry_seen(const struct fatbin_file *f, size_t before, uint64_t window_start,
		      uint64_t offset)
{
	for (size_t i = before; i-- > 0 && f->entries[i].offset >= window_start;)
		if (f->entries[i].offset == offset)
			return 1;
	return 0;
}

static void drop_pages(unsigned char *map, size_t from, size_t to)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t start = from - from % (size_t)page;

	if (to > start)
		madvise(map + start, to - start, MADV_DONTNEED);
}

static int scan_section(unsigned char *map, const GElf_Shdr *sh, const char *label,
			struct fatbin_file *f, struct xcc_error *err)
{
	size_t off = sh->sh_offset, size = sh->sh_size;

	for (size_t w = 0; w < size; w += SCAN_WINDOW) {
		size_t len = size - w < SCAN_WINDOW + SCAN_OVERLAP ? size - w :
			SCAN_WINDOW + SCAN_OVERLAP;
		size_t before = f->n_entries, keep = before;

		if (fatbin_parse_section(map + off + w, len, 0, label, 0, off + w, f, err))
			return -1;
		/* Drop what the previous window's overlap had already found. */
		for (size_t i = before; i < f->n_entries; i++)
			if (!entry_seen(f, before, off + w, f->entries[i].offset))
				f->entries[keep++] = f->entries[i];
		f->n_entries = keep;
		drop_pages(map, off + w, off + w + (len < SCAN_WINDOW ? len : SCAN_WINDOW));
		if (len < SCAN_WINDOW + SCAN_OVERLAP)
			break;
	}
	return 0;
}

/* A .nv_fatbin section, parsed strictly in runs of whole containers so that
 * each run's pages can be dropped before the next (libcublasLt's section is
 * hundreds of MB). */
static int parse_fatbin_section(unsigned char *map, const GElf_Shdr *sh, const char *label,
				struct fatbin_file *f, struct xcc_error *err)
{
	const unsigned char *d = map + sh->sh_offset;
	size_t size = sh->sh_size, start = 0, pos = 0;

	while (pos < size) {
		uint64_t next, len = fatbin_container_size(d + pos, size - pos);

		if (!len) {
			if (d[pos] != 0 || size - pos < 16)
				break; /* not a container: the strict parse says what is wrong */
			pos++;
			continue;
		}
		next = pos + len;
		if (next <= pos || next > size)
			break;
		if (pos > start && next - start > SCAN_WINDOW) {
			if (fatbin_parse_section(d + start, pos - start, 1, label, 0,
						 sh->sh_offset + start, f, err))
				return -1;
			drop_pages(map, sh->sh_offset + start, sh->sh_offset + pos);
			start = pos;
		}
		pos = (size_t)next;
	}
	if (fatbin_parse_section(d + start, size - start, 1, label, 0, sh->sh_offset + start, f,
				 err))
		return -1;
	drop_pages(map, sh->sh_offset + start, sh->sh_offset + size);
	return 0;
}

int fatbin_read_file_bounded(const char *path, struct fatbin_file *f, struct xcc_error *err)
{
	struct fatbin_options sections_only = { 1 };
	unsigned char *map;
	struct stat st;
	size_t shstrndx;
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	int fd, rc = -1;

	memset(f, 0, sizeof *f);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size < 64) {
		if (fd >= 0)
			close(fd);
		return xcc_fail(err, XCC_EFAIL, "%s: cannot read it", path);
	}
	/* Private and writable, as libelf may convert headers in place. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return xcc_fail(err, XCC_EFAIL, "%s: cannot map it", path);
	madvise(map, (size_t)st.st_size, MADV_RANDOM);
	if (elfinfo_begin_memory(map, (size_t)st.st_size, path, &e, err))
		e = NULL;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		/* Static archives and the odd file: device code of .a members
		 * sits in their .nv_fatbin sections, whose parse reads headers. */
		if (e)
			elf_end(e);
		munmap(map, (size_t)st.st_size);
		return fatbin_read_file(path, &sections_only, f, err);
	}
	f->path = xstrdup(path);
	f->objects = xmalloc(sizeof *f->objects);
	f->objects[0].member = NULL;
	f->n_objects = f->cap_objects = 1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0 ||
		    sh.sh_offset > (uint64_t)st.st_size ||
		    sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && (strcmp(name, ".nv_fatbin") == 0 || strcmp(name, "__nv_relfatbin") == 0)) {
			if (parse_fatbin_section(map, &sh,
						 name[0] == '.' ? ".nv_fatbin" : "__nv_relfatbin", f,
						 err))
				goto out;
		} else if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_ALLOC) &&
			   !(sh.sh_flags & SHF_EXECINSTR)) {
			if (scan_section(map, &sh, "data", f, err))
				goto out;
		}
	}
	rc = 0;
out:
	elf_end(e);
	munmap(map, (size_t)st.st_size);
	if (rc)
		fatbin_file_free(f);
	return rc;
}
