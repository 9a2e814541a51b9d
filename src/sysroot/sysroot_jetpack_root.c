#include <config.h>

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "db/devroots.h"
#include "db/jetpack.h"
#include "db/request.h"
#include "elf/glibc.h"
#include "pkg/fetch.h"
#include "sysroot/sysroot_hostcc.h"
#include "sysroot/sysroot_jetpack_root.h"

char *sysroot_jetpack_root_path(const char *major)
{
	char *cache = fetch_default_cache_dir();
	char *path = xasprintf("%s/roots/jetpack-%s", cache, major);

	free(cache);
	return path;
}

/* The description's string member key, or NULL. */
static const char *desc_string(const cJSON *d, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(d, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

/* Root's description parsed into *out (NULL when it has none). */
static int read_description(const char *root, cJSON **out, struct xcc_error *err)
{
	char *path = xasprintf("%s/%s", root, ROOT_DESCRIPTION), *text;
	int rc = 0;

	*out = NULL;
	if (!file_exists(path))
		goto out;
	text = file_read_text(path, NULL);
	*out = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		rc = xcc_fail(err, XCC_EUSAGE, "%s is no JSON object: make the root again "
			      "(fetch-target-root.sh), or remove the file", path);
	}
out:
	free(path);
	return rc;
}

/* "Debian bullseye 11.11: glibc 2.31, libstdc++ up to GLIBCXX_3.4.28" and
 * the mismatch, as the description says. Caller frees. */
static char *describe_root(const cJSON *d)
{
	const char *deb = desc_string(d, "debian"), *pr = desc_string(d, "point_release");
	const char *gl = desc_string(d, "glibc"), *cxx = desc_string(d, "glibcxx");
	const char *mis = desc_string(d, "mismatch");
	const cJSON *pinned = cJSON_GetObjectItemCaseSensitive(d, "pinned");

	return xasprintf("Debian %s %s: glibc %s, libstdc++ up to GLIBCXX_%s%s%s%s",
			 deb ? deb : "(unknown)", pr ? pr : "", gl ? gl : "(unknown)",
			 cxx ? cxx : "(unknown)",
			 cJSON_IsFalse(pinned) ? "; its package versions are not pinned "
			 "(--current), see " ROOT_DESCRIPTION : "", mis ? "; " : ", as the board's",
			 mis ? mis : "");
}

/* The note for a JetPack whose root is not made yet. */
static void note_missing(const struct gpudb *db, const char *jetpack,
			 const struct device_root_line *line, const char *path,
			 struct strvec *notes)
{
	const struct device_root_release *r = line->release;
	struct jetpack_db jdb;
	struct xcc_error err = { 0 };
	const struct jetpack_release *jp = NULL;
	char *script = sysroot_script_path("fetch-target-root.sh"), *fit = NULL;

	if (jetpack_db_load(&jdb, db, &err) == 0) {
		if (request_jetpack(&jdb, jetpack, &jp, &err) == 0) {
			const char *board = (jp->line ? jp->line : jp)->glibc;

			fit = strcmp(board, r->glibc) == 0
				      ? xasprintf(", as JetPack %s's", jetpack)
				      : xasprintf(", the newest Debian's not above JetPack %s's %s",
						  jetpack, board);
		}
		jetpack_db_free(&jdb);
	}
	strvec_pushf(notes, "no device root for JetPack %s in %s: bash %s --jetpack %s makes it "
		     "from Debian %s's arm64 packages (glibc %s%s, libstdc++ up to GLIBCXX_%s); "
		     "then create the sysroot again: it records it as the target fs (or give "
		     "--target-fs a board's own root)", line->jetpack, path, script, line->jetpack,
		     r->debian, r->glibc, fit ? fit : "", r->glibcxx);
	free(fit);
	free(script);
}

int sysroot_jetpack_root(const struct gpudb *db, struct sysroot_request *rq,
			 struct strvec *notes, struct xcc_error *err)
{
	struct device_roots roots;
	const struct device_root_line *line;
	char *path = NULL, *libc = NULL, *what;
	cJSON *desc = NULL;
	int rc = -1;

	if (device_roots_load(&roots, err))
		return -1;
	line = device_root_for_jetpack(&roots, rq->jetpack);
	/* None fits JetPack 4, whose CUDA 10.2 sysroot create does not make. */
	if (!line || !line->release) {
		rc = 0;
		goto out;
	}
	path = sysroot_jetpack_root_path(line->jetpack);
	if (!file_is_dir(path)) {
		note_missing(db, rq->jetpack, line, path, notes);
		rc = 0;
		goto out;
	}
	if (request_rootfs_for_nvcc(path, &rq->target_fs, err) ||
	    glibc_check_rootfs(rq->target_fs, rq->target->triple, &libc, err) ||
	    read_description(rq->target_fs, &desc, err))
		goto out;
	what = desc ? describe_root(desc) : xstrdup("made by hand: it has no " ROOT_DESCRIPTION);
	strvec_pushf(notes, "target fs: the JetPack %s device root %s (%s)", line->jetpack,
		     rq->target_fs, what);
	free(what);
	rc = 0;
out:
	cJSON_Delete(desc);
	free(libc);
	free(path);
	device_roots_free(&roots);
	return rc;
}

int sysroot_root_description(struct sysroot_request *rq, struct xcc_error *err)
{
	cJSON *desc = NULL;
	char *path = NULL;
	const char *made_for;
	uint64_t size;
	int rc = -1;

	rq->target_fs_described[0] = '\0';
	if (read_description(rq->target_fs, &desc, err))
		return -1;
	if (!desc)
		return 0;
	made_for = desc_string(desc, "jetpack");
	if (made_for && rq->jetpack &&
	    (strncmp(rq->jetpack, made_for, strlen(made_for)) != 0 ||
	     (rq->jetpack[strlen(made_for)] != '.' && rq->jetpack[strlen(made_for)] != '\0'))) {
		char *script = sysroot_script_path("fetch-target-root.sh");

		xcc_fail(err, XCC_EUSAGE, "the target fs %s was made for JetPack %s (its "
			 ROOT_DESCRIPTION "), not JetPack %s: give the root of JetPack %.*s "
			 "(bash %s --jetpack %.*s makes it), or the --jetpack it was made for",
			 rq->target_fs, made_for, rq->jetpack, (int)strcspn(rq->jetpack, "."),
			 rq->jetpack, script, (int)strcspn(rq->jetpack, "."), rq->jetpack);
		free(script);
		goto out;
	}
	path = xasprintf("%s/%s", rq->target_fs, ROOT_DESCRIPTION);
	rc = fetch_sha256_file(path, rq->target_fs_described, &size, err);
out:
	free(path);
	cJSON_Delete(desc);
	return rc;
}

char *sysroot_root_summary(const char *root)
{
	struct xcc_error err = { 0 };
	cJSON *desc = NULL;
	char *what, *text;
	const char *made_for;

	if (read_description(root, &desc, &err) || !desc)
		return NULL;
	what = describe_root(desc);
	made_for = desc_string(desc, "jetpack");
	text = made_for ? xasprintf("JetPack %s's root: %s", made_for, what) : xstrdup(what);
	free(what);
	cJSON_Delete(desc);
	return text;
}
