/* The ELF patcher's layout: where what has to grow goes. */
#include <config.h>

#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch_int.h"

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
			b = ep_encode(m, ELF_T_SYM, &s, 1, &len);
			ep_add_write(m, m->sh[i].sh_offset + k * entsz, b, len);
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
	ep_add_write(m, lo, xcalloc(1, hi - lo), hi - lo);
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
	ep_log(m, "%s: moved %llu bytes of notes and interpreter to make room for the program "
	      "headers", m->path, (unsigned long long)(hi - lo));
}

/* Where the new data goes, worked out before anything in the model changes. */
struct growth {
	int str, dyn, interp;     /* what moves into the new segment */
	uint64_t page;            /* the alignment of a new segment */
	int exec_like;            /* started by the kernel, which finds AT_PHDR */
	int phdr_ph;              /* PT_PHDR; -1: none */
	size_t last_load;         /* the last PT_LOAD of the table */
	size_t top_load;          /* the PT_LOAD that reaches highest in memory */
	uint64_t maxend;          /* its p_vaddr + p_memsz */
	uint64_t delta0;          /* the first PT_LOAD's p_vaddr - p_offset */
	int extend;               /* the last segment grows, no new one */
	int in_place_phdrs;       /* the table grows where it is ... */
	uint64_t blk_lo, blk_hi;  /* ... and these bytes move out of its way */
	size_t nph;               /* program headers after the change */
	uint64_t o, v, pos;       /* the new data's offset, address and size */
	uint64_t int_pos, str_pos, dyn_pos;
	size_t dyn_len;
};

/* The largest hole allowed between the end of the file and the new
 * segment of an executable (its .bss, at most): more is not a program,
 * and would make a file of that size. */
#define LAYOUT_HOLE_LIMIT (UINT64_C(1) << 32)

static int bad_layout(struct model *m, struct xcc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad_layout(struct model *m, struct xcc_error *err, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return xcc_fail(err, XCC_EFAIL, "%s: %s: the file cannot be grown, nothing was written "
			"(its program headers are corrupt)", m->path, why);
}

/* The highest address (and offset) the file's class can hold. */
static uint64_t addr_max(const struct model *m)
{
	return m->eh.e_ident[EI_CLASS] == ELFCLASS64 ? UINT64_MAX : UINT32_MAX;
}

/* Growing computes addresses from every loadable segment: refuse the
 * values no loader accepts before they become offsets of gigantic files. */
static int layout_check_loads(struct model *m, struct xcc_error *err)
{
	uint64_t max = addr_max(m);

	for (size_t i = 0; i < m->phnum; i++) {
		const GElf_Phdr *p = &m->ph[i];

		if (p->p_type != PT_LOAD)
			continue;
		if (p->p_vaddr > max || p->p_memsz > max - p->p_vaddr)
			return bad_layout(m, err, "program header %zu (PT_LOAD) has p_vaddr %#llx "
					  "and p_memsz %#llx, which overflow the address space", i,
					  (unsigned long long)p->p_vaddr,
					  (unsigned long long)p->p_memsz);
		if (p->p_align & (p->p_align - 1))
			return bad_layout(m, err, "program header %zu (PT_LOAD) has p_align %#llx, "
					  "not a power of two", i, (unsigned long long)p->p_align);
	}
	return 0;
}

/* The new data's place, checked before anything is written there: the
 * strategies add alignment to the highest end, which may wrap. */
static int layout_check_result(struct model *m, const struct growth *g, struct xcc_error *err)
{
	uint64_t max = addr_max(m);
	const GElf_Phdr *top = &m->ph[g->top_load];

	if (g->o > m->size && g->o - m->size > LAYOUT_HOLE_LIMIT)
		return bad_layout(m, err, "the new segment would start %llu bytes past the end of "
				  "the file, after program header %zu (PT_LOAD) with p_vaddr %#llx "
				  "and p_memsz %#llx", (unsigned long long)(g->o - m->size),
				  g->top_load, (unsigned long long)top->p_vaddr,
				  (unsigned long long)top->p_memsz);
	if (g->v < g->maxend || g->pos > max - g->v || g->o > max || g->pos > max - g->o)
		return bad_layout(m, err, "the new segment (%llu bytes) would not fit in the "
				  "address space after program header %zu (PT_LOAD) with p_vaddr "
				  "%#llx and p_memsz %#llx", (unsigned long long)g->pos, g->top_load,
				  (unsigned long long)top->p_vaddr, (unsigned long long)top->p_memsz);
	return 0;
}

/* What the strategies need to know of the file's segments. */
static int layout_survey(struct model *m, const struct elfpatch_ops *ops, struct growth *g,
			 struct xcc_error *err)
{
	int have_load = 0, flags1 = ep_dyn_find(m, DT_FLAGS_1);

	g->page = ops->page_size ? ops->page_size : elfinfo_default_page_size(m->eh.e_machine);
	g->exec_like = m->eh.e_type == ET_EXEC || m->interp_ph >= 0;
	g->phdr_ph = -1;
	for (size_t i = 0; i < m->phnum; i++) {
		const GElf_Phdr *p = &m->ph[i];

		if (p->p_type == PT_PHDR)
			g->phdr_ph = (int)i;
		if (p->p_type != PT_LOAD)
			continue;
		if (!have_load)
			g->delta0 = p->p_vaddr - p->p_offset;
		have_load = 1;
		g->last_load = i;
		if (p->p_vaddr + p->p_memsz > g->maxend) {
			g->maxend = p->p_vaddr + p->p_memsz;
			g->top_load = i;
		}
	}
	if (!have_load)
		return ep_corrupt(m, err, "no loadable segment");
	if (layout_check_loads(m, err))
		return -1;
	/* The new segment follows the file's own alignment where it is
	 * larger (-z max-page-size=0x10000 on x86_64), so that every
	 * loadable segment agrees; --page-size decides alone. */
	for (size_t i = 0; i < m->phnum && !ops->page_size; i++)
		if (m->ph[i].p_type == PT_LOAD && m->ph[i].p_align > g->page &&
		    m->ph[i].p_align <= (1u << 24))
			g->page = m->ph[i].p_align;
	/* A static PIE is started by the kernel too. */
	if (flags1 >= 0 && (m->dyn[flags1].d_un.d_val & DF_1_PIE))
		g->exec_like = 1;
	if (m->phnum + 1 >= PN_XNUM)
		return ep_corrupt(m, err, "too many program headers");
	if (m->eh.e_phentsize != gelf_fsize(m->e, ELF_T_PHDR, 1, EV_CURRENT))
		return ep_corrupt(m, err, "unexpected program header size");
	g->nph = m->phnum + 1;
	g->o = align_up(m->size, 16);
	return 0;
}

/* The last segment ends the file (one added before): it grows, and the
 * program header table stays as it is. Whether that applies. */
static int layout_plan_extend(struct model *m, struct growth *g)
{
	const GElf_Phdr *ll = &m->ph[g->last_load];

	if (ll->p_offset + ll->p_filesz != m->size || ll->p_filesz != ll->p_memsz ||
	    ll->p_vaddr + ll->p_memsz != g->maxend || m->size - ll->p_offset >= (1u << 30))
		return 0;
	g->extend = 1;
	g->nph = m->phnum;
	g->v = ll->p_vaddr + (g->o - ll->p_offset);
	g->pos = 0;
	return 1;
}

/* Libraries: the new segment's address need only be congruent to its
 * offset modulo the page; the program header table moves into it. */
static void layout_plan_library(struct model *m, struct growth *g)
{
	g->v = align_up(g->maxend, g->page) + g->o % g->page;
	g->pos = g->nph * m->eh.e_phentsize;
}

/*
 * Executables: the kernel (and qemu) may compute AT_PHDR as the first
 * segment's bias + e_phoff. Best, the table stays where it is and the
 * notes and interpreter behind it move to make room; else the new
 * segment's address - offset is kept equal to the first one's (the gap is
 * a hole in the file); else it is placed as a library's.
 */
static void layout_plan_executable(struct model *m, struct growth *g)
{
	if (room_after_phdrs(m, &g->blk_lo, &g->blk_hi) == 0) {
		g->in_place_phdrs = 1;
		g->o += (g->blk_lo % 16 + 16 - g->o % 16) % 16;
		g->v = align_up(g->maxend, g->page) + g->o % g->page;
		g->pos = g->blk_hi - g->blk_lo;
	} else if (g->delta0 % g->page == 0) {
		g->v = align_up(g->maxend, g->page);
		if (g->v - g->delta0 > g->o)
			g->o = g->v - g->delta0;
		g->v = g->o + g->delta0;
		g->pos = g->nph * m->eh.e_phentsize;
	} else {
		layout_plan_library(m, g);
	}
}

/* Room in the new data for what grows, after the program headers. */
static void layout_reserve(struct model *m, struct growth *g)
{
	if (g->interp) {
		g->int_pos = g->pos;
		g->pos += strlen(m->interp) + 1;
	}
	if (g->str) {
		g->str_pos = g->pos;
		g->pos += m->strsz;
	}
	if (g->dyn) {
		g->pos = align_up(g->pos, 8);
		g->dyn_pos = g->pos;
		/* Room for a few more entries, so later patches fit in place. */
		g->dyn_len = gelf_fsize(m->e, ELF_T_DYN, m->ndyn + 1 + 4, EV_CURRENT);
		g->pos += g->dyn_len;
	}
}

static void layout_extend_last(struct model *m, const struct growth *g)
{
	GElf_Phdr *ll = &m->ph[g->last_load];

	ll->p_filesz = ll->p_memsz = g->o + g->pos - ll->p_offset;
	ll->p_flags |= PF_R | (g->dyn ? PF_W : 0);
	if (ll->p_align < g->page)
		ll->p_align = g->page;
	ep_log(m, "%s: last segment grows by %zu bytes at offset %#llx", m->path, (size_t)g->pos,
	       (unsigned long long)g->o);
}

/* A new PT_LOAD after the last one, and the program header table grown
 * where it is or moved into the new segment. */
static void layout_add_segment(struct model *m, struct growth *g)
{
	size_t last = g->last_load, phsz = m->eh.e_phentsize;
	GElf_Phdr nl;

	memset(&nl, 0, sizeof nl);
	nl.p_type = PT_LOAD;
	nl.p_offset = g->o;
	nl.p_vaddr = nl.p_paddr = g->v;
	nl.p_filesz = nl.p_memsz = g->pos;
	nl.p_flags = PF_R | (g->dyn ? PF_W : 0);
	nl.p_align = g->page;
	memmove(&m->ph[last + 2], &m->ph[last + 1], (m->phnum - last - 1) * sizeof *m->ph);
	m->ph[last + 1] = nl;
	m->phnum = g->nph;
	if (m->dyn_ph > (int)last)
		m->dyn_ph++;
	if (m->interp_ph > (int)last)
		m->interp_ph++;
	if (g->phdr_ph >= 0 && g->phdr_ph > (int)last)
		g->phdr_ph++;
	if (g->in_place_phdrs) {
		move_block(m, g->blk_lo, g->blk_hi, g->o, g->v);
		if (g->phdr_ph >= 0)
			m->ph[g->phdr_ph].p_filesz = m->ph[g->phdr_ph].p_memsz = g->nph * phsz;
	} else {
		if (g->phdr_ph >= 0) {
			GElf_Phdr *pp = &m->ph[g->phdr_ph];

			pp->p_offset = g->o;
			pp->p_vaddr = pp->p_paddr = g->v;
			pp->p_filesz = pp->p_memsz = g->nph * phsz;
		}
		m->eh.e_phoff = g->o;
	}
	m->eh.e_phnum = (GElf_Half)g->nph;
	m->ehdr_changed = 1;
	ep_log(m, "%s: new segment at offset %#llx, address %#llx, %zu bytes", m->path,
	       (unsigned long long)g->o, (unsigned long long)g->v, (size_t)g->pos);
}

static void layout_place_interp(struct model *m, const struct growth *g)
{
	GElf_Phdr *ip = &m->ph[m->interp_ph];
	GElf_Addr old_addr = m->interp_vaddr_orig;
	size_t sh = m->sh_interp;

	memcpy(m->append + g->int_pos, m->interp, strlen(m->interp) + 1);
	ip->p_offset = g->o + g->int_pos;
	ip->p_vaddr = ip->p_paddr = g->v + g->int_pos;
	ip->p_filesz = ip->p_memsz = strlen(m->interp) + 1;
	ip->p_align = 1;
	if (sh) {
		m->sh[sh].sh_offset = ip->p_offset;
		m->sh[sh].sh_addr = ip->p_vaddr;
		m->sh[sh].sh_size = ip->p_filesz;
		m->sh[sh].sh_addralign = 1;
		m->sh_dirty[sh] = 1;
		move_symbols(m, sh, old_addr, ip->p_vaddr);
	}
	free(m->interp);
	m->interp = NULL;
}

static void layout_place_strings(struct model *m, const struct growth *g)
{
	size_t sh = m->sh_dynstr;

	memcpy(m->append + g->str_pos, m->str, m->strsz);
	for (size_t i = 0; i < m->ndyn; i++) {
		if (m->dyn[i].d_tag == DT_STRTAB)
			m->dyn[i].d_un.d_ptr = g->v + g->str_pos;
		else if (m->dyn[i].d_tag == DT_STRSZ)
			m->dyn[i].d_un.d_val = m->strsz;
	}
	m->dyn_changed = 1;
	if (sh) {
		move_symbols(m, sh, m->str_addr, g->v + g->str_pos);
		m->sh[sh].sh_offset = g->o + g->str_pos;
		m->sh[sh].sh_addr = g->v + g->str_pos;
		m->sh[sh].sh_size = m->strsz;
		m->sh_dirty[sh] = 1;
	}
	m->str_dirty_lo = UINT64_MAX;
	/* Nothing reads the old table any more: clear it, so the file does
	 * not carry two copies of every name. */
	ep_add_write(m, m->str_off, xcalloc(1, m->strsz_orig), m->strsz_orig);
}

static void layout_place_dynamic(struct model *m, const struct growth *g)
{
	size_t sh = m->sh_dynamic;
	GElf_Addr old_addr = sh ? m->sh[sh].sh_addr : 0;

	if (m->dyn_ph >= 0) {
		GElf_Phdr *dp = &m->ph[m->dyn_ph];

		old_addr = dp->p_vaddr;
		dp->p_offset = g->o + g->dyn_pos;
		dp->p_vaddr = dp->p_paddr = g->v + g->dyn_pos;
		dp->p_filesz = dp->p_memsz = g->dyn_len;
	}
	m->dyn_off = g->o + g->dyn_pos;
	m->dyn_size = g->dyn_len;
	m->dyn_cap = m->ndyn + 1 + 4;
	if (sh) {
		m->sh[sh].sh_offset = g->o + g->dyn_pos;
		m->sh[sh].sh_addr = g->v + g->dyn_pos;
		m->sh[sh].sh_size = g->dyn_len;
		m->sh_dirty[sh] = 1;
	}
	move_symbols(m, sh, old_addr, g->v + g->dyn_pos);
}

static int layout_grow(struct model *m, const struct elfpatch_ops *ops, struct growth *g,
		       struct xcc_error *err)
{
	unsigned char *b;
	size_t len;

	if (layout_survey(m, ops, g, err))
		return -1;
	if (!layout_plan_extend(m, g)) {
		if (g->exec_like)
			layout_plan_executable(m, g);
		else
			layout_plan_library(m, g);
	}
	layout_reserve(m, g);
	if (layout_check_result(m, g, err))
		return -1;
	m->append_off = g->o;
	m->append_len = g->pos;
	m->append = xcalloc(1, g->pos);
	if (g->extend)
		layout_extend_last(m, g);
	else
		layout_add_segment(m, g);
	if (g->interp)
		layout_place_interp(m, g);
	if (g->str)
		layout_place_strings(m, g);
	if (g->dyn)
		layout_place_dynamic(m, g);
	/* In place, or at the start of the new segment (e_phoff is there). */
	b = ep_encode(m, ELF_T_PHDR, m->ph, m->phnum, &len);
	ep_add_write(m, m->eh.e_phoff, b, len);
	return 0;
}

int ep_layout_plan(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err)
{
	struct growth g = { 0 };

	g.str = m->strsz > m->strsz_orig;
	g.dyn = m->dyn_changed && m->ndyn + 1 > m->dyn_cap;
	g.interp = m->interp && strlen(m->interp) + 1 > m->ph[m->interp_ph].p_filesz;
	if (!g.str && !g.dyn && !g.interp)
		return 0;
	/* Without DT_STRSZ nothing would say where the grown table ends:
	 * readers (this one too) would find the new strings outside it. */
	if (g.str && ep_dyn_find(m, DT_STRSZ) < 0)
		return ep_corrupt(m, err, "the dynamic section has DT_STRTAB but no DT_STRSZ, so "
				  "the string table cannot grow");
	return layout_grow(m, ops, &g, err);
}
