#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch.h"

/* One change to bytes of the file. */
struct region {
	uint64_t off;
	size_t len;
	unsigned char *bytes;
	unsigned char *saved; /* the original bytes, for undo */
};

/* What the loader sees, in memory, while the ops are applied. */
struct model {
	const char *path;
	int fd;
	uint64_t size;
	Elf *e;
	GElf_Ehdr eh;
	GElf_Phdr *ph;
	size_t phnum;
	GElf_Shdr *sh;
	size_t shnum;
	unsigned char *sh_dirty; /* section headers to write back */
	size_t sh_dynstr, sh_dynamic, sh_interp; /* 0: no such section */
	int dyn_ph, interp_ph; /* -1: none */
	/* Where the dynamic table is: PT_DYNAMIC's, or without one the
	 * .dynamic section's (patchelf goes by the section). */
	int has_dyn;
	GElf_Off dyn_off;
	GElf_Xword dyn_size;
	size_t sh_dynsym, sh_versym; /* 0: no such section */
	GElf_Sym *dynsym;   /* .dynsym, read when an operation needs it */
	GElf_Half *versym;  /* .gnu.version, as many as dynsym; NULL: none */
	size_t ndynsym;
	int dynsym_loaded, dynsym_changed, versym_changed;
	GElf_Addr interp_vaddr_orig;
	GElf_Dyn *dyn;      /* without the terminating DT_NULL */
	size_t ndyn, dyn_cap, dyn_alloc;
	char *str;          /* .dynstr, followed by strings added */
	size_t strsz, strsz_orig, str_alloc;
	GElf_Off str_off;
	GElf_Addr str_addr;
	uint64_t str_dirty_lo, str_dirty_hi; /* bytes rewritten in place */
	char *interp;       /* wanted interpreter, NULL: unchanged */
	int ehdr_changed, dyn_changed, ph_changed;
	struct region *writes;
	size_t nwrites;
	uint64_t append_off; /* where the new segment goes; 0: no growth */
	unsigned char *append;
	size_t append_len;
	struct strvec *log;
	struct strvec *warnings;
	int warned_dyn_section;
};

static void logf_(struct model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct model *m, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	if (!m->log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	strvec_push(m->log, buf);
}

static int corrupt(struct model *m, struct xcc_error *err, const char *why)
{
	return xcc_fail(err, XCC_EFAIL, "%s: %s (the file is truncated or corrupt)", m->path, why);
}

static int vaddr_to_off(const struct model *m, GElf_Addr a, GElf_Off *off)
{
	for (size_t i = 0; i < m->phnum; i++) {
		const GElf_Phdr *p = &m->ph[i];

		if (p->p_type == PT_LOAD && a >= p->p_vaddr && a - p->p_vaddr < p->p_filesz) {
			*off = p->p_offset + (a - p->p_vaddr);
			return 0;
		}
	}
	return -1;
}

static void model_free(struct model *m)
{
	free(m->ph);
	free(m->sh);
	free(m->sh_dirty);
	free(m->dyn);
	free(m->str);
	free(m->interp);
	free(m->dynsym);
	free(m->versym);
	for (size_t i = 0; i < m->nwrites; i++) {
		free(m->writes[i].bytes);
		free(m->writes[i].saved);
	}
	free(m->writes);
	free(m->append);
	if (m->e)
		elf_end(m->e);
}

static int bad_sections(struct model *m, struct xcc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad_sections(struct model *m, struct xcc_error *err, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return xcc_fail(err, XCC_EFAIL, "%s: %s (the section headers are corrupt or the file is "
			"truncated)", m->path, why);
}

/* Whether sh_link of a section of this type names another section. */
static int link_is_section(GElf_Word type)
{
	return type == SHT_DYNAMIC || type == SHT_SYMTAB || type == SHT_DYNSYM ||
	       type == SHT_HASH || type == SHT_GNU_HASH || type == SHT_REL || type == SHT_RELA ||
	       type == SHT_GNU_versym || type == SHT_GNU_verdef || type == SHT_GNU_verneed ||
	       type == SHT_SYMTAB_SHNDX;
}

/*
 * Read the section headers and check what this file relies on: the table
 * inside the file, the section name table (its index, place, size and
 * final NUL), every name inside it, every section's bytes inside the file
 * and its links to existing sections. Each failure names what is wrong:
 * libelf alone would hand out garbage or a generic "invalid data".
 */
static int load_sections(struct model *m, struct xcc_error *err)
{
	size_t shstrndx;
	const GElf_Shdr *names;

	/* libelf quietly sees no sections where e_shentsize is wrong. */
	if (m->eh.e_shoff && m->eh.e_shentsize != gelf_fsize(m->e, ELF_T_SHDR, 1, EV_CURRENT))
		return bad_sections(m, err, "the section header size e_shentsize is %u, not %zu",
				    (unsigned)m->eh.e_shentsize,
				    gelf_fsize(m->e, ELF_T_SHDR, 1, EV_CURRENT));
	if (elf_getshdrnum(m->e, &m->shnum))
		return bad_sections(m, err, "the section header count cannot be read (%s)",
				    elf_errmsg(-1));
	if (!m->eh.e_shoff && m->eh.e_shnum)
		return bad_sections(m, err, "e_shnum says there are %u sections, but e_shoff "
				    "says there is no section header table",
				    (unsigned)m->eh.e_shnum);
	/* libelf counts no sections where the table lies outside the file. */
	if (m->eh.e_shnum > m->shnum)
		m->shnum = m->eh.e_shnum;
	if (m->eh.e_shoff &&
	    (m->eh.e_shoff > m->size || m->size - m->eh.e_shoff < m->eh.e_shentsize ||
	     m->shnum > (m->size - m->eh.e_shoff) / m->eh.e_shentsize))
		return bad_sections(m, err, "the section header table (%zu entries of %u bytes at "
				    "offset %#llx) lies outside the file of %llu bytes", m->shnum,
				    (unsigned)m->eh.e_shentsize,
				    (unsigned long long)m->eh.e_shoff,
				    (unsigned long long)m->size);
	m->sh = xmalloc((m->shnum + 1) * sizeof *m->sh);
	m->sh_dirty = calloc(m->shnum + 1, 1);
	for (size_t i = 0; i < m->shnum; i++) {
		Elf_Scn *scn = elf_getscn(m->e, i);

		if (!scn || !gelf_getshdr(scn, &m->sh[i]))
			return bad_sections(m, err, "section header %zu cannot be read (%s)", i,
					    elf_errmsg(-1));
	}
	if (!m->shnum)
		return 0;
	if (elf_getshdrstrndx(m->e, &shstrndx) || shstrndx == SHN_UNDEF ||
	    shstrndx >= m->shnum)
		return bad_sections(m, err, "the section name table's index (e_shstrndx %u) is "
				    "not one of the %zu sections", (unsigned)m->eh.e_shstrndx,
				    m->shnum);
	names = &m->sh[shstrndx];
	if (names->sh_type == SHT_NOBITS || names->sh_offset > m->size ||
	    names->sh_size > m->size - names->sh_offset)
		return bad_sections(m, err, "the section name table (section %zu, %llu bytes at "
				    "offset %#llx) lies outside the file", shstrndx,
				    (unsigned long long)names->sh_size,
				    (unsigned long long)names->sh_offset);
	if (!names->sh_size)
		return bad_sections(m, err, "the section name table (section %zu) is empty",
				    shstrndx);
	{
		Elf_Data *d = elf_getdata_rawchunk(m->e, (int64_t)names->sh_offset,
						   names->sh_size, ELF_T_BYTE);

		if (!d || ((const char *)d->d_buf)[d->d_size - 1] != '\0')
			return bad_sections(m, err, "the section name table (section %zu) does "
					    "not end with a NUL", shstrndx);
	}
	for (size_t i = 1; i < m->shnum; i++) {
		const GElf_Shdr *sh = &m->sh[i];

		if (sh->sh_name >= names->sh_size)
			return bad_sections(m, err, "section %zu's name (offset %u) lies past the "
					    "end of the section name table (%llu bytes)", i,
					    (unsigned)sh->sh_name,
					    (unsigned long long)names->sh_size);
		if (sh->sh_type != SHT_NOBITS && sh->sh_size &&
		    (sh->sh_offset > m->size || sh->sh_size > m->size - sh->sh_offset))
			return bad_sections(m, err, "section %zu (%llu bytes at offset %#llx) lies "
					    "outside the file of %llu bytes", i,
					    (unsigned long long)sh->sh_size,
					    (unsigned long long)sh->sh_offset,
					    (unsigned long long)m->size);
		if (link_is_section(sh->sh_type) && sh->sh_link >= m->shnum)
			return bad_sections(m, err, "section %zu links to section %u, but there "
					    "are only %zu", i, (unsigned)sh->sh_link, m->shnum);
		if (sh->sh_type == SHT_DYNSYM && !m->sh_dynsym)
			m->sh_dynsym = i;
		else if (sh->sh_type == SHT_GNU_versym && !m->sh_versym)
			m->sh_versym = i;
	}
	return 0;
}

static int model_load(struct model *m, struct xcc_error *err)
{
	struct stat st;
	size_t entsz;
	Elf_Data *d;

	if (fstat(m->fd, &st))
		return xcc_fail(err, XCC_EFAIL, "%s: %s", m->path, strerror(errno));
	m->size = (uint64_t)st.st_size;
	if (elfinfo_begin(m->fd, m->path, &m->e, err))
		return -1;
	if (!gelf_getehdr(m->e, &m->eh))
		return corrupt(m, err, elf_errmsg(-1));
	if (m->eh.e_type != ET_EXEC && m->eh.e_type != ET_DYN)
		return xcc_fail(err, XCC_EFAIL,
				"%s: not an executable or shared library (ELF type %d)", m->path,
				m->eh.e_type);
	if (elf_getphdrnum(m->e, &m->phnum))
		return corrupt(m, err, elf_errmsg(-1));
	if (m->eh.e_phoff > m->size ||
	    m->phnum * (uint64_t)m->eh.e_phentsize > m->size - m->eh.e_phoff)
		return corrupt(m, err, "the program header table lies outside the file");
	m->ph = xmalloc((m->phnum + 1) * sizeof *m->ph);
	m->dyn_ph = m->interp_ph = -1;
	for (size_t i = 0; i < m->phnum; i++) {
		GElf_Phdr *p = &m->ph[i];

		if (!gelf_getphdr(m->e, (int)i, p))
			return corrupt(m, err, elf_errmsg(-1));
		if ((p->p_type == PT_LOAD || p->p_type == PT_DYNAMIC || p->p_type == PT_INTERP) &&
		    (p->p_offset > m->size || p->p_filesz > m->size - p->p_offset))
			return corrupt(m, err, "a segment lies outside the file");
		if (p->p_type == PT_DYNAMIC && m->dyn_ph < 0)
			m->dyn_ph = (int)i;
		if (p->p_type == PT_INTERP && m->interp_ph < 0) {
			m->interp_ph = (int)i;
			m->interp_vaddr_orig = p->p_vaddr;
		}
	}
	if (load_sections(m, err))
		return -1;
	if (m->dyn_ph >= 0) {
		m->has_dyn = 1;
		m->dyn_off = m->ph[m->dyn_ph].p_offset;
		m->dyn_size = m->ph[m->dyn_ph].p_filesz;
	} else {
		/* No PT_DYNAMIC: the loader reads no dynamic table, but patchelf
		 * patches the .dynamic section, and so does this (with a warning). */
		for (size_t i = 1; i < m->shnum && !m->has_dyn; i++) {
			GElf_Off off;

			if (m->sh[i].sh_type != SHT_DYNAMIC || !(m->sh[i].sh_flags & SHF_ALLOC) ||
			    vaddr_to_off(m, m->sh[i].sh_addr, &off) || off != m->sh[i].sh_offset)
				continue;
			m->has_dyn = 1;
			m->dyn_off = m->sh[i].sh_offset;
			m->dyn_size = m->sh[i].sh_size;
		}
		if (!m->has_dyn)
			return 0;
	}

	entsz = gelf_fsize(m->e, ELF_T_DYN, 1, EV_CURRENT);
	/* An empty dynamic segment (a linker script's leftover) holds nothing. */
	d = m->dyn_size ? elf_getdata_rawchunk(m->e, (int64_t)m->dyn_off, m->dyn_size, ELF_T_DYN)
			: NULL;
	if ((m->dyn_size && !d) || !entsz)
		return corrupt(m, err, "the dynamic segment lies outside the file");
	m->dyn_cap = d ? d->d_size / entsz : 0;
	m->dyn_alloc = m->dyn_cap + 8;
	m->dyn = xmalloc(m->dyn_alloc * sizeof *m->dyn);
	for (size_t i = 0; i < m->dyn_cap; i++) {
		GElf_Dyn dy;

		if (!gelf_getdyn(d, (int)i, &dy) || dy.d_tag == DT_NULL)
			break;
		m->dyn[m->ndyn++] = dy;
	}
	for (size_t i = 0; i < m->ndyn; i++) {
		if (m->dyn[i].d_tag == DT_STRTAB)
			m->str_addr = m->dyn[i].d_un.d_ptr;
		else if (m->dyn[i].d_tag == DT_STRSZ)
			m->strsz_orig = m->dyn[i].d_un.d_val;
	}
	/* Without a string table only the operations that need one fail
	 * (need_dynamic): the interpreter or OS ABI can still change. */
	if (!m->str_addr)
		return 0;
	if (vaddr_to_off(m, m->str_addr, &m->str_off))
		return corrupt(m, err, "DT_STRTAB is not inside a loadable segment");
	d = elf_getdata_rawchunk(m->e, (int64_t)m->str_off, m->strsz_orig, ELF_T_BYTE);
	if (!d)
		return corrupt(m, err, "the dynamic string table lies outside the file");
	m->strsz = m->strsz_orig;
	m->str_alloc = m->strsz + 4096;
	m->str = xmalloc(m->str_alloc);
	memcpy(m->str, d->d_buf, m->strsz);
	m->str_dirty_lo = UINT64_MAX;

	for (size_t i = 1; i < m->shnum; i++) {
		if (m->sh[i].sh_type == SHT_STRTAB && m->sh[i].sh_offset == m->str_off &&
		    (m->sh[i].sh_flags & SHF_ALLOC))
			m->sh_dynstr = i;
		else if (m->sh[i].sh_type == SHT_DYNAMIC)
			m->sh_dynamic = i;
		else if (m->interp_ph >= 0 && m->sh[i].sh_type == SHT_PROGBITS &&
			 m->sh[i].sh_offset == m->ph[m->interp_ph].p_offset)
			m->sh_interp = i;
	}
	return 0;
}

/* The string at off in the dynamic string table, or NULL. */
static const char *str_at(const struct model *m, GElf_Xword off)
{
	if (off >= m->strsz || !memchr(m->str + off, '\0', m->strsz - off))
		return NULL;
	return m->str + off;
}

/* The offset of s added at the end of the string table, sharing nothing. */
static GElf_Xword str_append(struct model *m, const char *s)
{
	size_t len = strlen(s) + 1;

	if (m->strsz + len > m->str_alloc) {
		m->str_alloc = (m->strsz + len) * 2;
		m->str = xrealloc(m->str, m->str_alloc);
	}
	memcpy(m->str + m->strsz, s, len);
	m->strsz += len;
	return m->strsz - len;
}

/* The offset of s in the string table, added at the end if not there. */
static GElf_Xword str_add(struct model *m, const char *s)
{
	size_t len = strlen(s) + 1;
	const char *p = m->str, *end = m->str + m->strsz;

	/* An existing string, or the tail of one, serves as well. */
	while (p < end && (p = memmem(p, (size_t)(end - p), s, len))) {
		if (len > 1 || p == m->str || p[-1] == '\0')
			return (GElf_Xword)(p - m->str);
		p++;
	}
	return str_append(m, s);
}

static int dyn_find(const struct model *m, GElf_Sxword tag)
{
	for (size_t i = 0; i < m->ndyn; i++)
		if (m->dyn[i].d_tag == tag)
			return (int)i;
	return -1;
}

static void dyn_insert(struct model *m, size_t at, GElf_Sxword tag, GElf_Xword val)
{
	if (m->ndyn + 1 > m->dyn_alloc) {
		m->dyn_alloc = m->dyn_alloc * 2 + 8;
		m->dyn = xrealloc(m->dyn, m->dyn_alloc * sizeof *m->dyn);
	}
	memmove(&m->dyn[at + 1], &m->dyn[at], (m->ndyn - at) * sizeof *m->dyn);
	m->dyn[at].d_tag = tag;
	m->dyn[at].d_un.d_val = val;
	m->ndyn++;
	m->dyn_changed = 1;
}

static void dyn_remove(struct model *m, size_t at)
{
	memmove(&m->dyn[at], &m->dyn[at + 1], (m->ndyn - at - 1) * sizeof *m->dyn);
	m->ndyn--;
	m->dyn_changed = 1;
}

static int need_dynamic(struct model *m, struct xcc_error *err)
{
	if (!m->has_dyn) {
		for (size_t i = 1; i < m->shnum; i++)
			if (m->sh[i].sh_type == SHT_DYNAMIC)
				return xcc_fail(err, XCC_EFAIL,
						"%s: there is a .dynamic section but no PT_DYNAMIC "
						"program header: the dynamic loader never reads it (the "
						"program headers are damaged or the file was linked "
						"with a script that leaves it out)", m->path);
		return xcc_fail(err, XCC_EFAIL,
				"%s: no dynamic section: the file is statically linked", m->path);
	}
	if (!m->str)
		return corrupt(m, err, m->ndyn ? "the dynamic section has no DT_STRTAB"
					       : "the dynamic segment is empty");
	if (m->dyn_ph < 0 && !m->warned_dyn_section && m->warnings) {
		strvec_pushf(m->warnings, "%s: there is no PT_DYNAMIC program header, so the "
			     "dynamic loader never reads the .dynamic section; it is patched as "
			     "patchelf does, which changes nothing when the file is loaded",
			     m->path);
		m->warned_dyn_section = 1;
	}
	return 0;
}

/* Dynamic entries whose value is an offset into the string table. */
static int dyn_is_string(GElf_Sxword tag)
{
	return tag == DT_NEEDED || tag == DT_SONAME || tag == DT_RPATH || tag == DT_RUNPATH ||
	       tag == DT_AUXILIARY || tag == DT_FILTER || tag == DT_CONFIG ||
	       tag == DT_DEPAUDIT || tag == DT_AUDIT;
}

/* Whether the reference r shares bytes with the string run [lo, hi]: the
 * linker merges suffixes, so a reference anywhere in the run counts. */
static int ref_hits(GElf_Xword r, GElf_Xword lo, GElf_Xword hi)
{
	return r >= lo && r <= hi;
}

/* The version table at the address of dynamic entry tag, up to the end of
 * its segment, as libelf data of type t (its auxiliary entries are read
 * from the same data, by offset). NULL when it cannot be found. */
static Elf_Data *version_table(const struct model *m, GElf_Sxword tag, Elf_Type t)
{
	int i = dyn_find(m, tag);
	GElf_Addr a;

	if (i < 0)
		return NULL;
	a = m->dyn[i].d_un.d_ptr;
	for (size_t k = 0; k < m->phnum; k++) {
		const GElf_Phdr *p = &m->ph[k];

		if (p->p_type == PT_LOAD && a >= p->p_vaddr && a - p->p_vaddr < p->p_filesz)
			return elf_getdata_rawchunk(m->e, (int64_t)(p->p_offset + (a - p->p_vaddr)),
						    p->p_filesz - (a - p->p_vaddr), t);
	}
	return NULL;
}

/* Whether the version tables (needs, definitions) name a string in [lo, hi];
 * a table that cannot be read counts as a yes. */
static int version_refs_hit(const struct model *m, GElf_Xword lo, GElf_Xword hi)
{
	int vnn = dyn_find(m, DT_VERNEEDNUM), vdn = dyn_find(m, DT_VERDEFNUM);
	Elf_Data *d;

	if (dyn_find(m, DT_VERNEED) >= 0 && vnn >= 0) {
		size_t pos = 0;

		if (!(d = version_table(m, DT_VERNEED, ELF_T_VNEED)))
			return 1;
		for (GElf_Xword k = 0; k < m->dyn[vnn].d_un.d_val; k++) {
			GElf_Verneed n;
			size_t apos;

			if (!gelf_getverneed(d, (int)pos, &n) || ref_hits(n.vn_file, lo, hi))
				return 1;
			apos = pos + n.vn_aux;
			for (unsigned a = 0; a < n.vn_cnt; a++) {
				GElf_Vernaux aux;

				if (!gelf_getvernaux(d, (int)apos, &aux) ||
				    ref_hits(aux.vna_name, lo, hi))
					return 1;
				if (!aux.vna_next)
					break;
				apos += aux.vna_next;
			}
			if (!n.vn_next)
				break;
			pos += n.vn_next;
		}
	}
	if (dyn_find(m, DT_VERDEF) >= 0 && vdn >= 0) {
		size_t pos = 0;

		if (!(d = version_table(m, DT_VERDEF, ELF_T_VDEF)))
			return 1;
		for (GElf_Xword k = 0; k < m->dyn[vdn].d_un.d_val; k++) {
			GElf_Verdef v;
			size_t apos;

			if (!gelf_getverdef(d, (int)pos, &v))
				return 1;
			apos = pos + v.vd_aux;
			for (unsigned a = 0; a < v.vd_cnt; a++) {
				GElf_Verdaux aux;

				if (!gelf_getverdaux(d, (int)apos, &aux) ||
				    ref_hits(aux.vda_name, lo, hi))
					return 1;
				if (!aux.vda_next)
					break;
				apos += aux.vda_next;
			}
			if (!v.vd_next)
				break;
			pos += v.vd_next;
		}
	}
	return 0;
}

/* Read .dynsym (and .gnu.version, entry for entry) into the model, once:
 * operations change the copies, and plan writes them back whole. */
static int dynsym_load(struct model *m, struct xcc_error *err)
{
	size_t symsz = gelf_fsize(m->e, ELF_T_SYM, 1, EV_CURRENT);
	size_t halfsz = gelf_fsize(m->e, ELF_T_HALF, 1, EV_CURRENT);
	Elf_Data *d;

	if (m->dynsym_loaded)
		return 0;
	if (!m->sh_dynsym) {
		m->dynsym_loaded = 1;
		return 0;
	}
	if (m->sh[m->sh_dynsym].sh_entsize != symsz)
		return corrupt(m, err, "the .dynsym section's entry size is wrong");
	d = elf_getdata(elf_getscn(m->e, m->sh_dynsym), NULL);
	if (!d || d->d_size % symsz)
		return corrupt(m, err, "the .dynsym section cannot be read");
	m->ndynsym = d->d_size / symsz;
	m->dynsym = xmalloc((m->ndynsym + 1) * sizeof *m->dynsym);
	for (size_t k = 0; k < m->ndynsym; k++)
		if (!gelf_getsym(d, (int)k, &m->dynsym[k]))
			goto bad_symbol;
	if (m->sh_versym) {
		d = elf_getdata(elf_getscn(m->e, m->sh_versym), NULL);
		if (!d || !halfsz || d->d_size / halfsz != m->ndynsym)
			goto bad_versions;
		m->versym = xmalloc((m->ndynsym + 1) * sizeof *m->versym);
		memcpy(m->versym, d->d_buf, m->ndynsym * sizeof *m->versym);
	}
	m->dynsym_loaded = 1;
	return 0;
bad_symbol:
	free(m->dynsym);
	m->dynsym = NULL;
	m->ndynsym = 0;
	return corrupt(m, err, "a dynamic symbol cannot be read");
bad_versions:
	free(m->dynsym);
	m->dynsym = NULL;
	m->ndynsym = 0;
	return corrupt(m, err, "the symbol version table (.gnu.version) does not match the "
		       "dynamic symbols");
}

/* Whether any dynamic symbol's name lies in [lo, hi]. Without a section
 * header for .dynsym the symbols cannot be counted: assume yes. */
static int symbol_refs_hit(struct model *m, GElf_Xword lo, GElf_Xword hi)
{
	struct xcc_error ignored = { 0 };

	if (dynsym_load(m, &ignored)) {
		xcc_error_clear(&ignored);
		return 1;
	}
	for (size_t k = 0; k < m->ndynsym; k++)
		if (ref_hits(m->dynsym[k].st_name, lo, hi))
			return 1;
	return !m->sh_dynsym && dyn_find(m, DT_SYMTAB) >= 0;
}

/*
 * Whether anything but dynamic entry idx names a byte of the string at
 * off: other dynamic entries, dynamic symbols, version needs and
 * definitions. Strings share tails ("libfoo.so" serves "foo.so" too), so
 * every reference into the same NUL-terminated run counts.
 */
static int string_shared(struct model *m, int idx, GElf_Xword off)
{
	GElf_Xword lo = off, hi = off + strlen(m->str + off);

	while (lo > 0 && m->str[lo - 1] != '\0')
		lo--;
	for (size_t i = 0; i < m->ndyn; i++)
		if ((int)i != idx && dyn_is_string(m->dyn[i].d_tag) &&
		    ref_hits(m->dyn[i].d_un.d_val, lo, hi))
			return 1;
	return symbol_refs_hit(m, lo, hi) || version_refs_hit(m, lo, hi);
}

/* Set a string-valued entry: in place when the new string fits where the
 * old one was and nothing else names any byte of it, else a new string. */
static void set_string_entry(struct model *m, int idx, const char *s)
{
	GElf_Xword old = m->dyn[idx].d_un.d_val;
	const char *cur = str_at(m, old);

	if (cur && strcmp(cur, s) == 0)
		return;
	if (cur && old < m->strsz_orig && strlen(s) <= strlen(cur) &&
	    (m->dyn[idx].d_tag == DT_RPATH || m->dyn[idx].d_tag == DT_RUNPATH) &&
	    !string_shared(m, idx, old)) {
		size_t oldlen = strlen(cur);

		memset(m->str + old, 0, oldlen + 1);
		memcpy(m->str + old, s, strlen(s));
		if (old < m->str_dirty_lo)
			m->str_dirty_lo = old;
		if (old + oldlen + 1 > m->str_dirty_hi)
			m->str_dirty_hi = old + oldlen + 1;
		logf_(m, "%s: string rewritten in place", m->path);
		return;
	}
	m->dyn[idx].d_un.d_val = str_add(m, s);
	m->dyn_changed = 1;
	/* The old string is dead: patchelf marks such strings with Xs, and its
	 * test suite checks that they are (and that shared ones are not). */
	if (cur && old < m->strsz_orig &&
	    (m->dyn[idx].d_tag == DT_RPATH || m->dyn[idx].d_tag == DT_RUNPATH) &&
	    !string_shared(m, idx, old) && str_at(m, m->dyn[idx].d_un.d_val) &&
	    m->dyn[idx].d_un.d_val >= m->strsz_orig) {
		memset(m->str + old, 'X', strlen(m->str + old));
		if (old < m->str_dirty_lo)
			m->str_dirty_lo = old;
		if (old + strlen(m->str + old) > m->str_dirty_hi)
			m->str_dirty_hi = old + strlen(m->str + old);
	}
}

static int op_set_soname(struct model *m, const char *soname, struct xcc_error *err)
{
	int i;

	if (need_dynamic(m, err))
		return -1;
	i = dyn_find(m, DT_SONAME);
	if (i < 0) {
		logf_(m, "%s: adding DT_SONAME %s", m->path, soname);
		dyn_insert(m, m->ndyn, DT_SONAME, str_add(m, soname));
		return 0;
	}
	logf_(m, "%s: setting DT_SONAME to %s", m->path, soname);
	set_string_entry(m, i, soname);
	return 0;
}

static int op_set_interp(struct model *m, const char *interp, struct xcc_error *err)
{
	const GElf_Phdr *p;
	Elf_Data *d;

	if (m->interp_ph < 0)
		return xcc_fail(err, XCC_EFAIL,
				"%s: cannot find section '.interp'. The input file is most likely "
				"statically linked", m->path);
	p = &m->ph[m->interp_ph];
	d = elf_getdata_rawchunk(m->e, (int64_t)p->p_offset, p->p_filesz, ELF_T_BYTE);
	if (d && d->d_size && memchr(d->d_buf, '\0', d->d_size) &&
	    strcmp(d->d_buf, interp) == 0)
		return 0;
	free(m->interp);
	m->interp = xstrdup(interp);
	logf_(m, "%s: setting the interpreter to %s", m->path, interp);
	return 0;
}

/* Whether dir holds an ELF file called name for this file's machine. */
static int dir_has_library(const struct model *m, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int machine = elfinfo_file_machine(path);

	free(path);
	return machine == m->eh.e_machine;
}

static int has_allowed_prefix(const char *dir, const char *prefixes)
{
	struct strvec pv = STRVEC_INIT;
	int ok = 0;
	char *list = xstrdup(prefixes);

	for (char *tok = strtok(list, ":"); tok; tok = strtok(NULL, ":"))
		strvec_push(&pv, tok);
	for (size_t i = 0; i < pv.n && !ok; i++)
		ok = strncmp(dir, pv.v[i], strlen(pv.v[i])) == 0;
	strvec_free(&pv);
	free(list);
	return ok;
}

/* Keep only the directories that provide some DT_NEEDED library. */
static char *shrink_rpath(struct model *m, const char *rpath, const char *prefixes)
{
	struct strvec keep = STRVEC_INIT, needed = STRVEC_INIT;
	char *list = xstrdup(rpath), *save = NULL, *out;
	int *found;

	for (size_t i = 0; i < m->ndyn; i++)
		if (m->dyn[i].d_tag == DT_NEEDED && str_at(m, m->dyn[i].d_un.d_val))
			strvec_push(&needed, str_at(m, m->dyn[i].d_un.d_val));
	found = calloc(needed.n + 1, sizeof *found);
	for (char *dir = strtok_r(list, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		int useful = 0;

		/* $ORIGIN and other relative entries cannot be checked here. */
		if (dir[0] != '/') {
			strvec_push(&keep, dir);
			continue;
		}
		if (prefixes && !has_allowed_prefix(dir, prefixes)) {
			logf_(m, "%s: removing %s from the rpath (not an allowed prefix)", m->path,
			      dir);
			continue;
		}
		for (size_t j = 0; j < needed.n; j++)
			if (!found[j] && dir_has_library(m, dir, needed.v[j]))
				found[j] = useful = 1;
		if (useful)
			strvec_push(&keep, dir);
		else
			logf_(m, "%s: removing %s from the rpath", m->path, dir);
	}
	out = strvec_join(&keep, ":");
	free(found);
	free(list);
	strvec_free(&keep);
	strvec_free(&needed);
	return out;
}

static int op_rpath(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err)
{
	int rp, run, idx;
	const char *cur = NULL;
	char *want;
	GElf_Sxword tag = ops->force_rpath ? DT_RPATH : DT_RUNPATH;

	if (ops->rpath_op == ELFPATCH_RPATH_KEEP)
		return 0;
	if (need_dynamic(m, err))
		return -1;
	rp = dyn_find(m, DT_RPATH);
	run = dyn_find(m, DT_RUNPATH);
	if (run >= 0)
		cur = str_at(m, m->dyn[run].d_un.d_val);
	else if (rp >= 0)
		cur = str_at(m, m->dyn[rp].d_un.d_val);

	switch (ops->rpath_op) {
	case ELFPATCH_RPATH_REMOVE:
		for (int i = (int)m->ndyn - 1; i >= 0; i--)
			if (m->dyn[i].d_tag == DT_RPATH || m->dyn[i].d_tag == DT_RUNPATH)
				dyn_remove(m, (size_t)i);
		logf_(m, "%s: removing the rpath", m->path);
		return 0;
	case ELFPATCH_RPATH_SHRINK:
		if (!cur)
			return 0;
		want = shrink_rpath(m, cur, ops->allowed_rpath_prefixes);
		/* Shrinking keeps the kind of entry the file has. */
		tag = run >= 0 ? DT_RUNPATH : DT_RPATH;
		break;
	case ELFPATCH_RPATH_ADD:
		want = cur && *cur ? xasprintf("%s:%s", cur, ops->rpath) : xstrdup(ops->rpath);
		break;
	default:
		want = xstrdup(ops->rpath);
		break;
	}
	logf_(m, "%s: new rpath is '%s'", m->path, want);

	/* One entry of the kind asked for: convert the other kind, drop doubles. */
	idx = tag == DT_RUNPATH ? run : rp;
	if (idx < 0) {
		idx = tag == DT_RUNPATH ? rp : run;
		if (idx >= 0) {
			m->dyn[idx].d_tag = tag;
			m->dyn_changed = 1;
		}
	}
	for (int i = (int)m->ndyn - 1; i >= 0; i--)
		if (i != idx && (m->dyn[i].d_tag == DT_RPATH || m->dyn[i].d_tag == DT_RUNPATH)) {
			dyn_remove(m, (size_t)i);
			if (i < idx)
				idx--;
		}
	if (idx < 0)
		dyn_insert(m, m->ndyn, tag, str_add(m, want));
	else
		set_string_entry(m, idx, want);
	free(want);
	return 0;
}

/* Point .gnu.version_r's file names at a new string (vn_file is a Word). */
static int verneed_rename(struct model *m, GElf_Xword from, GElf_Xword to, struct xcc_error *err)
{
	int i = dyn_find(m, DT_VERNEED), j = dyn_find(m, DT_VERNEEDNUM);
	GElf_Off base, pos = 0;
	GElf_Xword count;
	Elf_Data *d;

	if (i < 0 || j < 0)
		return 0;
	count = m->dyn[j].d_un.d_val;
	if (vaddr_to_off(m, m->dyn[i].d_un.d_ptr, &base))
		return corrupt(m, err, "DT_VERNEED is not inside a loadable segment");
	for (GElf_Xword k = 0; k < count; k++) {
		GElf_Verneed vn;
		struct region *r;

		d = elf_getdata_rawchunk(m->e, (int64_t)(base + pos), sizeof(Elf32_Verneed),
					 ELF_T_VNEED);
		if (!d || !gelf_getverneed(d, 0, &vn))
			return corrupt(m, err, "bad version dependency table");
		if (vn.vn_file == from) {
			Elf_Data src = { 0 }, dst = { 0 };
			Elf32_Word w = (Elf32_Word)to;

			m->writes = xrealloc(m->writes, (m->nwrites + 1) * sizeof *m->writes);
			r = &m->writes[m->nwrites++];
			r->off = base + pos + offsetof(Elf32_Verneed, vn_file);
			r->len = sizeof w;
			r->bytes = xmalloc(sizeof w);
			r->saved = NULL;
			src.d_buf = &w;
			src.d_size = sizeof w;
			src.d_type = ELF_T_WORD;
			src.d_version = EV_CURRENT;
			dst.d_buf = r->bytes;
			dst.d_size = sizeof w;
			gelf_xlatetof(m->e, &dst, &src, m->eh.e_ident[EI_DATA]);
		}
		if (!vn.vn_next)
			break;
		pos += vn.vn_next;
	}
	return 0;
}

static int op_needed(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err)
{
	if (!ops->remove_needed.n && !ops->replace_needed.n && !ops->add_needed.n)
		return 0;
	if (need_dynamic(m, err))
		return -1;
	for (int i = (int)m->ndyn - 1; i >= 0; i--) {
		const char *s = m->dyn[i].d_tag == DT_NEEDED ? str_at(m, m->dyn[i].d_un.d_val)
							     : NULL;

		if (s && strvec_contains(&ops->remove_needed, s)) {
			logf_(m, "%s: removing DT_NEEDED %s", m->path, s);
			dyn_remove(m, (size_t)i);
		}
	}
	for (size_t k = 0; k + 1 < ops->replace_needed.n; k += 2) {
		const char *from = ops->replace_needed.v[k], *to = ops->replace_needed.v[k + 1];

		for (size_t i = 0; i < m->ndyn; i++) {
			const char *s = m->dyn[i].d_tag == DT_NEEDED
						? str_at(m, m->dyn[i].d_un.d_val) : NULL;
			GElf_Xword old, nw;

			if (!s || strcmp(s, from) || strcmp(from, to) == 0)
				continue;
			logf_(m, "%s: replacing DT_NEEDED %s with %s", m->path, from, to);
			old = m->dyn[i].d_un.d_val;
			nw = str_add(m, to);
			m->dyn[i].d_un.d_val = nw;
			m->dyn_changed = 1;
			if (verneed_rename(m, old, nw, err))
				return -1;
		}
	}
	for (size_t k = 0, at = 0; k < ops->add_needed.n; k++) {
		int present = 0;

		for (size_t i = 0; i < m->ndyn; i++)
			if (m->dyn[i].d_tag == DT_NEEDED && str_at(m, m->dyn[i].d_un.d_val) &&
			    strcmp(str_at(m, m->dyn[i].d_un.d_val), ops->add_needed.v[k]) == 0)
				present = 1;
		if (present)
			continue;
		logf_(m, "%s: adding DT_NEEDED %s", m->path, ops->add_needed.v[k]);
		dyn_insert(m, at++, DT_NEEDED, str_add(m, ops->add_needed.v[k]));
	}
	return 0;
}

static int op_no_default_lib(struct model *m, struct xcc_error *err)
{
	int i;

	if (need_dynamic(m, err))
		return -1;
	i = dyn_find(m, DT_FLAGS_1);
	if (i < 0) {
		dyn_insert(m, m->ndyn, DT_FLAGS_1, DF_1_NODEFLIB);
	} else if (!(m->dyn[i].d_un.d_val & DF_1_NODEFLIB)) {
		m->dyn[i].d_un.d_val |= DF_1_NODEFLIB;
		m->dyn_changed = 1;
	}
	return 0;
}

static int op_add_debug_tag(struct model *m, struct xcc_error *err)
{
	if (!m->has_dyn)
		return need_dynamic(m, err);
	if (dyn_find(m, DT_DEBUG) >= 0)
		return 0;
	logf_(m, "%s: adding DT_DEBUG", m->path);
	dyn_insert(m, m->ndyn, DT_DEBUG, 0);
	return 0;
}

static void add_write(struct model *m, uint64_t off, unsigned char *bytes, size_t len);

/* The version index of every dynamic symbol named in names becomes 1
 * (global, unversioned), as patchelf --clear-symbol-version does. */
static int op_clear_symbol_version(struct model *m, const struct strvec *names,
				   struct xcc_error *err)
{
	if (need_dynamic(m, err) || dynsym_load(m, err))
		return -1;
	if (!m->sh_dynsym || !m->versym)
		return xcc_fail(err, XCC_EFAIL, "%s: no %s section: the file's symbols carry no "
				"versions to clear", m->path, m->sh_dynsym ? ".gnu.version" : ".dynsym");
	for (size_t k = 0; k < m->ndynsym; k++) {
		const char *name = str_at(m, m->dynsym[k].st_name);

		if (!name || !strvec_contains(names, name) || m->versym[k] == 1)
			continue;
		logf_(m, "%s: clearing the symbol version of %s", m->path, name);
		m->versym[k] = 1;
		m->versym_changed = 1;
	}
	return 0;
}

/* The hash functions of .gnu.hash and of the System V .hash. */
static uint32_t gnu_hash(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = h * 33 + *c;
	return h;
}

static uint32_t sysv_hash(const char *name)
{
	uint32_t h = 0, g;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		h = (h << 4) + *c;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static unsigned char *encode(struct model *m, Elf_Type t, const void *items, size_t n,
			     size_t *len);

/* The words of a hash table section as file bytes. */
static void put_words(struct model *m, unsigned char *out, const void *words, size_t n,
		      Elf_Type t)
{
	size_t len;
	unsigned char *b = encode(m, t, words, n, &len);

	memcpy(out, b, len);
	free(b);
}

/* Dynamic relocations name symbols by index: follow a new order. */
static int remap_relocations(struct model *m, const size_t *old_to_new, struct xcc_error *err)
{
	for (size_t i = 1; i < m->shnum; i++) {
		const GElf_Shdr *sh = &m->sh[i];
		int rela = sh->sh_type == SHT_RELA;
		Elf_Type t = rela ? ELF_T_RELA : ELF_T_REL;
		size_t entsz = gelf_fsize(m->e, t, 1, EV_CURRENT), n, len;
		GElf_Rela *all;
		Elf_Data *d;
		unsigned char *b;
		int moved = 0;

		if ((sh->sh_type != SHT_RELA && sh->sh_type != SHT_REL) || sh->sh_link != m->sh_dynsym)
			continue;
		d = elf_getdata(elf_getscn(m->e, i), NULL);
		if (!d || !entsz || d->d_size % entsz)
			return corrupt(m, err, "a relocation section cannot be read");
		n = d->d_size / entsz;
		all = xmalloc((n + 1) * sizeof *all);
		for (size_t k = 0; k < n; k++) {
			GElf_Rel r;
			size_t sym;

			if (rela ? !gelf_getrela(d, (int)k, &all[k]) : !gelf_getrel(d, (int)k, &r)) {
				free(all);
				return corrupt(m, err, "a relocation cannot be read");
			}
			if (!rela) {
				all[k].r_offset = r.r_offset;
				all[k].r_info = r.r_info;
				all[k].r_addend = 0;
			}
			sym = GELF_R_SYM(all[k].r_info);
			if (sym >= m->ndynsym) {
				free(all);
				return corrupt(m, err, "a relocation names a symbol past the end of "
					       ".dynsym");
			}
			if (old_to_new[sym] != sym) {
				all[k].r_info = GELF_R_INFO(old_to_new[sym],
							    GELF_R_TYPE(all[k].r_info));
				moved = 1;
			}
		}
		if (moved) {
			if (!rela) {
				GElf_Rel *rel = xmalloc((n + 1) * sizeof *rel);

				for (size_t k = 0; k < n; k++) {
					rel[k].r_offset = all[k].r_offset;
					rel[k].r_info = all[k].r_info;
				}
				b = encode(m, t, rel, n, &len);
				free(rel);
			} else {
				b = encode(m, t, all, n, &len);
			}
			add_write(m, sh->sh_offset, b, len);
		}
		free(all);
	}
	return 0;
}

/*
 * Rebuild .gnu.hash for the symbols' new names. Its symbols must be grouped
 * by bucket, so the hashed ones (from symndx on) are sorted again, stably,
 * with their version entries, and the dynamic relocations follow. The
 * table keeps its size: bucket count, bloom filter size and shift.
 */
static int rebuild_gnu_hash(struct model *m, size_t shndx, struct xcc_error *err)
{
	const GElf_Shdr *sh = &m->sh[shndx];
	int is64 = m->eh.e_ident[EI_CLASS] == ELFCLASS64;
	size_t wordsz = is64 ? 8 : 4, n = m->ndynsym;
	uint32_t hdr[4], nbuckets, symndx, maskwords, shift2;
	uint32_t *hash = NULL, *buckets = NULL, *chain = NULL;
	size_t *order = NULL, *old_to_new = NULL, *count = NULL;
	uint64_t *bloom = NULL, total;
	Elf_Data *d = elf_getdata_rawchunk(m->e, (int64_t)sh->sh_offset, sizeof hdr, ELF_T_WORD);
	unsigned char *out;
	int rc = -1, reordered = 0;

	if (!d || sh->sh_size < sizeof hdr)
		return corrupt(m, err, "the .gnu.hash section is too small");
	memcpy(hdr, d->d_buf, sizeof hdr);
	nbuckets = hdr[0];
	symndx = hdr[1];
	maskwords = hdr[2];
	shift2 = hdr[3];
	total = 16 + (uint64_t)maskwords * wordsz + (uint64_t)nbuckets * 4 +
		(symndx <= n ? (uint64_t)(n - symndx) * 4 : 0);
	if (!nbuckets || !maskwords || (maskwords & (maskwords - 1)) || shift2 >= wordsz * 8 ||
	    16 + (uint64_t)maskwords * wordsz + (uint64_t)nbuckets * 4 > sh->sh_size)
		return corrupt(m, err, "the .gnu.hash header does not fit its section");
	if (symndx > n || total > sh->sh_size) {
		/* A table that hashes nothing (GNU ld's for a program exporting no
		 * symbol) may name any symndx: with every bucket empty there is
		 * nothing to rebuild. */
		Elf_Data *bd = elf_getdata_rawchunk(m->e, (int64_t)(sh->sh_offset + 16 +
								    maskwords * wordsz),
						    (size_t)nbuckets * 4, ELF_T_WORD);

		for (uint32_t b = 0; bd && b < nbuckets; b++)
			if (((const uint32_t *)bd->d_buf)[b])
				bd = NULL;
		if (!bd)
			return corrupt(m, err, "the .gnu.hash header does not fit its section");
		return 0;
	}

	hash = xmalloc((n + 1) * sizeof *hash);
	order = xmalloc((n + 1) * sizeof *order);
	old_to_new = xmalloc((n + 1) * sizeof *old_to_new);
	count = calloc((size_t)nbuckets + 1, sizeof *count);
	for (size_t k = 0; k < n; k++) {
		const char *name = str_at(m, m->dynsym[k].st_name);

		old_to_new[k] = order[k] = k;
		if (k < symndx)
			continue;
		if (!name) {
			corrupt(m, err, "a hashed dynamic symbol has no name");
			goto out;
		}
		hash[k] = gnu_hash(name);
		count[hash[k] % nbuckets + 1]++;
	}
	/* A stable counting sort by bucket. */
	for (uint32_t b = 0; b < nbuckets; b++)
		count[b + 1] += count[b];
	for (size_t k = symndx; k < n; k++)
		order[symndx + count[hash[k] % nbuckets]++] = k;
	for (size_t j = symndx; j < n; j++)
		if (order[j] != j) {
			reordered = 1;
			old_to_new[order[j]] = j;
		}
	if (reordered) {
		GElf_Sym *syms;
		uint32_t *hashes;

		if (m->eh.e_machine == EM_MIPS) {
			xcc_fail(err, XCC_EFAIL, "%s: renaming these symbols would reorder them, "
				 "which MIPS's GOT forbids", m->path);
			goto out;
		}
		for (size_t i = 1; i < m->shnum; i++)
			if (m->sh[i].sh_type == SHT_SYMTAB_SHNDX && m->sh[i].sh_link == m->sh_dynsym) {
				xcc_fail(err, XCC_EFAIL, "%s: .dynsym has extended section indices "
					 "(SHT_SYMTAB_SHNDX): renaming that needs the symbols "
					 "reordered is not supported", m->path);
				goto out;
			}
		syms = xmalloc((n + 1) * sizeof *syms);
		hashes = xmalloc((n + 1) * sizeof *hashes);

		for (size_t j = 0; j < n; j++) {
			syms[j] = m->dynsym[order[j]];
			hashes[j] = hash[order[j]];
		}
		memcpy(m->dynsym, syms, n * sizeof *syms);
		memcpy(hash, hashes, n * sizeof *hashes);
		free(syms);
		free(hashes);
		if (m->versym) {
			GElf_Half *v = xmalloc((n + 1) * sizeof *v);

			for (size_t j = 0; j < n; j++)
				v[j] = m->versym[order[j]];
			memcpy(m->versym, v, n * sizeof *v);
			free(v);
			m->versym_changed = 1;
		}
		if (remap_relocations(m, old_to_new, err))
			goto out;
		logf_(m, "%s: dynamic symbols reordered for .gnu.hash", m->path);
	}

	bloom = calloc(maskwords, sizeof *bloom);
	buckets = calloc(nbuckets, sizeof *buckets);
	chain = calloc(n - symndx + 1, sizeof *chain);
	for (size_t k = symndx; k < n; k++) {
		uint32_t h = hash[k], b = h % nbuckets;
		uint64_t bits = wordsz * 8;

		bloom[(h / bits) & (maskwords - 1)] |= (uint64_t)1 << (h % bits) |
						       (uint64_t)1 << ((h >> shift2) % bits);
		if (!buckets[b])
			buckets[b] = (uint32_t)k;
		/* The last symbol of a bucket has the low bit set. */
		chain[k - symndx] = (h & ~1u) | (k + 1 == n || hash[k + 1] % nbuckets != b);
	}
	out = xmalloc(total);
	put_words(m, out, hdr, 4, ELF_T_WORD);
	if (is64) {
		put_words(m, out + 16, bloom, maskwords, ELF_T_XWORD);
	} else {
		uint32_t *b32 = xmalloc(maskwords * sizeof *b32);

		for (uint32_t i = 0; i < maskwords; i++)
			b32[i] = (uint32_t)bloom[i];
		put_words(m, out + 16, b32, maskwords, ELF_T_WORD);
		free(b32);
	}
	put_words(m, out + 16 + maskwords * wordsz, buckets, nbuckets, ELF_T_WORD);
	if (n > symndx)
		put_words(m, out + 16 + maskwords * wordsz + nbuckets * 4, chain, n - symndx,
			  ELF_T_WORD);
	add_write(m, sh->sh_offset, out, (size_t)total);
	rc = 0;
out:
	free(hash);
	free(order);
	free(old_to_new);
	free(count);
	free(bloom);
	free(buckets);
	free(chain);
	return rc;
}

/* Rebuild the System V .hash: same bucket count, every symbol inserted. */
static int rebuild_sysv_hash(struct model *m, size_t shndx, struct xcc_error *err)
{
	const GElf_Shdr *sh = &m->sh[shndx];
	Elf_Data *d = elf_getdata_rawchunk(m->e, (int64_t)sh->sh_offset, 8, ELF_T_WORD);
	uint32_t hdr[2], *words;
	size_t n = m->ndynsym;
	unsigned char *out;

	if (sh->sh_entsize != 4)
		return xcc_fail(err, XCC_EFAIL, "%s: .hash has %llu-byte entries: renaming "
				"symbols there is not supported", m->path,
				(unsigned long long)sh->sh_entsize);
	if (!d || sh->sh_size < 8)
		return corrupt(m, err, "the .hash section is too small");
	memcpy(hdr, d->d_buf, sizeof hdr);
	if (!hdr[0] || hdr[1] != n || 8 + ((uint64_t)hdr[0] + n) * 4 > sh->sh_size)
		return corrupt(m, err, "the .hash header does not match .dynsym");
	words = calloc(2 + (size_t)hdr[0] + n, sizeof *words);
	words[0] = hdr[0];
	words[1] = hdr[1];
	for (size_t k = n; k-- > 1;) {
		const char *name = str_at(m, m->dynsym[k].st_name);
		uint32_t b;

		if (!name) {
			free(words);
			return corrupt(m, err, "a dynamic symbol has no name");
		}
		b = sysv_hash(name) % hdr[0];
		words[2 + hdr[0] + k] = words[2 + b];
		words[2 + b] = (uint32_t)k;
	}
	out = xmalloc((2 + hdr[0] + n) * 4);
	put_words(m, out, words, 2 + hdr[0] + n, ELF_T_WORD);
	free(words);
	add_write(m, sh->sh_offset, out, (2 + hdr[0] + n) * 4);
	return 0;
}

/* Compares two pointers to entries of a strvec by the strings. */
static int pair_cmp(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* patchelf --rename-dynamic-symbols: new names for dynamic symbols (defined
 * or not, whatever their version), appended to .dynstr, then the hash
 * tables rebuilt for them. */
static int op_rename_dynamic_symbols(struct model *m, const struct strvec *pairs,
				     struct xcc_error *err)
{
	size_t npairs = pairs->n / 2, renamed = 0;
	char *const **sorted;
	GElf_Xword *added;

	if (need_dynamic(m, err) || dynsym_load(m, err))
		return -1;
	if (!m->sh_dynsym)
		return xcc_fail(err, XCC_EFAIL, "%s: no .dynsym section header: the dynamic "
				"symbols cannot be found to rename them", m->path);
	/* Sorted pointers to the pairs' first strings; the second follows. */
	sorted = xmalloc((npairs + 1) * sizeof *sorted);
	added = calloc(npairs + 1, sizeof *added);
	for (size_t i = 0; i < npairs; i++)
		sorted[i] = &pairs->v[2 * i];
	qsort(sorted, npairs, sizeof *sorted, pair_cmp);
	for (size_t k = 1; k < m->ndynsym; k++) {
		char *name = (char *)str_at(m, m->dynsym[k].st_name);
		char *const *key = &name;
		char *const *const *hit;
		size_t p;

		if (!name)
			continue;
		hit = bsearch(&key, sorted, npairs, sizeof *sorted, pair_cmp);
		if (!hit)
			continue;
		p = (size_t)(*hit - pairs->v) / 2;
		if (strcmp(pairs->v[2 * p + 1], name) == 0)
			continue;
		logf_(m, "%s: renaming dynamic symbol %s to %s", m->path, name,
		      pairs->v[2 * p + 1]);
		/* Appended, never shared: a later in-place write cannot hit it. */
		if (!added[p])
			added[p] = str_append(m, pairs->v[2 * p + 1]);
		m->dynsym[k].st_name = added[p];
		renamed++;
	}
	free(sorted);
	free(added);
	if (!renamed)
		return 0;
	m->dynsym_changed = 1;
	for (size_t i = 1; i < m->shnum; i++)
		if (m->sh[i].sh_type == SHT_GNU_HASH && m->sh[i].sh_link == m->sh_dynsym &&
		    rebuild_gnu_hash(m, i, err))
			return -1;
	for (size_t i = 1; i < m->shnum; i++)
		if (m->sh[i].sh_type == SHT_HASH && m->sh[i].sh_link == m->sh_dynsym &&
		    rebuild_sysv_hash(m, i, err))
			return -1;
	return 0;
}

/* Set or clear PF_X of PT_GNU_STACK; a PT_NULL header may become one. */
static int op_execstack(struct model *m, int set, struct xcc_error *err)
{
	int null_ph = -1;

	for (size_t i = 0; i < m->phnum; i++) {
		GElf_Phdr *p = &m->ph[i];

		if (p->p_type == PT_NULL && null_ph < 0)
			null_ph = (int)i;
		if (p->p_type != PT_GNU_STACK)
			continue;
		if (!!(p->p_flags & PF_X) != set) {
			p->p_flags = set ? p->p_flags | PF_X : p->p_flags & ~(GElf_Word)PF_X;
			m->ph_changed = 1;
			logf_(m, "%s: %s the executable stack flag", m->path,
			      set ? "setting" : "clearing");
		}
		return 0;
	}
	if (null_ph < 0)
		return xcc_fail(err, XCC_EFAIL,
				"%s: no PT_GNU_STACK program header and no unused one to turn into "
				"it: relink with -z execstack or -z noexecstack", m->path);
	memset(&m->ph[null_ph], 0, sizeof m->ph[null_ph]);
	m->ph[null_ph].p_type = PT_GNU_STACK;
	m->ph[null_ph].p_flags = PF_R | PF_W | (set ? PF_X : 0);
	m->ph[null_ph].p_align = 1;
	m->ph_changed = 1;
	logf_(m, "%s: program header %d becomes PT_GNU_STACK", m->path, null_ph);
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* The file representation of n items of type t given as GElf structs. */
static unsigned char *encode(struct model *m, Elf_Type t, const void *items, size_t n,
			     size_t *len)
{
	int is64 = m->eh.e_ident[EI_CLASS] == ELFCLASS64;
	size_t fsz = gelf_fsize(m->e, t, n, EV_CURRENT);
	unsigned char *out = xmalloc(fsz ? fsz : 1), *mem;
	Elf_Data src = { 0 }, dst = { 0 };

	if (is64 || t == ELF_T_HALF || t == ELF_T_WORD) {
		mem = (unsigned char *)items;
	} else {
		mem = xmalloc(fsz ? fsz : 1);
		for (size_t i = 0; i < n; i++) {
			if (t == ELF_T_PHDR) {
				const GElf_Phdr *g = (const GElf_Phdr *)items + i;
				Elf32_Phdr p = { (Elf32_Word)g->p_type, (Elf32_Off)g->p_offset,
						 (Elf32_Addr)g->p_vaddr, (Elf32_Addr)g->p_paddr,
						 (Elf32_Word)g->p_filesz, (Elf32_Word)g->p_memsz,
						 (Elf32_Word)g->p_flags, (Elf32_Word)g->p_align };

				memcpy(mem + i * sizeof p, &p, sizeof p);
			} else if (t == ELF_T_DYN) {
				const GElf_Dyn *g = (const GElf_Dyn *)items + i;
				Elf32_Dyn dy = { (Elf32_Sword)g->d_tag,
						 { (Elf32_Word)g->d_un.d_val } };

				memcpy(mem + i * sizeof dy, &dy, sizeof dy);
			} else if (t == ELF_T_SHDR) {
				const GElf_Shdr *g = (const GElf_Shdr *)items + i;
				Elf32_Shdr s = { g->sh_name, g->sh_type, (Elf32_Word)g->sh_flags,
						 (Elf32_Addr)g->sh_addr, (Elf32_Off)g->sh_offset,
						 (Elf32_Word)g->sh_size, g->sh_link, g->sh_info,
						 (Elf32_Word)g->sh_addralign,
						 (Elf32_Word)g->sh_entsize };

				memcpy(mem + i * sizeof s, &s, sizeof s);
			} else if (t == ELF_T_RELA) {
				const GElf_Rela *g = (const GElf_Rela *)items + i;
				Elf32_Rela r = { (Elf32_Addr)g->r_offset,
						 ELF32_R_INFO(GELF_R_SYM(g->r_info),
							      GELF_R_TYPE(g->r_info)),
						 (Elf32_Sword)g->r_addend };

				memcpy(mem + i * sizeof r, &r, sizeof r);
			} else if (t == ELF_T_REL) {
				const GElf_Rel *g = (const GElf_Rel *)items + i;
				Elf32_Rel r = { (Elf32_Addr)g->r_offset,
						ELF32_R_INFO(GELF_R_SYM(g->r_info),
							     GELF_R_TYPE(g->r_info)) };

				memcpy(mem + i * sizeof r, &r, sizeof r);
			} else if (t == ELF_T_SYM) {
				const GElf_Sym *g = (const GElf_Sym *)items + i;
				Elf32_Sym sy = { g->st_name, (Elf32_Addr)g->st_value,
						 (Elf32_Word)g->st_size, g->st_info, g->st_other,
						 g->st_shndx };

				memcpy(mem + i * sizeof sy, &sy, sizeof sy);
			} else { /* ELF_T_EHDR */
				const GElf_Ehdr *g = items;
				Elf32_Ehdr h;

				memcpy(h.e_ident, g->e_ident, EI_NIDENT);
				h.e_type = g->e_type;
				h.e_machine = g->e_machine;
				h.e_version = g->e_version;
				h.e_entry = (Elf32_Addr)g->e_entry;
				h.e_phoff = (Elf32_Off)g->e_phoff;
				h.e_shoff = (Elf32_Off)g->e_shoff;
				h.e_flags = g->e_flags;
				h.e_ehsize = g->e_ehsize;
				h.e_phentsize = g->e_phentsize;
				h.e_phnum = g->e_phnum;
				h.e_shentsize = g->e_shentsize;
				h.e_shnum = g->e_shnum;
				h.e_shstrndx = g->e_shstrndx;
				memcpy(mem, &h, sizeof h);
			}
		}
	}
	src.d_buf = mem;
	src.d_size = fsz;
	src.d_type = t;
	src.d_version = EV_CURRENT;
	dst.d_buf = out;
	dst.d_size = fsz;
	dst.d_version = EV_CURRENT;
	gelf_xlatetof(m->e, &dst, &src, m->eh.e_ident[EI_DATA]);
	if (mem != items)
		free(mem);
	*len = fsz;
	return out;
}

static void add_write(struct model *m, uint64_t off, unsigned char *bytes, size_t len)
{
	struct region *r;

	/* Bytes that now live in the new segment go there. */
	if (m->append_len && off >= m->append_off && off - m->append_off <= m->append_len &&
	    len <= m->append_len - (off - m->append_off)) {
		memcpy(m->append + (off - m->append_off), bytes, len);
		free(bytes);
		return;
	}
	m->writes = xrealloc(m->writes, (m->nwrites + 1) * sizeof *m->writes);
	r = &m->writes[m->nwrites++];
	r->off = off;
	r->len = len;
	r->bytes = bytes;
	r->saved = NULL;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* Symbols defined in a section that moved (its section symbol, _DYNAMIC)
 * move with it: checkers insist their values stay inside the section. */
static void move_symbols(struct model *m, size_t shndx, GElf_Addr old, GElf_Addr nw)
{
	size_t entsz = gelf_fsize(m->e, ELF_T_SYM, 1, EV_CURRENT);

	if (!shndx || !entsz || old == nw)
		return;
	for (size_t i = 1; i < m->shnum; i++) {
		Elf_Scn *scn;
		Elf_Data *d;
		size_t n;

		if (m->sh[i].sh_type != SHT_SYMTAB && m->sh[i].sh_type != SHT_DYNSYM)
			continue;
		if (i == m->sh_dynsym && m->dynsym_loaded) {
			for (size_t k = 0; k < m->ndynsym; k++)
				if (m->dynsym[k].st_shndx == shndx) {
					m->dynsym[k].st_value = m->dynsym[k].st_value - old + nw;
					m->dynsym_changed = 1;
				}
			continue;
		}
		scn = elf_getscn(m->e, i);
		d = scn ? elf_getdata(scn, NULL) : NULL;
		if (!d)
			continue;
		n = d->d_size / entsz;
		for (size_t k = 0; k < n; k++) {
			GElf_Sym s;
			unsigned char *b;
			size_t len;

			if (!gelf_getsym(d, (int)k, &s) || s.st_shndx != shndx)
				continue;
			s.st_value = s.st_value - old + nw;
			b = encode(m, ELF_T_SYM, &s, 1, &len);
			add_write(m, m->sh[i].sh_offset + k * entsz, b, len);
		}
	}
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t lo, uint64_t hi)
{
	return alen && a < hi && a + alen > lo;
}

/*
 * For the program header table to grow by one entry where it is, the bytes
 * after it must move: find them. Only the interpreter string and notes
 * (with every segment that describes them) may move; anything else there,
 * or a table outside the first loadable segment, and this fails.
 */
static int room_after_phdrs(const struct model *m, uint64_t *lo_out, uint64_t *hi_out)
{
	uint64_t phsz = m->eh.e_phentsize, start = m->eh.e_phoff + m->phnum * phsz;
	uint64_t lo = start, hi = start + phsz;
	const GElf_Phdr *first = NULL;
	int changed = 1;

	if (!m->shnum)
		return -1;
	for (size_t i = 0; i < m->phnum; i++)
		if (m->ph[i].p_type == PT_LOAD && m->ph[i].p_offset <= m->eh.e_phoff &&
		    m->ph[i].p_offset + m->ph[i].p_filesz >= hi) {
			first = &m->ph[i];
			break;
		}
	if (!first)
		return -1;
	while (changed) {
		changed = 0;
		for (size_t i = 1; i < m->shnum; i++) {
			const GElf_Shdr *sh = &m->sh[i];

			if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC) ||
			    !overlaps(sh->sh_offset, sh->sh_size, lo, hi))
				continue;
			if (sh->sh_type != SHT_NOTE && i != m->sh_interp)
				return -1;
			if (sh->sh_offset < lo || sh->sh_offset + sh->sh_size > hi) {
				lo = sh->sh_offset < lo ? sh->sh_offset : lo;
				hi = sh->sh_offset + sh->sh_size > hi ? sh->sh_offset + sh->sh_size : hi;
				changed = 1;
			}
		}
		for (size_t i = 0; i < m->phnum; i++) {
			const GElf_Phdr *p = &m->ph[i];

			if (p->p_type == PT_LOAD || p->p_type == PT_PHDR ||
			    !overlaps(p->p_offset, p->p_filesz, lo, hi))
				continue;
			if (p->p_type != PT_NOTE && p->p_type != PT_GNU_PROPERTY &&
			    p->p_type != PT_INTERP)
				return -1;
			if (p->p_offset < lo || p->p_offset + p->p_filesz > hi) {
				lo = p->p_offset < lo ? p->p_offset : lo;
				hi = p->p_offset + p->p_filesz > hi ? p->p_offset + p->p_filesz : hi;
				changed = 1;
			}
		}
	}
	if (lo < start || hi > first->p_offset + first->p_filesz)
		return -1;
	*lo_out = lo;
	*hi_out = hi;
	return 0;
}

/* Move the bytes [lo, hi) of the first segment (notes, interpreter) to the
 * start of the new segment at o / v, with every header that points there;
 * the old place gets zeros (the growing program header table takes its
 * start). */
static void move_block(struct model *m, uint64_t lo, uint64_t hi, uint64_t o, GElf_Addr v)
{
	Elf_Data *d = elf_getdata_rawchunk(m->e, (int64_t)lo, hi - lo, ELF_T_BYTE);
	GElf_Addr lo_v = 0;

	for (size_t i = 0; i < m->phnum; i++)
		if (m->ph[i].p_type == PT_LOAD && m->ph[i].p_offset <= lo &&
		    m->ph[i].p_offset + m->ph[i].p_filesz >= hi) {
			lo_v = m->ph[i].p_vaddr + (lo - m->ph[i].p_offset);
			break;
		}
	if (d)
		memcpy(m->append, d->d_buf, hi - lo);
	add_write(m, lo, calloc(1, hi - lo), hi - lo);
	for (size_t i = 0; i < m->phnum; i++) {
		GElf_Phdr *p = &m->ph[i];

		if (p->p_type == PT_LOAD || p->p_type == PT_PHDR || !p->p_filesz ||
		    p->p_offset < lo || p->p_offset + p->p_filesz > hi)
			continue;
		p->p_offset = p->p_offset - lo + o;
		p->p_vaddr = p->p_vaddr - lo_v + v;
		p->p_paddr = p->p_vaddr;
	}
	for (size_t i = 1; i < m->shnum; i++) {
		GElf_Shdr *sh = &m->sh[i];
		GElf_Addr old = sh->sh_addr;

		if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC) || !sh->sh_size ||
		    sh->sh_offset < lo || sh->sh_offset + sh->sh_size > hi)
			continue;
		sh->sh_offset = sh->sh_offset - lo + o;
		sh->sh_addr = sh->sh_addr - lo_v + v;
		m->sh_dirty[i] = 1;
		move_symbols(m, i, old, sh->sh_addr);
	}
	logf_(m, "%s: moved %llu bytes of notes and interpreter to make room for the program "
	      "headers", m->path, (unsigned long long)(hi - lo));
}

/* Plan the bytes to write: in place where things fit, else a new segment. */
static int plan(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err)
{
	int grow_str = m->strsz > m->strsz_orig;
	int grow_dyn = m->dyn_changed && m->ndyn + 1 > m->dyn_cap;
	int grow_interp = m->interp &&
			  strlen(m->interp) + 1 > m->ph[m->interp_ph].p_filesz;
	int grow = grow_str || grow_dyn || grow_interp;
	size_t len, phsz = m->eh.e_phentsize;
	unsigned char *b;

	if (grow) {
		uint64_t page = ops->page_size ? ops->page_size
					       : elfinfo_default_page_size(m->eh.e_machine);
		int exec_like = (m->eh.e_type == ET_EXEC || m->interp_ph >= 0);
		uint64_t maxend = 0, delta0 = 0, o, v, pos, str_pos = 0, dyn_pos = 0, int_pos = 0;
		size_t last_load = 0, nph;
		int have_load = 0, phdr_ph = -1, in_place_phdrs = 0, extend = 0;
		GElf_Phdr *ll;
		uint64_t blk_lo = 0, blk_hi = 0;
		size_t dyn_len = 0;
		GElf_Phdr nl;

		for (size_t i = 0; i < m->phnum; i++) {
			if (m->ph[i].p_type == PT_PHDR)
				phdr_ph = (int)i;
			if (m->ph[i].p_type != PT_LOAD)
				continue;
			if (!have_load)
				delta0 = m->ph[i].p_vaddr - m->ph[i].p_offset;
			have_load = 1;
			last_load = i;
			if (m->ph[i].p_vaddr + m->ph[i].p_memsz > maxend)
				maxend = m->ph[i].p_vaddr + m->ph[i].p_memsz;
		}
		if (!have_load)
			return corrupt(m, err, "no loadable segment");
		/* The new segment follows the file's own alignment where it is
		 * larger (-z max-page-size=0x10000 on x86_64), so that every
		 * loadable segment agrees; --page-size decides alone. */
		for (size_t i = 0; i < m->phnum && !ops->page_size; i++)
			if (m->ph[i].p_type == PT_LOAD && m->ph[i].p_align > page &&
			    !(m->ph[i].p_align & (m->ph[i].p_align - 1)) &&
			    m->ph[i].p_align <= (1u << 24))
				page = m->ph[i].p_align;
		/* A static PIE is started by the kernel too. */
		if (dyn_find(m, DT_FLAGS_1) >= 0 &&
		    (m->dyn[dyn_find(m, DT_FLAGS_1)].d_un.d_val & DF_1_PIE))
			exec_like = 1;
		if (m->phnum + 1 >= PN_XNUM)
			return corrupt(m, err, "too many program headers");
		if (phsz != gelf_fsize(m->e, ELF_T_PHDR, 1, EV_CURRENT))
			return corrupt(m, err, "unexpected program header size");

		/* Executables: the kernel (and qemu) may compute AT_PHDR as the
		 * first segment's bias + e_phoff. Best, the table stays where it
		 * is and the notes and interpreter behind it move to make room;
		 * else the new segment's address - offset is kept equal to the
		 * first one's (the gap is a hole in the file). Libraries need
		 * only congruence modulo the page. */
		nph = m->phnum + 1;
		o = align_up(m->size, 16);
		ll = &m->ph[last_load];
		if (ll->p_offset + ll->p_filesz == m->size && ll->p_filesz == ll->p_memsz &&
		    ll->p_vaddr + ll->p_memsz == maxend && m->size - ll->p_offset < (1u << 30)) {
			/* The last segment ends the file (one we added before):
			 * it grows, and the program header table stays as it is. */
			extend = 1;
			nph = m->phnum;
			v = ll->p_vaddr + (o - ll->p_offset);
			pos = 0;
		} else if (exec_like && room_after_phdrs(m, &blk_lo, &blk_hi) == 0) {
			in_place_phdrs = 1;
			o += (blk_lo % 16 + 16 - o % 16) % 16;
			v = align_up(maxend, page) + o % page;
			pos = blk_hi - blk_lo;
		} else if (exec_like && delta0 % page == 0) {
			v = align_up(maxend, page);
			if (v - delta0 > o)
				o = v - delta0;
			v = o + delta0;
			pos = nph * phsz;
		} else {
			v = align_up(maxend, page) + o % page;
			pos = nph * phsz;
		}
		if (grow_interp) {
			int_pos = pos;
			pos += strlen(m->interp) + 1;
		}
		if (grow_str) {
			str_pos = pos;
			pos += m->strsz;
		}
		if (grow_dyn) {
			pos = align_up(pos, 8);
			dyn_pos = pos;
			/* Room for a few more entries, so later patches fit in place. */
			dyn_len = gelf_fsize(m->e, ELF_T_DYN, m->ndyn + 1 + 4, EV_CURRENT);
			pos += dyn_len;
		}
		m->append_off = o;
		m->append_len = pos;
		m->append = calloc(1, pos);

		if (extend) {
			ll->p_filesz = ll->p_memsz = o + pos - ll->p_offset;
			ll->p_flags |= PF_R | (grow_dyn ? PF_W : 0);
			if (ll->p_align < page)
				ll->p_align = page;
			logf_(m, "%s: last segment grows by %zu bytes at offset %#llx", m->path,
			      (size_t)pos, (unsigned long long)o);
			goto place_contents;
		}
		memset(&nl, 0, sizeof nl);
		nl.p_type = PT_LOAD;
		nl.p_offset = o;
		nl.p_vaddr = nl.p_paddr = v;
		nl.p_filesz = nl.p_memsz = pos;
		nl.p_flags = PF_R | (grow_dyn ? PF_W : 0);
		nl.p_align = page;
		memmove(&m->ph[last_load + 2], &m->ph[last_load + 1],
			(m->phnum - last_load - 1) * sizeof *m->ph);
		m->ph[last_load + 1] = nl;
		m->phnum = nph;
		if (m->dyn_ph > (int)last_load)
			m->dyn_ph++;
		if (m->interp_ph > (int)last_load)
			m->interp_ph++;
		if (phdr_ph >= 0 && phdr_ph > (int)last_load)
			phdr_ph++;
		if (in_place_phdrs) {
			move_block(m, blk_lo, blk_hi, o, v);
			if (phdr_ph >= 0)
				m->ph[phdr_ph].p_filesz = m->ph[phdr_ph].p_memsz = nph * phsz;
		} else {
			if (phdr_ph >= 0) {
				m->ph[phdr_ph].p_offset = o;
				m->ph[phdr_ph].p_vaddr = m->ph[phdr_ph].p_paddr = v;
				m->ph[phdr_ph].p_filesz = m->ph[phdr_ph].p_memsz = nph * phsz;
			}
			m->eh.e_phoff = o;
		}
		m->eh.e_phnum = (GElf_Half)nph;
		m->ehdr_changed = 1;
		logf_(m, "%s: new segment at offset %#llx, address %#llx, %zu bytes", m->path,
		      (unsigned long long)o, (unsigned long long)v, (size_t)pos);
place_contents:

		if (grow_interp) {
			GElf_Phdr *ip = &m->ph[m->interp_ph];
			GElf_Addr old_addr = m->interp_vaddr_orig;

			memcpy(m->append + int_pos, m->interp, strlen(m->interp) + 1);
			ip->p_offset = o + int_pos;
			ip->p_vaddr = ip->p_paddr = v + int_pos;
			ip->p_filesz = ip->p_memsz = strlen(m->interp) + 1;
			ip->p_align = 1;
			if (m->sh_interp) {
				m->sh[m->sh_interp].sh_offset = ip->p_offset;
				m->sh[m->sh_interp].sh_addr = ip->p_vaddr;
				m->sh[m->sh_interp].sh_size = ip->p_filesz;
				m->sh[m->sh_interp].sh_addralign = 1;
				m->sh_dirty[m->sh_interp] = 1;
				move_symbols(m, m->sh_interp, old_addr, ip->p_vaddr);
			}
			free(m->interp);
			m->interp = NULL;
		}
		if (grow_str) {
			memcpy(m->append + str_pos, m->str, m->strsz);
			for (size_t i = 0; i < m->ndyn; i++) {
				if (m->dyn[i].d_tag == DT_STRTAB)
					m->dyn[i].d_un.d_ptr = v + str_pos;
				else if (m->dyn[i].d_tag == DT_STRSZ)
					m->dyn[i].d_un.d_val = m->strsz;
			}
			m->dyn_changed = 1;
			if (m->sh_dynstr) {
				move_symbols(m, m->sh_dynstr, m->str_addr, v + str_pos);
				m->sh[m->sh_dynstr].sh_offset = o + str_pos;
				m->sh[m->sh_dynstr].sh_addr = v + str_pos;
				m->sh[m->sh_dynstr].sh_size = m->strsz;
				m->sh_dirty[m->sh_dynstr] = 1;
			}
			m->str_dirty_lo = UINT64_MAX;
			/* Nothing reads the old table any more: clear it, so the
			 * file does not carry two copies of every name. */
			add_write(m, m->str_off, calloc(1, m->strsz_orig), m->strsz_orig);
		}
		if (grow_dyn) {
			GElf_Addr old_addr = m->sh_dynamic ? m->sh[m->sh_dynamic].sh_addr : 0;

			if (m->dyn_ph >= 0) {
				GElf_Phdr *dp = &m->ph[m->dyn_ph];

				old_addr = dp->p_vaddr;
				dp->p_offset = o + dyn_pos;
				dp->p_vaddr = dp->p_paddr = v + dyn_pos;
				dp->p_filesz = dp->p_memsz = dyn_len;
			}
			m->dyn_off = o + dyn_pos;
			m->dyn_size = dyn_len;
			m->dyn_cap = m->ndyn + 1 + 4;
			if (m->sh_dynamic) {
				m->sh[m->sh_dynamic].sh_offset = o + dyn_pos;
				m->sh[m->sh_dynamic].sh_addr = v + dyn_pos;
				m->sh[m->sh_dynamic].sh_size = dyn_len;
				m->sh_dirty[m->sh_dynamic] = 1;
			}
			move_symbols(m, m->sh_dynamic, old_addr, v + dyn_pos);
		}
		b = encode(m, ELF_T_PHDR, m->ph, m->phnum, &len);
		if (in_place_phdrs || extend) {
			add_write(m, m->eh.e_phoff, b, len);
		} else {
			memcpy(m->append, b, len);
			free(b);
		}
	}

	if (m->ph_changed && !grow) {
		b = encode(m, ELF_T_PHDR, m->ph, m->phnum, &len);
		add_write(m, m->eh.e_phoff, b, len);
	}
	if (m->interp) { /* fits in place: pad with NULs to the old size */
		const GElf_Phdr *ip = &m->ph[m->interp_ph];

		b = calloc(1, ip->p_filesz);
		memcpy(b, m->interp, strlen(m->interp));
		add_write(m, ip->p_offset, b, ip->p_filesz);
	}
	if (m->dyn_changed) {
		GElf_Dyn *all = calloc(m->dyn_cap, sizeof *all);

		memcpy(all, m->dyn, m->ndyn * sizeof *all);
		b = encode(m, ELF_T_DYN, all, m->dyn_cap, &len);
		free(all);
		if (grow_dyn) {
			memcpy(m->append + (m->dyn_off - m->append_off), b, len);
			free(b);
		} else {
			add_write(m, m->dyn_off, b, len);
		}
	}
	if (m->str_dirty_lo < m->str_dirty_hi) {
		size_t n = (size_t)(m->str_dirty_hi - m->str_dirty_lo);

		b = xmalloc(n);
		memcpy(b, m->str + m->str_dirty_lo, n);
		add_write(m, m->str_off + m->str_dirty_lo, b, n);
	}
	if (m->dynsym_changed) {
		b = encode(m, ELF_T_SYM, m->dynsym, m->ndynsym, &len);
		add_write(m, m->sh[m->sh_dynsym].sh_offset, b, len);
	}
	if (m->versym_changed) {
		b = encode(m, ELF_T_HALF, m->versym, m->ndynsym, &len);
		add_write(m, m->sh[m->sh_versym].sh_offset, b, len);
	}
	if (m->ehdr_changed) {
		b = encode(m, ELF_T_EHDR, &m->eh, 1, &len);
		add_write(m, 0, b, len);
	}
	for (size_t i = 1; i < m->shnum; i++) {
		if (!m->sh_dirty[i])
			continue;
		b = encode(m, ELF_T_SHDR, &m->sh[i], 1, &len);
		add_write(m, m->eh.e_shoff + i * m->eh.e_shentsize, b, len);
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Write the plan into fd: new data past the end first, synced, then the
 * header bytes; on any failure put back what was there. */
static int apply(struct model *m, int fd, const char *what, struct xcc_error *err)
{
	size_t done = 0;
	int saved_errno;

	for (size_t i = 0; i < m->nwrites; i++) {
		struct region *r = &m->writes[i];

		if (r->off > m->size || r->len > m->size - r->off)
			return corrupt(m, err, "a table lies outside the file");
		r->saved = xmalloc(r->len);
		if (pread(fd, r->saved, r->len, (off_t)r->off) != (ssize_t)r->len)
			return xcc_fail(err, XCC_EFAIL, "%s: reading: %s", what, strerror(errno));
	}
	if (m->append_len) {
		if (pwrite_all(fd, m->append, m->append_len, m->append_off) || fdatasync(fd))
			goto undo;
	}
	for (; done < m->nwrites; done++)
		if (pwrite_all(fd, m->writes[done].bytes, m->writes[done].len,
			       m->writes[done].off))
			goto undo;
	if (fsync(fd))
		goto undo;
	return 0;
undo:
	saved_errno = errno;
	for (size_t i = 0; i <= done && i < m->nwrites; i++)
		pwrite_all(fd, m->writes[i].saved, m->writes[i].len, m->writes[i].off);
	if (ftruncate(fd, (off_t)m->size) == 0)
		fsync(fd);
	return xcc_fail(err, XCC_EFAIL, "%s: writing: %s (the file was left as it was)", what,
			strerror(saved_errno));
}

static int copy_fd(int in, int out)
{
	loff_t off_in = 0, off_out = 0;
	struct stat st;

	if (fstat(in, &st))
		return -1;
	while (off_in < st.st_size) {
		ssize_t n = copy_file_range(in, &off_in, out, &off_out,
					    (size_t)(st.st_size - off_in), 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			char buf[65536];

			n = pread(in, buf, sizeof buf, off_in);
			if (n > 0 && pwrite_all(out, buf, (size_t)n, (uint64_t)off_out))
				return -1;
			if (n > 0) {
				off_in += n;
				off_out += n;
			}
		}
		if (n < 0)
			return -1;
		if (n == 0)
			break;
	}
	return 0;
}

/* --output onto something that is not a regular file (a device, a FIFO),
 * opened by fileio_write_output: it may not seek, so the patched image is
 * written to it front to back. */
static int write_stream(struct model *m, int fd, const char *output, struct xcc_error *err)
{
	enum { CHUNK = 1 << 20 };
	uint64_t end = m->append_len ? m->append_off + m->append_len : m->size;
	unsigned char *buf;
	int rc = -1;

	for (size_t i = 0; i < m->nwrites; i++)
		if (m->writes[i].off > m->size || m->writes[i].len > m->size - m->writes[i].off)
			return corrupt(m, err, "a table lies outside the file");
	buf = xmalloc(CHUNK);
	for (uint64_t pos = 0; pos < end;) {
		size_t n = end - pos < CHUNK ? (size_t)(end - pos) : CHUNK;
		const unsigned char *out = buf;

		memset(buf, 0, n);
		if (pos < m->size) {
			size_t have = m->size - pos < n ? (size_t)(m->size - pos) : n;

			if (pread(m->fd, buf, have, (off_t)pos) != (ssize_t)have) {
				xcc_fail(err, XCC_EFAIL, "%s: reading: %s", m->path, strerror(errno));
				goto out;
			}
		}
		for (size_t i = 0; i < m->nwrites; i++) {
			const struct region *r = &m->writes[i];
			uint64_t lo = r->off > pos ? r->off : pos;
			uint64_t hi = r->off + r->len < pos + n ? r->off + r->len : pos + n;

			if (lo < hi)
				memcpy(buf + (lo - pos), r->bytes + (lo - r->off), hi - lo);
		}
		if (m->append_len && m->append_off < pos + n && m->append_off + m->append_len > pos) {
			uint64_t lo = m->append_off > pos ? m->append_off : pos;
			uint64_t hi = m->append_off + m->append_len < pos + n
					      ? m->append_off + m->append_len : pos + n;

			memcpy(buf + (lo - pos), m->append + (lo - m->append_off), hi - lo);
		}
		for (size_t left = n; left;) {
			ssize_t w = write(fd, out, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				xcc_fail(err, XCC_EFAIL, "%s: writing: %s", output,
					 w < 0 ? strerror(errno) : "short write");
				goto out;
			}
			out += w;
			left -= (size_t)w;
		}
		pos += n;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

struct output_fill {
	struct model *m;
	const char *output;
};

/* A new regular file: a copy of the input with its owner and mode, then
 * patched in place; a stream: the patched image front to back. */
static int fill_output(int fd, int stream, void *ctx, struct xcc_error *err)
{
	const struct output_fill *o = ctx;
	struct stat st;

	if (stream)
		return write_stream(o->m, fd, o->output, err);
	if (copy_fd(o->m->fd, fd))
		return xcc_fail(err, XCC_EFAIL, "%s: writing: %s", o->output, strerror(errno));
	if (fstat(o->m->fd, &st) == 0) {
		/* Ownership first: chown may clear set-id bits that chmod restores. */
		if (fchown(fd, st.st_uid, st.st_gid))
			logf_(o->m, "%s: keeping the owner: %s", o->output, strerror(errno));
		fchmod(fd, st.st_mode & 07777);
	}
	return apply(o->m, fd, o->output, err);
}

/* --output: written as fileio_write_output writes what a user names. */
static int write_output(struct model *m, const char *output, struct xcc_error *err)
{
	struct output_fill o = { m, output };

	return fileio_write_output(output, 0600, fill_output, &o, err);
}

int elfpatch_file(const char *path, const struct elfpatch_ops *ops, struct elfpatch_result *res,
		  struct xcc_error *err)
{
	struct model m = { .path = path, .fd = -1, .log = &res->log, .warnings = &res->warnings };
	int rc = -1, changed;

	res->changed = res->grew = 0;
	m.fd = open(path, (ops->output ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (m.fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (model_load(&m, err))
		goto out;
	res->old_size = res->new_size = m.size;

	if (ops->set_os_abi >= 0 && m.eh.e_ident[EI_OSABI] != ops->set_os_abi) {
		m.eh.e_ident[EI_OSABI] = (unsigned char)ops->set_os_abi;
		m.ehdr_changed = 1;
	}
	if (ops->set_soname && op_set_soname(&m, ops->set_soname, err))
		goto out;
	if (ops->set_interp && op_set_interp(&m, ops->set_interp, err))
		goto out;
	if (op_rpath(&m, ops, err) || op_needed(&m, ops, err))
		goto out;
	if (ops->no_default_lib && op_no_default_lib(&m, err))
		goto out;
	if (ops->add_debug_tag && op_add_debug_tag(&m, err))
		goto out;
	if (ops->rename_symbols.n && op_rename_dynamic_symbols(&m, &ops->rename_symbols, err))
		goto out;
	if (ops->clear_symbol_version.n &&
	    op_clear_symbol_version(&m, &ops->clear_symbol_version, err))
		goto out;
	if (ops->execstack >= 0 && op_execstack(&m, ops->execstack, err))
		goto out;
	if (plan(&m, ops, err))
		goto out;

	changed = m.nwrites || m.append_len;
	if (ops->output) {
		if (write_output(&m, ops->output, err))
			goto out;
	} else if (changed && apply(&m, m.fd, path, err)) {
		goto out;
	}
	res->changed = changed;
	res->grew = m.append_len > 0;
	if (m.append_len)
		res->new_size = m.append_off + m.append_len;
	rc = 0;
out:
	model_free(&m);
	if (m.fd >= 0)
		close(m.fd);
	return rc;
}

int elfpatch_execstack(const char *path, char *state, struct xcc_error *err)
{
	struct model m = { .path = path, .fd = -1 };
	int rc = -1;

	m.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m.fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (model_load(&m, err))
		goto out;
	*state = '?';
	for (size_t i = 0; i < m.phnum; i++)
		if (m.ph[i].p_type == PT_GNU_STACK) {
			*state = m.ph[i].p_flags & PF_X ? 'X' : '-';
			break;
		}
	rc = 0;
out:
	model_free(&m);
	if (m.fd >= 0)
		close(m.fd);
	return rc;
}

void elfpatch_result_free(struct elfpatch_result *res)
{
	strvec_free(&res->log);
	strvec_free(&res->warnings);
	memset(res, 0, sizeof *res);
}

void elfpatch_ops_free(struct elfpatch_ops *ops)
{
	strvec_free(&ops->remove_needed);
	strvec_free(&ops->replace_needed);
	strvec_free(&ops->add_needed);
	strvec_free(&ops->clear_symbol_version);
	strvec_free(&ops->rename_symbols);
	*ops = (struct elfpatch_ops)ELFPATCH_OPS_INIT;
}
