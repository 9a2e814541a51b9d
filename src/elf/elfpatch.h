/* Changing what the dynamic loader sees in an ELF file: interpreter,
 * search paths, DT_NEEDED, soname, flags, OS ABI. The engine behind
 * `cuda-xcc patchelf` and autopatch.
 *
 * Strings that fit are patched where they are. Otherwise one new PT_LOAD
 * is appended at the end of the file holding whatever had to grow
 * (.dynstr, .dynamic, the interpreter) and the program header table. In
 * executables the table stays where it is (the kernel and qemu find it
 * from e_phoff) and the notes and interpreter string behind it move into
 * the new segment instead. No other section moves, so .nv_fatbin and
 * friends keep their addresses, and the file grows by the new data plus
 * a few bytes of alignment. */
#ifndef XCC_ELFPATCH_H
#define XCC_ELFPATCH_H

#include "base/error.h"
#include "base/strvec.h"

enum elfpatch_rpath_op {
	ELFPATCH_RPATH_KEEP,
	ELFPATCH_RPATH_SET,
	ELFPATCH_RPATH_ADD,
	ELFPATCH_RPATH_REMOVE,
	ELFPATCH_RPATH_SHRINK,
};

struct elfpatch_ops {
	int set_os_abi;          /* -1: keep */
	const char *set_soname;  /* NULL: keep */
	const char *set_interp;  /* NULL: keep */
	enum elfpatch_rpath_op rpath_op;
	const char *rpath;       /* for SET and ADD */
	const char *allowed_rpath_prefixes; /* for SHRINK: ':'-separated, NULL: any */
	int force_rpath;         /* write DT_RPATH, not DT_RUNPATH */
	struct strvec remove_needed;
	struct strvec replace_needed; /* pairs: old, new, old, new ... */
	struct strvec add_needed;
	struct strvec clear_symbol_version; /* dynamic symbols to make unversioned */
	struct strvec rename_symbols; /* pairs: old name, new name, ... */
	int no_default_lib;      /* set DF_1_NODEFLIB */
	int add_debug_tag;       /* add DT_DEBUG when missing */
	int execstack;           /* PT_GNU_STACK's PF_X: -1 keep, 0 clear, 1 set */
	unsigned long page_size; /* alignment of a new PT_LOAD; 0: by machine */
	const char *output;      /* write here instead of in place; NULL: in place */
};

/* Every field keeps the file as it is; the rest are 0, NULL or empty. */
#define ELFPATCH_OPS_INIT { .set_os_abi = -1, .rpath_op = ELFPATCH_RPATH_KEEP, .execstack = -1, \
	.remove_needed = STRVEC_INIT, .replace_needed = STRVEC_INIT, .add_needed = STRVEC_INIT, \
	.clear_symbol_version = STRVEC_INIT, .rename_symbols = STRVEC_INIT }

struct elfpatch_result {
	int changed;            /* something was written */
	int grew;               /* a new segment was appended */
	unsigned long long old_size, new_size;
	struct strvec log;      /* what was done, for --debug */
	struct strvec warnings; /* what the user should know even without --debug */
};

/*
 * Apply ops to path. Nothing changes when the file already says what ops
 * ask for (patching twice changes nothing the second time).
 *
 * In place, the new data is written past the old end of the file and
 * synced before the few header bytes change; any failure restores the
 * bytes and the size, so a failed patch leaves the file as it was.
 * ops->output is written as fileio_write_output writes what a user names
 * (a new file with path's mode renamed over a regular one, a symlink
 * written through, a FIFO or device written to, never replaced). A file
 * with more than one hard link is patched that way too, into a new file
 * of its own: the other links keep the old bytes.
 */
int elfpatch_file(const char *path, const struct elfpatch_ops *ops, struct elfpatch_result *res,
		  struct xcc_error *err);

/* Whether path asks for an executable stack, as patchelf --print-execstack
 * says it: 'X' (PT_GNU_STACK with PF_X), '-' (without), '?' (no PT_GNU_STACK). */
int elfpatch_execstack(const char *path, char *state, struct xcc_error *err);

void elfpatch_result_free(struct elfpatch_result *res);
void elfpatch_ops_free(struct elfpatch_ops *ops);

#endif
