/* The command-line layer: one cmd_* per verb (src/cli/cmd_*.c), the
 * helpers they share (src/cli/cmd.c) and the dispatcher (src/cli/main.c).
 * The function that fails classifies its error (XCC_EUSAGE or XCC_EFAIL in
 * struct xcc_error); only this layer prints it and exits with it. */
#ifndef XCC_CMD_H
#define XCC_CMD_H

#include <getopt.h>

#include "base/error.h"
#include "db/gpus.h"
#include "db/jetpack.h"
#include "use/link_check.h"

struct cmd_ctx {
	struct gpudb db;
	int db_loaded;
	struct jetpack_db jetpacks;
	int jetpacks_loaded;
};

/* The capability database, loaded on first use (patchelf never needs it). */
const struct gpudb *cmd_gpudb(struct cmd_ctx *ctx, struct xcc_error *err);
/* Release what the verbs loaded into ctx; ctx can be used again. */
void cmd_ctx_free(struct cmd_ctx *ctx);

/* The JetPack releases, loaded on first use. */
const struct jetpack_db *cmd_jetpacks(struct cmd_ctx *ctx, struct xcc_error *err);
/* --jetpack V: NULL and an error naming the known releases when unknown. */
const struct jetpack_release *cmd_jetpack(struct cmd_ctx *ctx, const char *version,
					  struct xcc_error *err);

/* Print "cuda-xcc: MESSAGE" to stderr; returns err->status. */
int cmd_report(const struct xcc_error *err);
/* --page-size VALUE for verb: a power of two into *out, else a usage error
 * (its status, 2). */
int cmd_parse_page_size(const char *verb, const char *value, unsigned long *out);
/* A usage error: print the message and a pointer to --help; returns 2. */
int cmd_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A verb: argv[0] is the verb's name; returns the exit status. */
/*
 * The verbs' one option convention: GNU long options, read with
 * getopt_long_only so that nvcc's single-dash spellings (-arch) work as in
 * nvcc; operands may come before or after options; "--" ends them.
 * cmd_getopt_begin() starts a parse; cmd_getopt() returns the next
 * option's val (1 for an operand when shortopts starts with '-'), -1 after
 * the last, or '?' once it has printed the usage error (an unknown option,
 * a missing value): the verb then returns XCC_EUSAGE.
 *
 * Two documented exceptions read argv by hand, because their syntax is
 * someone else's: patchelf (NixOS patchelf: operations and files in any
 * order, --replace-needed takes two values) and driver mode (nvcc's
 * arguments pass through unchanged and in order, among cuda-xcc's own).
 */
void cmd_getopt_begin(void);
int cmd_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *verb);

/* After a link: link_check()'s report as messages, warnings (or with
 * strict errors). Returns 0, or with strict: XCC_EFAIL when a need is
 * above the root's runtime or the JetPack floor (NULL: none) or the file
 * cannot be read or is no ELF file, XCC_EUSAGE when it does not exist. A
 * static archive is exempt. */
int cmd_check_linked(const struct linked_program *prog, const struct jetpack_release *floor,
		     int strict);
/* After a check that failed: remove the output the link wrote, saying so. */
void cmd_remove_failed_output(const char *file);

/* Notes on stderr for what the board needs beyond the program (b): with
 * have (a sysroot's components) only those it lacks, else all. */
void cmd_note_board_needs(const struct board_needs *b, const struct strvec *have,
			  const char *target_dir);

typedef int cmd_fn(int argc, char **argv, struct cmd_ctx *ctx);

cmd_fn cmd_gpus;
cmd_fn cmd_flags;
cmd_fn cmd_driver;
cmd_fn cmd_patchelf;
cmd_fn cmd_autopatch;
cmd_fn cmd_fatbin;
cmd_fn cmd_sysroot;
cmd_fn cmd_toolchain;
cmd_fn cmd_run;
cmd_fn cmd_doctor;
cmd_fn cmd_check_link;
cmd_fn cmd_check;

#endif
