/* The host compiler a sysroot records, matched to the board's userland: a
 * program built with a cross g++ whose own glibc or libstdc++ is newer than
 * the board's may not link against the board's root at all (libstdc++'s
 * headers reach for __libc_single_threaded, GLIBC_2.32), and what links may
 * need versions the board lacks. The floor holds by construction when the
 * compiler is no newer than the board. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/xalloc.h"
#include "db/crosstc.h"
#include "db/jetpack.h"
#include "db/request.h"
#include "elf/glibc.h"
#include "pkg/fetch.h"
#include "sysroot/sysroot_hostcc.h"

/* What a board or a compiler's userland offers: numbers only ("2.31"). */
struct userland {
	char *glibc, *glibcxx;
	char *what; /* "JetPack 5.1.2", "the --target-fs root" */
	/* glibc read from a libc's definitions (a root, a compiler): the
	 * newest GLIBC_ it defines, not its release (2.31 defines GLIBC_2.30). */
	int glibc_defined;
};

static void userland_free(struct userland *u)
{
	free(u->glibc);
	free(u->glibcxx);
	free(u->what);
	memset(u, 0, sizeof *u);
}


/* The board's floor: the root's own libraries when there is a root, else the
 * JetPack's. Returns 0 with u empty when neither is known. */
static int board_userland(const struct gpudb *db, const struct sysroot_request *rq,
			  struct userland *u, struct xcc_error *err)
{
	struct jetpack_db jdb;
	const struct jetpack_release *jp;

	memset(u, 0, sizeof *u);
	if (rq->target_fs) {
		char *libc = glibc_find_libc(rq->target_fs, rq->target->triple);
		char *cxx = glibc_find_in_rootfs(rq->target_fs, rq->target->triple, "libstdc++.so.6");

		u->glibc = glibc_version_defs_newest(libc, "GLIBC_");
		u->glibcxx = glibc_version_defs_newest(cxx, "GLIBCXX_");
		u->what = xstrdup("the --target-fs root");
		u->glibc_defined = 1;
		free(libc);
		free(cxx);
		return 0;
	}
	if (!rq->jetpack)
		return 0;
	if (jetpack_db_load(&jdb, db, err))
		return -1;
	if (request_jetpack(&jdb, rq->jetpack, &jp, err) == 0) {
		u->glibc = jp->glibc ? xstrdup(jp->glibc) : NULL;
		u->glibcxx = jp->glibcxx ? xstrdup(jp->glibcxx) : NULL;
		u->what = xasprintf("JetPack %s", rq->jetpack);
	}
	jetpack_db_free(&jdb);
	return u->what ? 0 : -1;
}

/* A compiler's own C library and C++ runtime, as it links them. */
static void compiler_userland(const char *cc, struct userland *u)
{
	static const char *const libs[] = { "libc.so.6", "libstdc++.so.6" };
	char *found[2] = { NULL, NULL };

	memset(u, 0, sizeof *u);
	for (int i = 0; i < 2; i++) {
		char *arg = xasprintf("-print-file-name=%s", libs[i]);
		char *argv[] = { (char *)cc, arg, NULL }, *out = NULL;

		/* gcc prints the bare name back when it has no such file. */
		if (proc_capture(argv, &out, NULL) == 0 && out && strchr(out, '/')) {
			out[strcspn(out, "\n")] = '\0';
			found[i] = access(out, R_OK) == 0 ? xstrdup(out) : NULL;
		}
		free(out);
		free(arg);
	}
	u->glibc = glibc_version_defs_newest(found[0], "GLIBC_");
	u->glibcxx = glibc_version_defs_newest(found[1], "GLIBCXX_");
	free(found[0]);
	free(found[1]);
}

/* Whether what a compiler builds against is newer than the board's, by
 * either library (one unknown on either side does not count). */
static int newer_than(const struct userland *cc, const struct userland *board)
{
	return (cc->glibc && board->glibc && crosstc_version_cmp(cc->glibc, board->glibc) > 0) ||
	       (cc->glibcxx && board->glibcxx &&
		crosstc_version_cmp(cc->glibcxx, board->glibcxx) > 0);
}

char *sysroot_script_path(const char *name)
{
	char *candidates[] = {
		xasprintf("%s/%s", XCC_PKGDATADIR, name),
		xasprintf("%s/scripts/%s", XCC_SRCDIR, name),
	}, *found = NULL;

	for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
		if (!found && access(candidates[i], R_OK) == 0)
			found = candidates[i];
		else
			free(candidates[i]);
	}
	return found ? found : xstrdup(name);
}

char *sysroot_cross_toolchain_path(const struct cross_toolchain *tc, const char *triple)
{
	char *cache = fetch_default_cache_dir();
	char *path = xasprintf("%s/toolchains/%s/bin/%s-g++-%d", cache, tc->debian, triple, tc->gcc);

	free(cache);
	return path;
}

static void describe(const struct userland *u, char *buf, size_t size)
{
	snprintf(buf, size, "libc up to GLIBC_%s, libstdc++ up to GLIBCXX_%s",
		 u->glibc ? u->glibc : "(unknown)", u->glibcxx ? u->glibcxx : "(unknown)");
}

/* What to say of a compiler newer than the board, with the way to the
 * matched one; then: what to do once it is there. Caller frees. */
static char *too_new_text(const char *name, const struct userland *cc,
			  const struct userland *board, const struct cross_toolchain *match,
			  const char *then)
{
	char c[96], b[96], *script = sysroot_script_path("fetch-cross-toolchain.sh"), *text;

	describe(cc, c, sizeof c);
	describe(board, b, sizeof b);
	if (!match) {
		free(script);
		return xasprintf("host compiler %s builds against %s, newer than %s (%s), and no "
				 "Debian toolchain cuda-xcc knows is as old: use a cross g++ built "
				 "for the board's glibc", name, c, board->what, b);
	}
	text = xasprintf("host compiler %s builds against %s, newer than %s (%s): C++ programs "
			 "that use threads or shared_ptr may not link against the board's root "
			 "(undefined __libc_single_threaded), and what links may need versions "
			 "the board lacks. Get the toolchain matched to it, Debian %s's g++ %d "
			 "(glibc %s): bash %s --release %s; then %s", name, c, board->what, b,
			 match->debian, match->gcc, match->glibc, script, match->debian, then);
	free(script);
	return text;
}

static void note_too_new(const char *name, const struct userland *cc, const struct userland *board,
			 const struct cross_toolchain *match, struct strvec *notes)
{
	char *text = too_new_text(name, cc, board, match,
				  "create the sysroot again: it records that g++");

	strvec_push(notes, text);
	free(text);
}

char *sysroot_hostcc_link_hint(const struct gpudb *db, const char *cc, const char *root_libc,
			       const char *root_libstdcxx, const char *triple)
{
	struct cross_toolchains tcs = { 0 };
	struct xcc_error err = { 0 };
	struct userland board = { 0 }, have;
	char *hint = NULL, *path, *then;
	const struct cross_toolchain *match;

	board.glibc = glibc_version_defs_newest(root_libc, "GLIBC_");
	board.glibcxx = glibc_version_defs_newest(root_libstdcxx, "GLIBCXX_");
	board.what = xstrdup("the --target-fs root");
	board.glibc_defined = 1;
	compiler_userland(cc, &have);
	if (newer_than(&have, &board) && cross_toolchains_load(&tcs, &err) == 0) {
		match = cross_toolchain_match(&tcs, board.glibc, board.glibcxx, db->gcc_min, 0);
		path = match ? sysroot_cross_toolchain_path(match, triple) : NULL;
		then = xasprintf("build with -ccbin %s, or create the sysroot again, which then "
				 "records it", path ? path : "(its g++)");
		hint = too_new_text(cc, &have, &board, match, then);
		free(then);
		free(path);
	}
	userland_free(&have);
	userland_free(&board);
	cross_toolchains_free(&tcs);
	return hint;
}

static void take_compiler(struct host_compiler *hc, char *path, int major)
{
	host_compiler_free(hc);
	hc->path = path;
	hc->name = xstrdup(path); /* recorded absolute: it is on no PATH */
	hc->major = major;
}

/* No --host-compiler: the one on PATH when it fits, else the matched
 * toolchain when it is installed, else a note with the command. */
static void choose_matched(const struct gpudb *db, struct sysroot_request *rq,
			   const struct userland *board, struct strvec *notes)
{
	const struct host_compiler_limit *lim = gpudb_host_limit(db, rq->cuda);
	struct cross_toolchains tcs = { 0 };
	struct xcc_error err = { 0 };
	const struct cross_toolchain *match = NULL;
	struct userland cc;
	char *path = NULL;

	memset(&cc, 0, sizeof cc);
	if (rq->host_compiler.path) {
		compiler_userland(rq->host_compiler.path, &cc);
		if (!newer_than(&cc, board))
			goto out;
	}
	if (cross_toolchains_load(&tcs, &err) == 0)
		match = cross_toolchain_match(&tcs, board->glibc, board->glibcxx, db->gcc_min,
					      lim ? lim->gcc_max : 0);
	if (match)
		path = sysroot_cross_toolchain_path(match, rq->target->triple);
	if (path && access(path, X_OK) == 0 &&
	    hostcc_check_machine(path, rq->target, &err) == 0) {
		char b[96];

		describe(board, b, sizeof b);
		strvec_pushf(notes, "host compiler: Debian %s's g++ %d (glibc %s: up to GLIBC_%s, "
			     "GLIBCXX_%s), matched to %s (%s)%s", match->debian, match->gcc,
			     match->glibc, match->glibc_defines, match->glibcxx, board->what, b,
			     board->glibc && crosstc_version_cmp(board->glibc, board->glibc_defined
								 ? match->glibc_defines : match->glibc)
				     ? "; no Debian toolchain has that glibc exactly, this is the "
				       "newest one not above it" : "");
		take_compiler(&rq->host_compiler, path, match->gcc);
		free(rq->host_compiler_problem);
		rq->host_compiler_problem = NULL;
		path = NULL;
	} else if (rq->host_compiler.path) {
		note_too_new(rq->host_compiler.name, &cc, board, match, notes);
	}
out:
	free(path);
	userland_free(&cc);
	cross_toolchains_free(&tcs);
}

/* --host-compiler PATH: the user's, checked as -ccbin is; recorded absolute. */
static int take_given(const struct gpudb *db, const char *given, struct sysroot_request *rq,
		      const struct userland *board, struct strvec *notes, struct xcc_error *err)
{
	char *path = proc_which(given), *abs;
	struct userland cc;

	if (!path)
		return xcc_fail(err, XCC_EUSAGE, "--host-compiler %s: no such program (give the "
				"path of a cross g++, e.g. one made by fetch-cross-toolchain.sh)",
				given);
	abs = path[0] == '/' ? path : realpath(path, NULL);
	if (abs != path)
		free(path);
	if (!abs || hostcc_check_machine(abs, rq->target, err) ||
	    hostcc_check_version(db, rq->target, rq->cuda, abs, 0, err)) {
		free(abs);
		return abs ? -1 : xcc_fail(err, XCC_EUSAGE, "--host-compiler %s: cannot resolve "
					   "its path", given);
	}
	compiler_userland(abs, &cc);
	if (board->what && newer_than(&cc, board))
		note_too_new(abs, &cc, board, NULL, notes);
	userland_free(&cc);
	take_compiler(&rq->host_compiler, abs, 0);
	free(rq->host_compiler_problem);
	rq->host_compiler_problem = NULL;
	return 0;
}

int sysroot_choose_host_compiler(const struct gpudb *db, const char *given,
				 struct sysroot_request *rq, struct strvec *notes,
				 struct xcc_error *err)
{
	struct xcc_error hc_err = { 0 };
	struct userland board;
	int rc = 0;

	if (board_userland(db, rq, &board, err))
		return -1;
	if (given)
		rc = take_given(db, given, rq, &board, notes, err);
	else {
		if (hostcc_find(db, rq->target, rq->cuda, 0, &rq->host_compiler, &hc_err))
			rq->host_compiler_problem = xstrdup(hc_err.msg);
		if (board.what)
			choose_matched(db, rq, &board, notes);
	}
	userland_free(&board);
	return rc;
}
