/* The ELF patcher's tables beside the dynamic section: who names a string
 * (dynamic symbols, version needs and definitions), the symbol versions,
 * renamed symbols and the hash tables rebuilt for them. */
#include <config.h>

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "elf/elfpatch_int.h"

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
 * from the same data, by offset), and its offset in the file. NULL when it
 * cannot be found. */
static Elf_Data *version_table(const struct model *m, GElf_Sxword tag, Elf_Type t,
			       GElf_Off *base)
{
	int i = ep_dyn_find(m, tag);
	GElf_Addr a;

	if (i < 0)
		return NULL;
	a = m->dyn[i].d_un.d_ptr;
	for (size_t k = 0; k < m->phnum; k++) {
		const GElf_Phdr *p = &m->ph[k];

		if (p->p_type == PT_LOAD && a >= p->p_vaddr && a - p->p_vaddr < p->p_filesz) {
			*base = p->p_offset + (a - p->p_vaddr);
			return elf_getdata_rawchunk(m->e, (int64_t)*base,
						    p->p_filesz - (a - p->p_vaddr), t);
		}
	}
	return NULL;
}

/* Called for each string a version table names, with the file offset of
 * the field naming it; nonzero stops the walk. */
typedef int (*version_visit)(struct model *m, GElf_Off field, GElf_Xword name, void *ctx);

enum { VERSION_NOT_LOADED = -1, VERSION_UNREADABLE = -2 };

/* The auxiliary entries of one need or definition, from apos on. */
static int version_walk_aux(struct model *m, Elf_Data *d, GElf_Off base, int verdef,
			    size_t apos, unsigned cnt, version_visit visit, void *ctx)
{
	for (unsigned a = 0; a < cnt; a++) {
		GElf_Word name, next;
		size_t field;
		int rc;

		if (verdef) {
			GElf_Verdaux aux;

			if (!gelf_getverdaux(d, (int)apos, &aux))
				return VERSION_UNREADABLE;
			name = aux.vda_name;
			next = aux.vda_next;
			field = offsetof(Elf32_Verdaux, vda_name);
		} else {
			GElf_Vernaux aux;

			if (!gelf_getvernaux(d, (int)apos, &aux))
				return VERSION_UNREADABLE;
			name = aux.vna_name;
			next = aux.vna_next;
			field = offsetof(Elf32_Vernaux, vna_name);
		}
		if ((rc = visit(m, base + apos + field, name, ctx)))
			return rc;
		if (!next)
			break;
		apos += next;
	}
	return 0;
}

/*
 * The one walker of the version tables: the needs (DT_VERNEED, each with
 * its file vn_file and versions vna_name) or the definitions (DT_VERDEF,
 * names vda_name); with_aux 0 visits the needs' files only. 0 when walked
 * (or there is no such table), what visit returned when it stopped,
 * VERSION_NOT_LOADED or VERSION_UNREADABLE when the table cannot be read.
 */
static int version_walk(struct model *m, int verdef, int with_aux, version_visit visit,
			void *ctx)
{
	GElf_Sxword tag = verdef ? DT_VERDEF : DT_VERNEED;
	int num = ep_dyn_find(m, verdef ? DT_VERDEFNUM : DT_VERNEEDNUM);
	GElf_Off base = 0;
	size_t pos = 0;
	Elf_Data *d;

	if (ep_dyn_find(m, tag) < 0 || num < 0)
		return 0;
	if (!(d = version_table(m, tag, verdef ? ELF_T_VDEF : ELF_T_VNEED, &base)))
		return VERSION_NOT_LOADED;
	for (GElf_Xword k = 0; k < m->dyn[num].d_un.d_val; k++) {
		GElf_Word aux, cnt, next;
		int rc;

		if (verdef) {
			GElf_Verdef v;

			if (!gelf_getverdef(d, (int)pos, &v))
				return VERSION_UNREADABLE;
			aux = v.vd_aux;
			cnt = v.vd_cnt;
			next = v.vd_next;
		} else {
			GElf_Verneed n;

			if (!gelf_getverneed(d, (int)pos, &n))
				return VERSION_UNREADABLE;
			if ((rc = visit(m, base + pos + offsetof(Elf32_Verneed, vn_file), n.vn_file,
					ctx)))
				return rc;
			aux = n.vn_aux;
			cnt = n.vn_cnt;
			next = n.vn_next;
		}
		if (with_aux &&
		    (rc = version_walk_aux(m, d, base, verdef, pos + aux, cnt, visit, ctx)))
			return rc;
		if (!next)
			break;
		pos += next;
	}
	return 0;
}

struct name_run {
	GElf_Xword lo, hi;
};

static int visit_hit(struct model *m, GElf_Off field, GElf_Xword name, void *ctx)
{
	const struct name_run *run = ctx;

	(void)m;
	(void)field;
	return ref_hits(name, run->lo, run->hi);
}

/* Whether the version tables (needs, definitions) name a string in [lo, hi];
 * a table that cannot be read counts as a yes. */
static int version_refs_hit(struct model *m, GElf_Xword lo, GElf_Xword hi)
{
	struct name_run run = { lo, hi };

	return version_walk(m, 0, 1, visit_hit, &run) || version_walk(m, 1, 1, visit_hit, &run);
}

/* Read .dynsym (and .gnu.version, entry for entry) into the model, once:
 * operations change the copies, and plan writes them back whole. */
int ep_dynsym_load(struct model *m, struct xcc_error *err)
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
		return ep_corrupt(m, err, "the .dynsym section's entry size is wrong");
	d = elf_getdata(elf_getscn(m->e, m->sh_dynsym), NULL);
	if (!d || d->d_size % symsz)
		return ep_corrupt(m, err, "the .dynsym section cannot be read");
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
	return ep_corrupt(m, err, "a dynamic symbol cannot be read");
bad_versions:
	free(m->dynsym);
	m->dynsym = NULL;
	m->ndynsym = 0;
	return ep_corrupt(m, err, "the symbol version table (.gnu.version) does not match the "
		       "dynamic symbols");
}

/* Whether any dynamic symbol's name lies in [lo, hi]. Without a section
 * header for .dynsym the symbols cannot be counted: assume yes. */
static int symbol_refs_hit(struct model *m, GElf_Xword lo, GElf_Xword hi)
{
	struct xcc_error ignored = { 0 };

	if (ep_dynsym_load(m, &ignored)) {
		xcc_error_clear(&ignored);
		return 1;
	}
	for (size_t k = 0; k < m->ndynsym; k++)
		if (ref_hits(m->dynsym[k].st_name, lo, hi))
			return 1;
	return !m->sh_dynsym && ep_dyn_find(m, DT_SYMTAB) >= 0;
}

/*
 * Whether anything but dynamic entry idx names a byte of the string at
 * off: other dynamic entries, dynamic symbols, version needs and
 * definitions. Strings share tails ("libfoo.so" serves "foo.so" too), so
 * every reference into the same NUL-terminated run counts.
 */
int ep_string_shared(struct model *m, int idx, GElf_Xword off)
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


struct name_change {
	GElf_Xword from, to;
};

static int visit_rename(struct model *m, GElf_Off field, GElf_Xword name, void *ctx)
{
	const struct name_change *c = ctx;
	Elf32_Word w = (Elf32_Word)c->to;
	unsigned char *b;
	size_t len;

	if (name != c->from)
		return 0;
	b = ep_encode(m, ELF_T_WORD, &w, 1, &len);
	ep_add_write(m, field, b, len);
	return 0;
}

/* Point .gnu.version_r's file names at a new string (vn_file is a Word). */
int ep_verneed_rename(struct model *m, GElf_Xword from, GElf_Xword to, struct xcc_error *err)
{
	struct name_change c = { from, to };

	switch (version_walk(m, 0, 0, visit_rename, &c)) {
	case VERSION_NOT_LOADED:
		return ep_corrupt(m, err, "DT_VERNEED is not inside a loadable segment");
	case VERSION_UNREADABLE:
		return ep_corrupt(m, err, "bad version dependency table");
	default:
		return 0;
	}
}

/* The version index of every dynamic symbol named in names becomes 1
 * (global, unversioned), as patchelf --clear-symbol-version does. */
int ep_op_clear_symbol_version(struct model *m, const struct strvec *names,
				   struct xcc_error *err)
{
	if (ep_need_dynamic(m, err) || ep_dynsym_load(m, err))
		return -1;
	if (!m->sh_dynsym || !m->versym)
		return xcc_fail(err, XCC_EFAIL, "%s: no %s section: the file's symbols carry no "
				"versions to clear", m->path, m->sh_dynsym ? ".gnu.version" : ".dynsym");
	for (size_t k = 0; k < m->ndynsym; k++) {
		const char *name = ep_str_at(m, m->dynsym[k].st_name);

		if (!name || !strvec_contains(names, name) || m->versym[k] == 1)
			continue;
		ep_log(m, "%s: clearing the symbol version of %s", m->path, name);
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

/* The words of a hash table section as file bytes. */
static void put_words(struct model *m, unsigned char *out, const void *words, size_t n,
		      Elf_Type t)
{
	size_t len;
	unsigned char *b = ep_encode(m, t, words, n, &len);

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
			return ep_corrupt(m, err, "a relocation section cannot be read");
		n = d->d_size / entsz;
		all = xmalloc((n + 1) * sizeof *all);
		for (size_t k = 0; k < n; k++) {
			GElf_Rel r;
			size_t sym;

			if (rela ? !gelf_getrela(d, (int)k, &all[k]) : !gelf_getrel(d, (int)k, &r)) {
				free(all);
				return ep_corrupt(m, err, "a relocation cannot be read");
			}
			if (!rela) {
				all[k].r_offset = r.r_offset;
				all[k].r_info = r.r_info;
				all[k].r_addend = 0;
			}
			sym = GELF_R_SYM(all[k].r_info);
			if (sym >= m->ndynsym) {
				free(all);
				return ep_corrupt(m, err, "a relocation names a symbol past the end of "
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
				b = ep_encode(m, t, rel, n, &len);
				free(rel);
			} else {
				b = ep_encode(m, t, all, n, &len);
			}
			ep_add_write(m, sh->sh_offset, b, len);
		}
		free(all);
	}
	return 0;
}

/* A .gnu.hash section's header, as rebuilding it needs it. */
struct gnu_hash_table {
	uint32_t nbuckets, symndx, maskwords, shift2;
	uint32_t hdr[4];  /* the same, as in the file */
	size_t wordsz;    /* of a bloom filter word */
	uint64_t total;   /* bytes the rebuilt table fills */
};

/* Read and check the header: 0 to rebuild, 1 when there is nothing to
 * rebuild, -1 when it is corrupt. */
static int gnu_hash_header(struct model *m, const GElf_Shdr *sh, struct gnu_hash_table *t,
			   struct xcc_error *err)
{
	size_t n = m->ndynsym;
	Elf_Data *d = elf_getdata_rawchunk(m->e, (int64_t)sh->sh_offset, sizeof t->hdr,
					   ELF_T_WORD);
	Elf_Data *bd;

	t->wordsz = m->eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	if (!d || sh->sh_size < sizeof t->hdr)
		return ep_corrupt(m, err, "the .gnu.hash section is too small");
	memcpy(t->hdr, d->d_buf, sizeof t->hdr);
	t->nbuckets = t->hdr[0];
	t->symndx = t->hdr[1];
	t->maskwords = t->hdr[2];
	t->shift2 = t->hdr[3];
	t->total = 16 + (uint64_t)t->maskwords * t->wordsz + (uint64_t)t->nbuckets * 4 +
		   (t->symndx <= n ? (uint64_t)(n - t->symndx) * 4 : 0);
	if (!t->nbuckets || !t->maskwords || (t->maskwords & (t->maskwords - 1)) ||
	    t->shift2 >= t->wordsz * 8 ||
	    16 + (uint64_t)t->maskwords * t->wordsz + (uint64_t)t->nbuckets * 4 > sh->sh_size)
		return ep_corrupt(m, err, "the .gnu.hash header does not fit its section");
	if (t->symndx <= n && t->total <= sh->sh_size)
		return 0;
	/* A table that hashes nothing (GNU ld's for a program exporting no
	 * symbol) may name any symndx: with every bucket empty there is
	 * nothing to rebuild. */
	bd = elf_getdata_rawchunk(m->e, (int64_t)(sh->sh_offset + 16 + t->maskwords * t->wordsz),
				  (size_t)t->nbuckets * 4, ELF_T_WORD);
	for (uint32_t b = 0; bd && b < t->nbuckets; b++)
		if (((const uint32_t *)bd->d_buf)[b])
			bd = NULL;
	if (!bd)
		return ep_corrupt(m, err, "the .gnu.hash header does not fit its section");
	return 1;
}

/* Hash the symbols from symndx on and sort them by bucket, stably:
 * order[new] is the old index, old_to_new the inverse. Whether any
 * moved, or -1. */
static int gnu_hash_sort(struct model *m, const struct gnu_hash_table *t, uint32_t *hash,
			 size_t *order, size_t *old_to_new, struct xcc_error *err)
{
	size_t n = m->ndynsym, *count = xcalloc((size_t)t->nbuckets + 1, sizeof *count);
	int reordered = 0;

	for (size_t k = 0; k < n; k++) {
		const char *name = ep_str_at(m, m->dynsym[k].st_name);

		old_to_new[k] = order[k] = k;
		if (k < t->symndx)
			continue;
		if (!name) {
			free(count);
			return ep_corrupt(m, err, "a hashed dynamic symbol has no name");
		}
		hash[k] = gnu_hash(name);
		count[hash[k] % t->nbuckets + 1]++;
	}
	/* A stable counting sort by bucket. */
	for (uint32_t b = 0; b < t->nbuckets; b++)
		count[b + 1] += count[b];
	for (size_t k = t->symndx; k < n; k++)
		order[t->symndx + count[hash[k] % t->nbuckets]++] = k;
	for (size_t j = t->symndx; j < n; j++)
		if (order[j] != j) {
			reordered = 1;
			old_to_new[order[j]] = j;
		}
	free(count);
	return reordered;
}

/* Put the symbols, their versions and their hashes in the new order; the
 * dynamic relocations follow. */
static int gnu_hash_reorder(struct model *m, uint32_t *hash, const size_t *order,
			    const size_t *old_to_new, struct xcc_error *err)
{
	size_t n = m->ndynsym;
	GElf_Sym *syms;
	uint32_t *hashes;

	if (m->eh.e_machine == EM_MIPS)
		return xcc_fail(err, XCC_EFAIL, "%s: renaming these symbols would reorder them, "
				"which MIPS's GOT forbids", m->path);
	for (size_t i = 1; i < m->shnum; i++)
		if (m->sh[i].sh_type == SHT_SYMTAB_SHNDX && m->sh[i].sh_link == m->sh_dynsym)
			return xcc_fail(err, XCC_EFAIL, "%s: .dynsym has extended section indices "
					"(SHT_SYMTAB_SHNDX): renaming that needs the symbols "
					"reordered is not supported", m->path);
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
		return -1;
	ep_log(m, "%s: dynamic symbols reordered for .gnu.hash", m->path);
	return 0;
}

/* The table for the hashes in their (new) order, queued over the old one. */
static void gnu_hash_write(struct model *m, const GElf_Shdr *sh, const struct gnu_hash_table *t,
			   const uint32_t *hash)
{
	size_t n = m->ndynsym, wordsz = t->wordsz;
	uint32_t nbuckets = t->nbuckets, symndx = t->symndx, maskwords = t->maskwords;
	uint64_t *bloom = xcalloc(maskwords, sizeof *bloom);
	uint32_t *buckets = xcalloc(nbuckets, sizeof *buckets);
	uint32_t *chain = xcalloc(n - symndx + 1, sizeof *chain);
	unsigned char *out;

	for (size_t k = symndx; k < n; k++) {
		uint32_t h = hash[k], b = h % nbuckets;
		uint64_t bits = wordsz * 8;

		bloom[(h / bits) & (maskwords - 1)] |= (uint64_t)1 << (h % bits) |
						       (uint64_t)1 << ((h >> t->shift2) % bits);
		if (!buckets[b])
			buckets[b] = (uint32_t)k;
		/* The last symbol of a bucket has the low bit set. */
		chain[k - symndx] = (h & ~1u) | (k + 1 == n || hash[k + 1] % nbuckets != b);
	}
	out = xmalloc(t->total);
	put_words(m, out, t->hdr, 4, ELF_T_WORD);
	if (wordsz == 8) {
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
	ep_add_write(m, sh->sh_offset, out, (size_t)t->total);
	free(bloom);
	free(buckets);
	free(chain);
}

/*
 * Rebuild .gnu.hash for the symbols' new names. Its symbols must be grouped
 * by bucket, so the hashed ones (from symndx on) are sorted again, stably,
 * with their version entries, and the dynamic relocations follow. The
 * table keeps its size: bucket count, bloom filter size and shift.
 */
static int rebuild_gnu_hash(struct model *m, size_t shndx, struct xcc_error *err)
{
	struct gnu_hash_table t;
	size_t n = m->ndynsym, *order = NULL, *old_to_new = NULL;
	uint32_t *hash = NULL;
	int rc = gnu_hash_header(m, &m->sh[shndx], &t, err), moved;

	if (rc)
		return rc < 0 ? -1 : 0;
	rc = -1;
	hash = xmalloc((n + 1) * sizeof *hash);
	order = xmalloc((n + 1) * sizeof *order);
	old_to_new = xmalloc((n + 1) * sizeof *old_to_new);
	moved = gnu_hash_sort(m, &t, hash, order, old_to_new, err);
	if (moved < 0 || (moved && gnu_hash_reorder(m, hash, order, old_to_new, err)))
		goto out;
	gnu_hash_write(m, &m->sh[shndx], &t, hash);
	rc = 0;
out:
	free(hash);
	free(order);
	free(old_to_new);
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
		return ep_corrupt(m, err, "the .hash section is too small");
	memcpy(hdr, d->d_buf, sizeof hdr);
	if (!hdr[0] || hdr[1] != n || 8 + ((uint64_t)hdr[0] + n) * 4 > sh->sh_size)
		return ep_corrupt(m, err, "the .hash header does not match .dynsym");
	words = xcalloc(2 + (size_t)hdr[0] + n, sizeof *words);
	words[0] = hdr[0];
	words[1] = hdr[1];
	for (size_t k = n; k-- > 1;) {
		const char *name = ep_str_at(m, m->dynsym[k].st_name);
		uint32_t b;

		if (!name) {
			free(words);
			return ep_corrupt(m, err, "a dynamic symbol has no name");
		}
		b = sysv_hash(name) % hdr[0];
		words[2 + hdr[0] + k] = words[2 + b];
		words[2 + b] = (uint32_t)k;
	}
	out = xmalloc((2 + hdr[0] + n) * 4);
	put_words(m, out, words, 2 + hdr[0] + n, ELF_T_WORD);
	free(words);
	ep_add_write(m, sh->sh_offset, out, (2 + hdr[0] + n) * 4);
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
int ep_op_rename_dynamic_symbols(struct model *m, const struct strvec *pairs,
				     struct xcc_error *err)
{
	size_t npairs = pairs->n / 2, renamed = 0;
	char *const **sorted;
	GElf_Xword *added;

	if (ep_need_dynamic(m, err) || ep_dynsym_load(m, err))
		return -1;
	if (!m->sh_dynsym)
		return xcc_fail(err, XCC_EFAIL, "%s: no .dynsym section header: the dynamic "
				"symbols cannot be found to rename them", m->path);
	/* Sorted pointers to the pairs' first strings; the second follows. */
	sorted = xmalloc((npairs + 1) * sizeof *sorted);
	added = xcalloc(npairs + 1, sizeof *added);
	for (size_t i = 0; i < npairs; i++)
		sorted[i] = &pairs->v[2 * i];
	qsort(sorted, npairs, sizeof *sorted, pair_cmp);
	for (size_t k = 1; k < m->ndynsym; k++) {
		char *name = (char *)ep_str_at(m, m->dynsym[k].st_name);
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
		ep_log(m, "%s: renaming dynamic symbol %s to %s", m->path, name,
		      pairs->v[2 * p + 1]);
		/* Appended, never shared: a later in-place write cannot hit it. */
		if (!added[p])
			added[p] = ep_str_append(m, pairs->v[2 * p + 1]);
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

