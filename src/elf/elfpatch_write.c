/* The ELF patcher's writing: the changed tables encoded for the file, and
 * written in place (undone on failure) or to an output. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/elfpatch_int.h"

/* The file representation of n items of type t given as GElf structs. */
unsigned char *ep_encode(struct model *m, Elf_Type t, const void *items, size_t n,
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

void ep_add_write(struct model *m, uint64_t off, unsigned char *bytes, size_t len)
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

/* The tables the operations changed, queued where they are, or into the
 * new segment where the plan moved them (ep_add_write sees which). */
void ep_queue_tables(struct model *m)
{
	unsigned char *b;
	size_t len;

	/* Grown, the plan wrote the program headers already. */
	if (m->ph_changed && !m->append_len) {
		b = ep_encode(m, ELF_T_PHDR, m->ph, m->phnum, &len);
		ep_add_write(m, m->eh.e_phoff, b, len);
	}
	if (m->interp) { /* fits in place: pad with NULs to the old size */
		const GElf_Phdr *ip = &m->ph[m->interp_ph];

		b = xcalloc(1, ip->p_filesz);
		memcpy(b, m->interp, strlen(m->interp));
		ep_add_write(m, ip->p_offset, b, ip->p_filesz);
	}
	if (m->dyn_changed) {
		GElf_Dyn *all = xcalloc(m->dyn_cap, sizeof *all);

		memcpy(all, m->dyn, m->ndyn * sizeof *all);
		b = ep_encode(m, ELF_T_DYN, all, m->dyn_cap, &len);
		free(all);
		ep_add_write(m, m->dyn_off, b, len);
	}
	if (m->str_dirty_lo < m->str_dirty_hi) {
		size_t n = (size_t)(m->str_dirty_hi - m->str_dirty_lo);

		b = xmalloc(n);
		memcpy(b, m->str + m->str_dirty_lo, n);
		ep_add_write(m, m->str_off + m->str_dirty_lo, b, n);
	}
	if (m->dynsym_changed) {
		b = ep_encode(m, ELF_T_SYM, m->dynsym, m->ndynsym, &len);
		ep_add_write(m, m->sh[m->sh_dynsym].sh_offset, b, len);
	}
	if (m->versym_changed) {
		b = ep_encode(m, ELF_T_HALF, m->versym, m->ndynsym, &len);
		ep_add_write(m, m->sh[m->sh_versym].sh_offset, b, len);
	}
	if (m->ehdr_changed) {
		b = ep_encode(m, ELF_T_EHDR, &m->eh, 1, &len);
		ep_add_write(m, 0, b, len);
	}
	for (size_t i = 1; i < m->shnum; i++) {
		if (!m->sh_dirty[i])
			continue;
		b = ep_encode(m, ELF_T_SHDR, &m->sh[i], 1, &len);
		ep_add_write(m, m->eh.e_shoff + i * m->eh.e_shentsize, b, len);
	}
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
int ep_apply(struct model *m, int fd, const char *what, struct xcc_error *err)
{
	size_t done = 0;
	int saved_errno;

	for (size_t i = 0; i < m->nwrites; i++) {
		struct region *r = &m->writes[i];

		if (r->off > m->size || r->len > m->size - r->off)
			return ep_corrupt(m, err, "a table lies outside the file");
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
			return ep_corrupt(m, err, "a table lies outside the file");
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
			ep_log(o->m, "%s: keeping the owner: %s", o->output, strerror(errno));
		fchmod(fd, st.st_mode & 07777);
	}
	return ep_apply(o->m, fd, o->output, err);
}

/* --output: written as fileio_write_output writes what a user names. */
int ep_write_output(struct model *m, const char *output, struct xcc_error *err)
{
	struct output_fill o = { m, output };

	return fileio_write_output(output, 0600, fill_output, &o, err);
}
