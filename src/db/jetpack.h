/* JetPack releases (sysroots/jetpack.json, embedded): the L4T, Ubuntu base,
 * C and C++ runtime floors, CUDA and boards of each, and the rules that
 * tie a board, a CUDA version and a JetPack together. */
#ifndef XCC_JETPACK_H
#define XCC_JETPACK_H

#include <stddef.h>

#include "base/error.h"
#include "base/strvec.h"
#include "db/flags.h"
#include "db/gpus.h"

struct jetpack_release {
	const char *version;   /* "5.1" */
	const char **l4t;      /* newest first; may be empty */
	size_t n_l4t;
	const char *ubuntu;    /* "20.04" */
	/* The floors: the newest version each runtime library defines. */
	const char *glibc;     /* "2.31"  -> GLIBC_2.31 */
	const char *glibcxx;   /* "3.4.28" -> GLIBCXX_3.4.28 */
	const char *cxxabi;    /* "1.3.12" -> CXXABI_1.3.12 */
	const char *gcc_s;     /* "7.0.0" -> GCC_7.0.0 */
	struct cuda_version cuda;      /* shipped */
	int has_reachable;
	struct cuda_version reachable; /* newest through compat packages */
	struct { int major, minor; } *boards;
	size_t n_boards;
	const char *source;
};

struct jetpack_db {
	struct jetpack_release *releases; /* oldest first */
	size_t n;
	void *json_root;
};

/* Load the embedded jetpack.json, checked: no key but the known ones, and
 * every board a Jetson GPU of gdb (gpus.json). */
int jetpack_db_load(struct jetpack_db *db, const struct gpudb *gdb, struct xcc_error *err);
/* The same from text (for the unit tests). */
int jetpack_db_parse(struct jetpack_db *db, const char *text, const struct gpudb *gdb,
		     struct xcc_error *err);
void jetpack_db_free(struct jetpack_db *db);

/* "5.1", "5.1.2" (a point release of the 5.1 line), "7" (7.0). NULL when
 * unknown. */
const struct jetpack_release *jetpack_find(const struct jetpack_db *db, const char *version);
/* "4.6, 5.1, 6.0, ..." Caller frees. */
char *jetpack_versions(const struct jetpack_db *db);

int jetpack_supports_board(const struct jetpack_release *r, const struct gpu_cap *cap);
/* The newest CUDA the release's boards can run. */
struct cuda_version jetpack_cuda_max(const struct jetpack_release *r);

/*
 * Board x CUDA x JetPack for a validated set c: with jp, every Jetson GPU
 * of c must be a board of jp, no other GPU is allowed, and c's CUDA must be
 * one jp runs (error naming the JetPack releases that would work); without
 * jp, a Jetson GPU that no JetPack runs with c's CUDA is a warning pushed
 * to c->warnings.
 */
int jetpack_check(const struct jetpack_db *db, const struct jetpack_release *jp,
		  struct arch_choice *c, struct xcc_error *err);

/* The release whose floors a build for c must meet: jp when given, else the
 * oldest release that runs every Jetson GPU of c with c's CUDA; NULL when
 * c has no Jetson GPU or none fits. */
const struct jetpack_release *jetpack_floor_for(const struct jetpack_db *db,
						const struct jetpack_release *jp,
						const struct arch_choice *c);

#endif
