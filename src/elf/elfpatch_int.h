/* What the parts of the ELF patcher share (elfpatch.c: the operations and
 * the public API; elfpatch_model.c: reading the file into the model, its
 * strings and dynamic entries; elfpatch_tables.c: dynamic symbols, version
 * tables, hash tables; elfpatch_layout.c: planning the growth;
 * elfpatch_write.c: encoding and writing). Private to those files. */
#ifndef XCC_ELFPATCH_INT_H
#define XCC_ELFPATCH_INT_H

#include <gelf.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strvec.h"
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

/* elfpatch_model.c */
void ep_log(struct model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ep_corrupt(struct model *m, struct xcc_error *err, const char *why);
int ep_vaddr_to_off(const struct model *m, GElf_Addr a, GElf_Off *off);
int ep_model_load(struct model *m, struct xcc_error *err);
void ep_model_free(struct model *m);
/* The string at off in the dynamic string table, or NULL. */
const char *ep_str_at(const struct model *m, GElf_Xword off);
/* The offset of s added at the end of the string table, sharing nothing. */
GElf_Xword ep_str_append(struct model *m, const char *s);
/* The offset of s in the string table, added at the end if not there. */
GElf_Xword ep_str_add(struct model *m, const char *s);
int ep_dyn_find(const struct model *m, GElf_Sxword tag);
void ep_dyn_insert(struct model *m, size_t at, GElf_Sxword tag, GElf_Xword val);
void ep_dyn_remove(struct model *m, size_t at);
/* Fails, saying why, when the file has no dynamic table to patch. */
int ep_need_dynamic(struct model *m, struct xcc_error *err);

/* elfpatch_tables.c */
int ep_dynsym_load(struct model *m, struct xcc_error *err);
int ep_string_shared(struct model *m, int idx, GElf_Xword off);
int ep_verneed_rename(struct model *m, GElf_Xword from, GElf_Xword to, struct xcc_error *err);
int ep_op_clear_symbol_version(struct model *m, const struct strvec *names,
			       struct xcc_error *err);
int ep_op_rename_dynamic_symbols(struct model *m, const struct strvec *pairs,
				 struct xcc_error *err);

/* elfpatch_layout.c: plan what has to grow (a new segment, or the last one
 * extended), checking first that the file's layout can be grown. */
int ep_layout_plan(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err);

/* elfpatch_write.c */
/* The file representation of n items of type t given as GElf structs. */
unsigned char *ep_encode(struct model *m, Elf_Type t, const void *items, size_t n,
			 size_t *len);
/* Queue bytes (taken over) to write at off: into the new segment when
 * they lie there, else as a change to the file. */
void ep_add_write(struct model *m, uint64_t off, unsigned char *bytes, size_t len);
/* Queue every table the operations changed and the plan did not place. */
void ep_queue_tables(struct model *m);
int ep_apply(struct model *m, int fd, const char *what, struct xcc_error *err);
int ep_write_output(struct model *m, const char *output, struct xcc_error *err);

#endif
