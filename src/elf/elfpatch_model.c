/* The ELF patcher's model of a file: read and checked once, then changed
 * in memory by the operations (its dynamic entries and strings here). */
#include <config.h>

#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch_int.h"

void ep_log(struct model *m, const char *fmt, ...)
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

int ep_corrupt(struct model *m, struct xcc_error *err, const char *why)
{
	return xcc_fail(err, XCC_EFAIL, "%s: %s (the file is truncated or corrupt)", m->path, why);
}

int ep_vaddr_to_off(const struct model *m, GElf_Addr a, GElf_Off *off)
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

void ep_model_free(struct model *m)
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
	m->sh_dirty = xcalloc(m->shnum + 1, 1);
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

int ep_model_load(struct model *m, struct xcc_error *err)
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
		return ep_corrupt(m, err, elf_errmsg(-1));
	if (m->eh.e_type != ET_EXEC && m->eh.e_type != ET_DYN)
		return xcc_fail(err, XCC_EFAIL,
				"%s: not an executable or shared library (ELF type %d)", m->path,
				m->eh.e_type);
	if (elf_getphdrnum(m->e, &m->phnum))
		return ep_corrupt(m, err, elf_errmsg(-1));
	if (m->eh.e_phoff > m->size ||
	    m->phnum * (uint64_t)m->eh.e_phentsize > m->size - m->eh.e_phoff)
		return ep_corrupt(m, err, "the program header table lies outside the file");
	m->ph = xmalloc((m->phnum + 1) * sizeof *m->ph);
	m->dyn_ph = m->interp_ph = -1;
	for (size_t i = 0; i < m->phnum; i++) {
		GElf_Phdr *p = &m->ph[i];

		if (!gelf_getphdr(m->e, (int)i, p))
			return ep_corrupt(m, err, elf_errmsg(-1));
		if ((p->p_type == PT_LOAD || p->p_type == PT_DYNAMIC || p->p_type == PT_INTERP) &&
		    (p->p_offset > m->size || p->p_filesz > m->size - p->p_offset))
			return ep_corrupt(m, err, "a segment lies outside the file");
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
			    ep_vaddr_to_off(m, m->sh[i].sh_addr, &off) || off != m->sh[i].sh_offset)
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
		return ep_corrupt(m, err, "the dynamic segment lies outside the file");
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
	if (ep_vaddr_to_off(m, m->str_addr, &m->str_off))
		return ep_corrupt(m, err, "DT_STRTAB is not inside a loadable segment");
	d = elf_getdata_rawchunk(m->e, (int64_t)m->str_off, m->strsz_orig, ELF_T_BYTE);
	if (!d)
		return ep_corrupt(m, err, "the dynamic string table lies outside the file");
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
const char *ep_str_at(const struct model *m, GElf_Xword off)
{
	if (off >= m->strsz || !memchr(m->str + off, '\0', m->strsz - off))
		return NULL;
	return m->str + off;
}

/* The offset of s added at the end of the string table, sharing nothing. */
GElf_Xword ep_str_append(struct model *m, const char *s)
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
GElf_Xword ep_str_add(struct model *m, const char *s)
{
	size_t len = strlen(s) + 1;
	const char *p = m->str, *end = m->str + m->strsz;

	/* An existing string, or the tail of one, serves as well. */
	while (p < end && (p = memmem(p, (size_t)(end - p), s, len))) {
		if (len > 1 || p == m->str || p[-1] == '\0')
			return (GElf_Xword)(p - m->str);
		p++;
	}
	return ep_str_append(m, s);
}

int ep_dyn_find(const struct model *m, GElf_Sxword tag)
{
	for (size_t i = 0; i < m->ndyn; i++)
		if (m->dyn[i].d_tag == tag)
			return (int)i;
	return -1;
}

void ep_dyn_insert(struct model *m, size_t at, GElf_Sxword tag, GElf_Xword val)
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

void ep_dyn_remove(struct model *m, size_t at)
{
	memmove(&m->dyn[at], &m->dyn[at + 1], (m->ndyn - at - 1) * sizeof *m->dyn);
	m->ndyn--;
	m->dyn_changed = 1;
}

int ep_need_dynamic(struct model *m, struct xcc_error *err)
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
		return ep_corrupt(m, err, m->ndyn ? "the dynamic section has no DT_STRTAB"
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

