#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"

int elfinfo_is_elf(const void *buf, size_t len)
{
	return len >= SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0;
}

static int libelf_ready(struct xcc_error *err)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return xcc_fail(err, XCC_EFAIL, "libelf is unusable: %s", elf_errmsg(-1));
	elf_errno(); /* clear a stale error number */
	return 0;
}

int elfinfo_begin(int fd, const char *path, Elf **out, struct xcc_error *err)
{
	unsigned char magic[SELFMAG];
	ssize_t got = pread(fd, magic, sizeof magic, 0);

	*out = NULL;
	if (got < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
	if (!elfinfo_is_elf(magic, (size_t)got))
		return xcc_fail(err, XCC_EFAIL, "%s: not an ELF file", path);
	if (libelf_ready(err))
		return -1;
	*out = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!*out || elf_kind(*out) != ELF_K_ELF) {
		xcc_fail(err, XCC_EFAIL, "%s: %s (the file is truncated or corrupt)", path,
			 *out ? "not an ELF file" : elf_errmsg(-1));
		if (*out)
			elf_end(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int elfinfo_begin_memory(void *buf, size_t len, const char *name, Elf **out,
			 struct xcc_error *err)
{
	if (libelf_ready(err))
		return -1;
	if (!(*out = elf_memory(buf, len)))
		return xcc_fail(err, XCC_EFAIL, "%s: %s", name, elf_errmsg(-1));
	return 0;
}

int elfinfo_open(const char *path, struct elfinfo_file *f, struct xcc_error *err)
{
	f->elf = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
	if (elfinfo_begin(f->fd, path, &f->elf, err)) {
		elfinfo_close(f);
		return -1;
	}
	return 0;
}

void elfinfo_close(struct elfinfo_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Whether every section header of e can be read and every section's bytes
 * lie within the file's size: a file cut short would otherwise read as one
 * without the sections (no version needs: nothing above any floor). */
static int elf_whole(Elf *e, off_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t n, seen = 0;

	/* libelf counts no sections when their table lies past the end. */
	if (!gelf_getehdr(e, &eh) || elf_getshdrnum(e, &n) || (eh.e_shoff && !n))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return 0;
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > (GElf_Off)size || sh.sh_size > (GElf_Off)size - sh.sh_offset))
			return 0;
		seen++;
	}
	/* elf_nextscn starts after section 0, the null section. */
	return seen + (n > 0) == n;
}

int elfinfo_classify(const char *path, enum elfinfo_kind *kind, struct xcc_error *err)
{
	struct stat st;
	Elf *e = NULL;
	int fd = -1, rc = -1;

	if (stat(path, &st)) {
		rc = xcc_fail(err, errno == ENOENT || errno == ENOTDIR ? XCC_EUSAGE : XCC_EFAIL,
			      "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = xcc_fail(err, XCC_EUSAGE, "%s: not a regular file", path);
		goto out;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (libelf_ready(err))
		goto out;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	switch (e ? elf_kind(e) : ELF_K_NONE) {
	case ELF_K_ELF:
		if (!elf_whole(e, st.st_size)) {
			rc = xcc_fail(err, XCC_EFAIL, "%s: not an ELF file (the file is truncated "
				      "or corrupt)", path);
			break;
		}
		*kind = ELFINFO_KIND_ELF;
		rc = 0;
		break;
	case ELF_K_AR:
		*kind = ELFINFO_KIND_AR;
		rc = 0;
		break;
	default:
		rc = xcc_fail(err, XCC_EFAIL, "%s: not an ELF file", path);
	}
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return rc;
}

int elfinfo_file_machine(const char *path)
{
	struct elfinfo_file f;
	struct xcc_error err;
	GElf_Ehdr eh;
	int machine = -1;

	if (elfinfo_open(path, &f, &err) == 0 && gelf_getehdr(f.elf, &eh))
		machine = eh.e_machine;
	elfinfo_close(&f);
	return machine;
}

/* The file offset of a virtual address, through the PT_LOAD that maps it
 * from the file; -1 when no segment does. */
static int vaddr_to_offset(Elf *e, size_t phnum, GElf_Addr vaddr, GElf_Off *off)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -1;
}

/* A NUL-terminated string at off inside a table of size len, or NULL. */
static const char *table_string(const Elf_Data *d, GElf_Xword off)
{
	const char *s;

	if (!d || off >= d->d_size)
		return NULL;
	s = (const char *)d->d_buf + off;
	return memchr(s, '\0', d->d_size - off) ? s : NULL;
}

static int corrupt(struct xcc_error *err, const char *what, const char *why)
{
	return xcc_fail(err, XCC_EFAIL, "%s: %s (the file is truncated or corrupt)", what, why);
}

static int read_dynamic(Elf *e, size_t phnum, const GElf_Phdr *dynph, const char *what,
			struct elfinfo *info, struct xcc_error *err)
{
	Elf_Data *dyn, *strtab;
	GElf_Addr strtab_addr = 0;
	GElf_Xword strsz = 0;
	GElf_Off stroff;
	size_t entsz = gelf_fsize(e, ELF_T_DYN, 1, EV_CURRENT), n;
	int have_strtab = 0;

	dyn = elf_getdata_rawchunk(e, (int64_t)dynph->p_offset, dynph->p_filesz, ELF_T_DYN);
	if (!dyn || !entsz)
		return corrupt(err, what, "the dynamic segment lies outside the file");
	n = dyn->d_size / entsz;
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn d;

		if (!gelf_getdyn(dyn, (int)i, &d) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB) {
			strtab_addr = d.d_un.d_ptr;
			have_strtab = 1;
		} else if (d.d_tag == DT_STRSZ) {
			strsz = d.d_un.d_val;
		}
	}
	if (!have_strtab)
		return 0;
	if (vaddr_to_offset(e, phnum, strtab_addr, &stroff))
		return corrupt(err, what, "DT_STRTAB is not inside a loadable segment");
	strtab = elf_getdata_rawchunk(e, (int64_t)stroff, strsz, ELF_T_BYTE);
	if (!strtab)
		return corrupt(err, what, "the dynamic string table lies outside the file");
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn d;
		const char *s;

		if (!gelf_getdyn(dyn, (int)i, &d) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED && d.d_tag != DT_RPATH && d.d_tag != DT_RUNPATH &&
		    d.d_tag != DT_SONAME)
			continue;
		s = table_string(strtab, d.d_un.d_val);
		if (!s)
			return corrupt(err, what, "a dynamic entry points outside the string table");
		switch (d.d_tag) {
		case DT_NEEDED:
			strvec_push(&info->needed, s);
			break;
		case DT_RPATH:
			free(info->rpath);
			info->rpath = xstrdup(s);
			break;
		case DT_RUNPATH:
			free(info->runpath);
			info->runpath = xstrdup(s);
			break;
		default:
			free(info->soname);
			info->soname = xstrdup(s);
			break;
		}
	}
	return 0;
}

/* A separate debug file keeps the section headers of the loaded sections
 * (and the notes) but not their bytes: code or dynamic-linking sections
 * that are SHT_NOBITS give it away. */
static int looks_like_debug_file(Elf *e)
{
	/* Not "any executable NOBITS section": 32-bit PowerPC's .plt is one. */
	static const char *const dynamic_sections[] = {
		".interp", ".dynamic", ".dynstr", ".dynsym", ".text", NULL
	};
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type != SHT_NOBITS || !sh.sh_size)
			continue;
		name = shstrndx ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		for (const char *const *n = dynamic_sections; name && *n; n++)
			if (strcmp(name, *n) == 0)
				return 1;
	}
	return 0;
}

static int read_elf_fields(Elf *e, const char *what, struct elfinfo *info,
			   struct xcc_error *err)
{
	GElf_Ehdr eh;
	size_t phnum, size;
	int has_load = 0;

	memset(info, 0, sizeof *info);
	if (elf_kind(e) != ELF_K_ELF)
		return xcc_fail(err, XCC_EFAIL, "%s: not an ELF file", what);
	if (!gelf_getehdr(e, &eh))
		return corrupt(err, what, elf_errmsg(-1));
	info->machine = eh.e_machine;
	info->elfclass = eh.e_ident[EI_CLASS];
	info->data = eh.e_ident[EI_DATA];
	info->osabi = eh.e_ident[EI_OSABI];
	info->type = eh.e_type;
	elf_rawfile(e, &size);
	if (elf_getphdrnum(e, &phnum))
		return corrupt(err, what, elf_errmsg(-1));
	/* A debug file's segments describe bytes it does not hold. */
	info->is_debug = looks_like_debug_file(e);
	if (info->is_debug)
		return 0;
	if (phnum && (eh.e_phoff > size || phnum * (size_t)eh.e_phentsize > size - eh.e_phoff))
		return corrupt(err, what, "the program header table lies outside the file");
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			return corrupt(err, what, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD && ph.p_type != PT_INTERP && ph.p_type != PT_DYNAMIC)
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			return corrupt(err, what, "a segment lies outside the file");
		if (ph.p_type == PT_LOAD) {
			has_load = 1;
		} else if (ph.p_type == PT_INTERP) {
			Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
							   ELF_T_BYTE);
			const char *s = d ? table_string(d, 0) : NULL;

			if (!s)
				return corrupt(err, what, "PT_INTERP does not hold a string");
			free(info->interp);
			info->interp = xstrdup(s);
		} else {
			info->has_dynamic = 1;
			if (read_dynamic(e, phnum, &ph, what, info, err))
				return -1;
		}
	}
	/* No PT_DYNAMIC: the loader reads no dynamic table, but patchelf prints
	 * (and patches) what the .dynamic section holds. */
	if (!info->has_dynamic) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(e, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC &&
			    (sh.sh_flags & SHF_ALLOC) && sh.sh_size && sh.sh_offset <= size &&
			    sh.sh_size <= size - sh.sh_offset) {
				GElf_Phdr as_segment = { .p_type = PT_DYNAMIC,
							 .p_offset = sh.sh_offset,
							 .p_filesz = sh.sh_size };

				if (read_dynamic(e, phnum, &as_segment, what, info, err))
					return -1;
				info->dynamic_section_only = 1;
				break;
			}
	}
	info->is_static = has_load && !info->has_dynamic && !info->interp &&
			  (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
	return 0;
}

/* On failure nothing stays allocated in info. */
static int read_elf(Elf *e, const char *what, struct elfinfo *info, struct xcc_error *err)
{
	if (read_elf_fields(e, what, info, err)) {
		elfinfo_free(info);
		return -1;
	}
	return 0;
}

int elfinfo_read_memory(const void *buf, size_t len, struct elfinfo *info,
			 struct xcc_error *err)
{
	char *copy;
	Elf *e;
	int rc;

	memset(info, 0, sizeof *info);
	if (!elfinfo_is_elf(buf, len))
		return xcc_fail(err, XCC_EFAIL, "(memory): not an ELF file");
	/* libelf may convert in place; the caller's bytes stay untouched. */
	copy = xmalloc(len);
	memcpy(copy, buf, len);
	if (elfinfo_begin_memory(copy, len, "(memory)", &e, err)) {
		free(copy);
		return corrupt(err, "(memory)", elf_errmsg(-1));
	}
	rc = read_elf(e, "(memory)", info, err);
	elf_end(e);
	free(copy);
	return rc;
}

int elfinfo_read(const char *path, struct elfinfo *info, struct xcc_error *err)
{
	struct elfinfo_file f;
	int rc;

	memset(info, 0, sizeof *info);
	rc = elfinfo_open(path, &f, err);
	if (rc == 0)
		rc = read_elf(f.elf, path, info, err);
	elfinfo_close(&f);
	return rc;
}

void elfinfo_free(struct elfinfo *info)
{
	free(info->interp);
	free(info->rpath);
	free(info->runpath);
	free(info->soname);
	strvec_free(&info->needed);
	memset(info, 0, sizeof *info);
}

char *elfinfo_machine_name(int machine, int elfclass)
{
	switch (machine) {
	case EM_X86_64:
		return xstrdup("x86_64");
	case EM_386:
		return xstrdup("i386");
	case EM_AARCH64:
		return xstrdup("aarch64");
	case EM_ARM:
		return xstrdup("arm");
	case EM_PPC64:
		return xstrdup("ppc64");
	case EM_PPC:
		return xstrdup("ppc");
	case EM_RISCV:
		return xstrdup(elfclass == ELFCLASS32 ? "riscv32" : "riscv64");
	case EM_S390:
		return xstrdup("s390x");
	case EM_MIPS:
		return xstrdup("mips");
	default:
		return xasprintf("machine-%d", machine);
	}
}

unsigned long elfinfo_default_page_size(int machine)
{
	switch (machine) {
	case EM_AARCH64:
	case EM_PPC64:
	case EM_PPC:
		return 65536;
	default:
		return 4096;
	}
}

/* patchelf's table: the names it prints and the words it accepts; the
 * codes it has no name for print as hex, though their words are taken. */
static const struct {
	int code;
	const char *name;  /* as printed, NULL: as hex */
	const char *words; /* accepted by --set-os-abi, '|'-separated */
} osabis[] = {
	{ ELFOSABI_SYSV, "System V", "none|sysv|system v|system-v" },
	{ ELFOSABI_HPUX, "HP-UX", "hpux|hp-ux" },
	{ ELFOSABI_NETBSD, "NetBSD", "netbsd" },
	{ ELFOSABI_LINUX, "Linux", "linux|gnu" },
	{ 4, "GNU Hurd", "hurd|gnu hurd|gnu-hurd" },
	{ ELFOSABI_SOLARIS, "Solaris", "solaris|sun" },
	{ ELFOSABI_AIX, "AIX", "aix" },
	{ ELFOSABI_IRIX, "IRIX", "irix" },
	{ ELFOSABI_FREEBSD, "FreeBSD", "freebsd" },
	{ ELFOSABI_TRU64, "Tru64", "tru64" },
	{ ELFOSABI_MODESTO, NULL, "modesto|novell modesto" },
	{ ELFOSABI_OPENBSD, "OpenBSD", "openbsd" },
	{ 13, "OpenVMS", "openvms" },
	{ ELFOSABI_ARM_AEABI, NULL, "arm_aeabi|arm-aeabi" },
	{ ELFOSABI_ARM, NULL, "arm" },
	{ ELFOSABI_STANDALONE, NULL, "standalone" },
};

const char *elfinfo_osabi_name(int osabi)
{
	for (size_t i = 0; i < sizeof osabis / sizeof osabis[0]; i++)
		if (osabis[i].code == osabi)
			return osabis[i].name;
	return NULL;
}

int elfinfo_osabi_parse(const char *word)
{
	for (size_t i = 0; i < sizeof osabis / sizeof osabis[0]; i++) {
		const char *w = osabis[i].words;
		size_t len = strlen(word);

		while (*w) {
			size_t wl = strcspn(w, "|");

			if (wl == len && strncasecmp(w, word, len) == 0)
				return osabis[i].code;
			w += wl + (w[wl] == '|');
		}
	}
	return -1;
}
