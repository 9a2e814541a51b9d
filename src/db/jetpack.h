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

/* A GPU that runs CUDA releases past its line's cuda_reachable only with
 * NVIDIA's compat libraries for that GPU on the board (jetpack.json
 * gpu_compat: Orin on JetPack 6.2 with cuda_compat_orin). */
struct jetpack_gpu_compat {
	int major, minor;        /* the board's capability */
	const char *component;   /* the redist component: "cuda_compat_orin" */
	struct cuda_version from, to;
	int unverified;          /* no NVIDIA page states it */
	const char *source;
};

struct jetpack_release {
	const char *version;   /* "5.1" (a line) or "5.1.2" (a point release) */
	/* A line: its points' L4T releases, newest first; a point: its own.
	 * May be empty. */
	const char **l4t;
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
	int has_compat_from;
	struct cuda_version compat_from; /* oldest that needs cuda-compat on the board */
	int has_min;
	struct cuda_version cuda_min;    /* the oldest CUDA its boards run (JetPack 7: 13.0) */
	/* The line's (a point shares them). */
	struct jetpack_gpu_compat *gpu_compat;
	size_t n_gpu_compat;
	struct { int major, minor; } *boards;
	size_t n_boards;
	const char *source;
	/* The fields no public NVIDIA page confirmed ("l4t", "cuda", ...). */
	const char **unverified;
	size_t n_unverified;
	/* A line: its point releases, oldest first. A point: NULL, and line
	 * names the line it belongs to (whose floors and boards it shares). */
	struct jetpack_release *points;
	size_t n_points;
	const struct jetpack_release *line;
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

/* "5.1" (the line), "5.1.2" (that point release of it, which must be one
 * the table lists; "5.1.0" is the point "5.1"), "7" (7.0). NULL when
 * unknown. */
const struct jetpack_release *jetpack_find(const struct jetpack_db *db, const char *version);
/* The point release whose L4T (Jetson Linux) release is l4t ("36.4.3";
 * "35.1" and "35.1.0" are one), NULL when none lists it. */
const struct jetpack_release *jetpack_find_l4t(const struct jetpack_db *db, const char *l4t);
/* "4.6, 5.1, 6.0, ..." (the lines). Caller frees. */
char *jetpack_versions(const struct jetpack_db *db);
/* The line a version names or belongs to ("5.1.9": 5.1), NULL when none. */
const struct jetpack_release *jetpack_find_line(const struct jetpack_db *db, const char *version);
/* "5.1, 5.1.1, ..., 5.1.5": a line's point releases. Caller frees. */
char *jetpack_point_versions(const struct jetpack_release *line);
/* The line of r (r itself for a line). */
const struct jetpack_release *jetpack_line(const struct jetpack_release *r);
/* Whether field ("l4t", "cuda") of r is unverified: a point's own or its
 * line's; a line's own, and its L4T when any point's is. */
int jetpack_unverified(const struct jetpack_release *r, const char *field);
/* "L4T 35.4.1" for a point or a line of one, "L4T 35.2.1 to 35.6.1" for a
 * line, "unverified L4T 35.5.0" when so; NULL when no L4T is known. Caller
 * frees. */
char *jetpack_l4t_text(const struct jetpack_release *r);

int jetpack_supports_board(const struct jetpack_release *r, const struct gpu_cap *cap);
/* The newest CUDA the release's boards can run. */
struct cuda_version jetpack_cuda_max(const struct jetpack_release *r);

/* The redist component (linux-aarch64) that holds NVIDIA's cuda-compat
 * libraries: what jetpack_needs_compat's boards need installed. */
#define JETPACK_COMPAT_COMPONENT "cuda_compat"

/* Whether r's boards run CUDA v only with NVIDIA's cuda-compat package
 * installed on the board (v newer than r ships, from cuda_compat_from up
 * to cuda_reachable). */
int jetpack_needs_compat(const struct jetpack_release *r, struct cuda_version v);
/* The rule of r's line by which cap runs CUDA v only with NVIDIA's compat
 * libraries for that GPU (cuda_compat_orin), or NULL. */
const struct jetpack_gpu_compat *jetpack_gpu_compat_for(const struct jetpack_release *r,
							const struct gpu_cap *cap,
							struct cuda_version v);
/* Any rule of r's line for CUDA v, whatever the GPU (doctor without a
 * sysroot), or NULL. */
const struct jetpack_gpu_compat *jetpack_gpu_compat_any(const struct jetpack_release *r,
							struct cuda_version v);
/* Whether r runs CUDA v on cap at all: its board, v in the CUDA range of
 * its line or through a gpu_compat rule. */
int jetpack_runs(const struct jetpack_release *r, const struct gpu_cap *cap, struct cuda_version v);
/* Where the package puts its libraries on the board:
 * "/usr/local/cuda-12.2/compat". Caller frees. */
char *jetpack_compat_dir(struct cuda_version v);

/* The releases (jp alone when given) that run every Jetson GPU of c with
 * c's CUDA: those that need cuda-compat on the board for it into needs,
 * the others into plain ("5.1"). Nothing when c has no Jetson GPU. */
void jetpack_compat_releases(const struct jetpack_db *db, const struct jetpack_release *jp,
			     const struct arch_choice *c, struct strvec *needs,
			     struct strvec *plain);

/* What a board needs installed beyond the program and its libraries. */
struct board_need {
	char *component; /* the redist component that holds it: "cuda_compat" */
	const char *subdir; /* where its archive puts the libraries, beside lib/: "compat" */
	char *package;   /* the board's package, "cuda-compat-12-2", or NULL */
	char *dir;       /* where it puts its libraries there, or NULL */
	char *why;       /* "JetPack 5.1's boards run CUDA 12.2 only with ..." */
	int planned;     /* sysroot create adds the component without --components */
};

struct board_needs {
	struct board_need *v;
	size_t n;
};

/* For a validated set c, on jp (NULL: on every release that runs c, so
 * said only when all of them need it): NVIDIA's cuda-compat where the
 * JetPack ships an older CUDA, and c's extra components (Orin's
 * cuda_compat_orin on linux-sbsa). */
void jetpack_board_needs(const struct jetpack_db *db, const struct jetpack_release *jp,
			 const struct arch_choice *c, struct board_needs *out);
void board_needs_free(struct board_needs *b);
/* One need as the JSON object flags --format json and sysroot info --json
 * print ("component", "package", "device_dir", "why"). */
struct cJSON *board_need_to_json(const struct board_need *n);

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
