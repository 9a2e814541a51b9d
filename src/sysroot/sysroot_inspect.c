/* Reading a finished sysroot: sysroot info, list and verify. */
#include <config.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/xalloc.h"
#include "db/jetpack.h"
#include "db/request.h"
#include "pkg/unpack.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot.h"
#include "sysroot/sysroot_cuda.h"
#include "sysroot/sysroot_files.h"
#include "sysroot/sysroot_jetpack_root.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_open.h"
#include "sysroot/sysroot_passes.h"

/* What the sysroot's boards need installed beyond the program (NVIDIA's
 * cuda-compat for a JetPack that ships an older CUDA, Orin's compat
 * libraries): empty when the recorded GPUs or JetPack do not resolve,
 * which verify reports. */
static void board_needs_of(const struct gpudb *db, const struct sysroot_meta *m,
			   struct board_needs *out)
{
	const struct target_profile *t;
	const struct jetpack_release *jp = NULL;
	struct jetpack_db jdb;
	struct arch_choice choice;
	struct cuda_version v;
	struct xcc_error e2 = { 0 };

	memset(out, 0, sizeof *out);
	if (!m->capabilities.n || request_target(db, m->target, &t, &e2) ||
	    cuda_version_parse(m->cuda, &v) || jetpack_db_load(&jdb, db, &e2))
		return;
	if (m->jetpack && !(jp = jetpack_find(&jdb, m->jetpack)))
		goto out;
	if (flags_resolve(db, t, v, &m->capabilities, PTX_NONE, &choice, &e2))
		goto out;
	jetpack_board_needs(&jdb, jp, &choice, out);
	arch_choice_free(&choice);
out:
	jetpack_db_free(&jdb);
}

static int has_component(const struct sysroot_meta *m, const char *name)
{
	for (size_t i = 0; i < m->n_components; i++)
		if (m->components[i].name && strcmp(m->components[i].name, name) == 0)
			return 1;
	return 0;
}

static void board_needs_text(const struct sysroot_meta *m, const struct board_needs *b,
			     struct strvec *lines)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct board_need *n = &b->v[i];

		if (has_component(m, n->component))
			strvec_pushf(lines, "board needs    %s: %s; in the sysroot (targets/%s/%s/), "
				     "for run --device and the runtime packages to ship",
				     n->package ? n->package : n->component, n->why, m->target_dir,
				     n->subdir);
		else
			strvec_pushf(lines, "board needs    %s: %s; not in the sysroot: install %s on "
				     "the board, or make the sysroot again with --components %s",
				     n->package ? n->package : n->component, n->why,
				     n->package ? n->package : "it", n->component);
	}
}

/* sysroot.json's text with "board_needs" added: what info --json says. */
static char *board_needs_json(const struct sysroot_meta *m, const struct board_needs *b)
{
	char *text = sysroot_meta_to_json(m), *s;
	cJSON *o = cJSON_Parse(text), *arr;

	if (!o)
		return text;
	arr = cJSON_AddArrayToObject(o, "board_needs");
	for (size_t i = 0; i < b->n; i++) {
		cJSON *e = board_need_to_json(&b->v[i]);

		cJSON_AddBoolToObject(e, "in_sysroot", has_component(m, b->v[i].component));
		cJSON_AddItemToArray(arr, e);
	}
	s = cJSON_Print(o);
	cJSON_Delete(o);
	free(text);
	return s;
}

/* The tree digest, once the records agree with their digests (the tree
 * itself against them is verify's, which takes long). */
static int tree_digest(const char *dir, char **out, struct xcc_error *err)
{
	struct sysroot_records r;
	struct strvec problems = STRVEC_INIT;
	int rc = 0;

	*out = NULL;
	sysroot_records_read(dir, 1, &r);
	sysroot_records_problems(dir, &r, &problems);
	if (!sysroot_records_covered(&r))
		rc = xcc_fail(err, XCC_EFAIL, "%s records no tree digest (an older cuda-xcc made "
			      "it): create it again with 'cuda-xcc sysroot create'", dir);
	else if (problems.n)
		rc = xcc_fail(err, XCC_EFAIL, "%s: %s; no tree digest of records that do not hold "
			      "together ('cuda-xcc sysroot verify %s' says more)", dir,
			      problems.v[0], dir);
	else
		*out = xasprintf("%s\n", r.tree);
	strvec_free(&problems);
	sysroot_records_free(&r);
	return rc;
}

/* The board it was copied from, as the board said: each fact or "unknown". */
static void board_text(const struct sysroot_board *b, struct strvec *lines)
{
#define OR_UNKNOWN(x) ((x) ? (x) : "unknown")
	strvec_pushf(lines, "board          %s%s%s: L4T %s, JetPack %s, CUDA %s (%s), GPU %s%s%s",
		     OR_UNKNOWN(b->device), b->root && strcmp(b->root, "/") ? " root " : "",
		     b->root && strcmp(b->root, "/") ? b->root : "", OR_UNKNOWN(b->l4t),
		     OR_UNKNOWN(b->jetpack), OR_UNKNOWN(b->cuda), OR_UNKNOWN(b->cuda_dir),
		     OR_UNKNOWN(b->gpu), b->soc ? " of " : "", b->soc ? b->soc : "");
#undef OR_UNKNOWN
}

int sysroot_info(const struct gpudb *db, const char *dir, enum sysroot_info_form form, char **out,
		 struct xcc_error *err)
{
	static const struct sysroot_want inspect = { .inspect = 1 };
	struct sysroot s;
	struct sysroot_meta *mp = &s.meta;
	struct strvec lines = STRVEC_INIT;
	struct board_needs needs;
	char *caps;

	if (sysroot_open(db, dir, &inspect, &s, err))
		return -1;
	if (form == SYSROOT_INFO_JSON) {
		board_needs_of(db, mp, &needs);
		*out = board_needs_json(mp, &needs);
		board_needs_free(&needs);
		sysroot_close(&s);
		return 0;
	}
	if (form == SYSROOT_INFO_TREE_DIGEST) {
		int rc = tree_digest(dir, out, err);

		sysroot_close(&s);
		return rc;
	}
	if (form == SYSROOT_INFO_FINGERPRINT) {
		int rc = mp->fingerprint ? 0 : xcc_fail(err, XCC_EFAIL,
			"%s/sysroot.json records no fingerprint (an older cuda-xcc made it): "
			"create it again with 'cuda-xcc sysroot create'", dir);

		*out = mp->fingerprint ? xasprintf("%s\n", mp->fingerprint) : NULL;
		sysroot_close(&s);
		return rc;
	}
	caps = mp->capabilities.n ? strvec_join(&mp->capabilities, " ") : xstrdup("-");
	strvec_pushf(&lines, "sysroot        %s", dir);
	strvec_pushf(&lines, "CUDA           %s", mp->cuda);
	strvec_pushf(&lines, "target         %s (%s libraries in targets/%s)", mp->target, mp->tag,
		     mp->target_dir);
	strvec_pushf(&lines, "GPUs           %s", caps);
	strvec_pushf(&lines, "host compiler  %s", mp->host_compiler ? mp->host_compiler :
		     "(none recorded)");
	if (mp->flavour)
		strvec_pushf(&lines, "libraries      %s build (%s)", mp->flavour,
			     mp->flavour_evidence ? mp->flavour_evidence : "");
	else if (strcmp(mp->tag, "linux-aarch64") == 0 || strcmp(mp->tag, "linux-sbsa") == 0)
		strvec_push(&lines, "libraries      which build (L4T or SBSA) is not known");
	if (mp->target_fs) {
		char *what = s.target_fs_problem ? NULL : sysroot_root_summary(mp->target_fs);

		strvec_pushf(&lines, "target fs      %s%s%s%s%s%s", mp->target_fs,
			     s.target_fs_problem ? ": does not hold: " : "",
			     s.target_fs_problem ? s.target_fs_problem : "", what ? " (" : "",
			     what ? what : "", what ? ")" : "");
		free(what);
	}
	if (mp->jetpack)
		strvec_pushf(&lines, "JetPack        %s", mp->jetpack);
	if (mp->board)
		board_text(mp->board, &lines);
	board_needs_of(db, mp, &needs);
	board_needs_text(mp, &needs, &lines);
	board_needs_free(&needs);
	strvec_pushf(&lines, "nvcc           %s/bin/nvcc", dir);
	strvec_push(&lines, "components:");
	for (size_t i = 0; i < mp->n_components; i++) {
		const struct sysroot_component *c = &mp->components[i];

		strvec_pushf(&lines, "  %-6s %-22s %-12s %.12s  %s", c->side ? c->side : "?",
			     c->name ? c->name : "?", c->version ? c->version : "-",
			     c->sha256 ? c->sha256 : "-", c->source ? c->source : "");
	}
	sysroot_serving_text(&mp->serving, &lines);
	strvec_push(&lines, "");
	*out = strvec_join(&lines, "\n");
	free(caps);
	strvec_free(&lines);
	sysroot_close(&s);
	return 0;
}

/* One sysroot of the store as a JSON object, for sysroot list --json. */
static cJSON *list_entry(const char *name, const char *dir, const struct sysroot_meta *m)
{
	cJSON *o = cJSON_CreateObject(), *caps = cJSON_AddArrayToObject(o, "capabilities");

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "dir", dir);
	cJSON_AddStringToObject(o, "cuda", m->cuda ? m->cuda : "");
	cJSON_AddStringToObject(o, "target", m->target ? m->target : "");
	cJSON_AddStringToObject(o, "tag", m->tag ? m->tag : "");
	for (size_t i = 0; i < m->capabilities.n; i++)
		cJSON_AddItemToArray(caps, cJSON_CreateString(m->capabilities.v[i]));
	return o;
}

int sysroot_list(int json, char **out, struct xcc_error *err)
{
	char *store = sysroot_store_dir();
	struct strvec names = STRVEC_INIT, lines = STRVEC_INIT;
	cJSON *all = json ? cJSON_CreateArray() : NULL;
	DIR *d = opendir(store);
	struct dirent *e;

	(void)err;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !strstr(e->d_name, ".tmp-") &&
		    !strstr(e->d_name, ".old-") && !strstr(e->d_name, ".lock"))
			strvec_push(&names, e->d_name);
	if (d)
		closedir(d);
	if (names.n)
		strvec_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *dir = xasprintf("%s/%s", store, names.v[i]);
		struct sysroot_meta m;
		struct xcc_error e2 = { 0 };

		if (sysroot_meta_load(dir, &m, &e2) == 0) {
			char *caps = m.capabilities.n ? strvec_join(&m.capabilities, ",") :
				xstrdup("-");

			if (all)
				cJSON_AddItemToArray(all, list_entry(names.v[i], dir, &m));
			strvec_pushf(&lines, "%-24s CUDA %-8s %-7s %-14s GPUs %s", names.v[i],
				     m.cuda, m.target, m.tag, caps);
			free(caps);
			sysroot_meta_free(&m);
		}
		free(dir);
	}
	if (all) {
		char *text = cJSON_Print(all);

		*out = xasprintf("%s\n", text);
		free(text);
		cJSON_Delete(all);
	} else {
		if (lines.n == 0)
			strvec_pushf(&lines, "no sysroots in %s (make one with 'cuda-xcc sysroot "
				     "create')", store);
		strvec_push(&lines, "");
		*out = strvec_join(&lines, "\n");
	}
	strvec_free(&names);
	strvec_free(&lines);
	free(store);
	return 0;
}

/* The libraries still being the build the sysroot is for (libraries of the
 * other build copied in later would not run on its device): create's own
 * check, on the tree as it is now. The packages are gone, so only what the
 * libraries carry can tell. */
static void verify_flavour(const struct gpudb *db, const char *dir, struct sysroot_meta *m,
			   struct strvec *problems)
{
	struct plan p = { .target = m->target, .cuda = m->cuda, .tag = m->tag,
			  .target_dir = m->target_dir };
	struct sysroot_flavour f;
	struct strvec notes = STRVEC_INIT;
	struct xcc_error e2 = { 0 };

	if (sysroot_check_flavour(db, dir, &p, &f, &notes, &e2))
		strvec_pushf(problems, "the target libraries are not the build this sysroot is "
			     "for (%s): %s", m->tag, e2.msg);
	else
		sysroot_flavour_free(&f);
	strvec_free(&notes);
}

/* A target library that NEEDs what a CUDA component would bring, but the
 * sysroot lacks it: the program fails to start on the device ("cannot open
 * shared object file"), which has the driver's and the C library's, never
 * CUDA's. What no component brings stays a note (the device's own). */
static void verify_needed(const struct gpudb *db, const struct sysroot_unresolved *u,
			  struct strvec *problems)
{
	struct strvec done = STRVEC_INIT;

	for (size_t i = 0; i < u->library.n; i++) {
		const char *lib = u->library.v[i];
		const char *c = gpudb_library_component(db, lib);
		size_t others = 0;
		char more[48] = "";

		if (!c || strvec_contains(&done, lib))
			continue;
		strvec_push(&done, lib);
		for (size_t k = i + 1; k < u->library.n; k++)
			others += strcmp(u->library.v[k], lib) == 0;
		if (others)
			snprintf(more, sizeof more, " (as %zu more file%s)", others,
				 others == 1 ? " does" : "s do");
		strvec_pushf(problems, "%s NEEDs %s%s, which is neither in the sysroot nor one the "
			     "device provides: component %s brings it; make the sysroot again "
			     "with --components %s (from .debs or wheels: give its package too)",
			     u->file.v[i], lib, more, c, c);
	}
	strvec_free(&done);
}

/* The tree against sysroot.files: contents too where it records digests
 * and they are asked for. */
static void verify_files(const char *dir, int metadata_only, struct strvec *problems,
			 enum sysroot_verify_depth *depth)
{
	char *path = xasprintf("%s/%s", dir, SYSROOT_FILES_LIST);
	char *want = file_read_text(path, NULL), *have;
	int digests;

	*depth = SYSROOT_VERIFY_NO_DIGESTS;
	if (!want) {
		strvec_pushf(problems, "%s is missing: the tree cannot be checked", path);
		free(path);
		return;
	}
	digests = sysroot_files_has_digests(want) && !metadata_only;
	if (sysroot_files_has_digests(want))
		*depth = metadata_only ? SYSROOT_VERIFY_METADATA : SYSROOT_VERIFY_CONTENTS;
	have = sysroot_files_listing(dir, digests);
	sysroot_files_diff(want, have, problems);
	free(have);
	free(want);
	free(path);
}

/* sysroot.json and sysroot.files against their digests; an older
 * cuda-xcc's sysroot, which records none, is said to be checked less. */
static void verify_records(const char *dir, const char *expect, struct strvec *problems,
			   enum sysroot_verify_depth *depth)
{
	struct sysroot_records r;

	sysroot_records_read(dir, 1, &r);
	sysroot_records_problems(dir, &r, problems);
	if (!sysroot_records_covered(&r) && *depth == SYSROOT_VERIFY_CONTENTS)
		*depth = SYSROOT_VERIFY_UNCOVERED;
	else if (!sysroot_records_covered(&r) && *depth == SYSROOT_VERIFY_METADATA)
		*depth = SYSROOT_VERIFY_METADATA_UNCOVERED;
	if (expect && !sysroot_records_covered(&r))
		strvec_pushf(problems, "tree digest: %s records none (an older cuda-xcc made it), "
			     "so it cannot be checked against --expect %s: make it again with "
			     "'cuda-xcc sysroot create'", dir, expect);
	else if (expect && strcmp(r.tree, expect) != 0)
		strvec_pushf(problems, "tree digest %s, not the expected %s: this is not the sysroot "
			     "that digest was taken of (made again, or changed together with its "
			     "records)", r.tree[0] ? r.tree : "unreadable", expect);
	sysroot_records_free(&r);
}

int sysroot_verify_depth_ok(enum sysroot_verify_depth depth)
{
	return depth == SYSROOT_VERIFY_CONTENTS || depth == SYSROOT_VERIFY_METADATA;
}

const char *sysroot_verify_depth_text(enum sysroot_verify_depth depth)
{
	switch (depth) {
	case SYSROOT_VERIFY_CONTENTS:
		return "every file's contents match the sha256 create recorded, and sysroot.json "
		       "and sysroot.files their digests";
	case SYSROOT_VERIFY_METADATA:
		return "metadata only (--metadata-only): each file's type, mode, size and link "
		       "target; contents NOT checked";
	case SYSROOT_VERIFY_UNCOVERED:
		return "every file's contents match the sha256 sysroot.files records, but "
		       "sysroot.json and sysroot.files carry no digest of their own (an older "
		       "cuda-xcc made it), so an edit of them CANNOT be told; make it again with "
		       "'cuda-xcc sysroot create' to record them";
	case SYSROOT_VERIFY_METADATA_UNCOVERED:
		return "metadata only (--metadata-only): contents NOT checked, and sysroot.json "
		       "and sysroot.files carry no digest of their own (an older cuda-xcc made "
		       "it), so an edit of them CANNOT be told";
	default:
		return "metadata only: this sysroot records no digests (made by an older "
		       "cuda-xcc), so its contents CANNOT be checked; make it again with "
		       "'cuda-xcc sysroot create' to record them";
	}
}

char *sysroot_missing_cross_gcc(const struct sysroot *s)
{
	char *gcc, *path;

	if (s->target_fs || !s->target)
		return NULL;
	gcc = xasprintf("%s-gcc", s->target->triple);
	path = proc_which(gcc);
	if (path) {
		free(path);
		free(gcc);
		return NULL;
	}
	return gcc;
}

char *sysroot_missing_cross_gcc_problem(const char *gcc)
{
	return xasprintf("ELF dependencies not checked: %s, the cross compiler that says where "
			 "the target's libstdc++ and libgcc_s are, is not on PATH", gcc);
}

int sysroot_verify(const struct gpudb *db, const char *dir, int metadata_only,
		   struct strvec *problems, enum sysroot_verify_depth *depth,
		   struct xcc_error *err)
{
	return sysroot_verify_expect(db, dir, metadata_only, NULL, problems, depth, err);
}

int sysroot_verify_expect(const struct gpudb *db, const char *dir, int metadata_only,
			  const char *expect, struct strvec *problems,
			  enum sysroot_verify_depth *depth, struct xcc_error *err)
{
	static const struct sysroot_want inspect = { .inspect = 1 };
	struct sysroot s;
	struct sysroot_meta *mp = &s.meta;
	char *path, *have, *profile, *inc, *gcc;
	struct xcc_error e2 = { 0 };
	struct strvec notes = STRVEC_INIT;
	struct sysroot_unresolved unresolved = { STRVEC_INIT, STRVEC_INIT };
	size_t n_before;

	*depth = SYSROOT_VERIFY_NO_DIGESTS;
	if (sysroot_open(db, dir, &inspect, &s, err))
		return -1;
	if (s.target_fs_problem)
		strvec_push(problems, s.target_fs_problem);
	verify_files(dir, metadata_only, problems, depth);
	verify_records(dir, expect, problems, depth);
	n_before = problems->n;
	if (unpack_check_tree_links(dir, problems, err)) {
		sysroot_close(&s);
		return -1;
	}
	/* The checks below follow links: not where one leads out. */
	if (problems->n > n_before)
		goto done;
	path = xasprintf("%s/bin/nvcc.profile", dir);
	have = file_read_text(path, NULL);
	inc = xasprintf("%s/targets/%s/include/cccl", dir, mp->target_dir);
	profile = sysroot_nvcc_profile(file_is_dir(inc));
	if (!have || strcmp(have, profile) != 0)
		strvec_pushf(problems, "%s is not the profile cuda-xcc writes", path);
	free(have);
	free(profile);
	free(inc);
	free(path);
	path = xasprintf("%s/bin/nvcc", dir);
	if (access(path, X_OK))
		strvec_pushf(problems, "%s is not executable", path);
	free(path);
	gcc = sysroot_missing_cross_gcc(&s);
	if (gcc) {
		char *problem = sysroot_missing_cross_gcc_problem(gcc);

		strvec_push(problems, problem);
		free(problem);
	} else {
		if (sysroot_autopatch(dir, mp->target_dir, s.target->triple, s.target_fs, 1, &notes,
				      &unresolved, &e2))
			strvec_pushf(problems, "ELF dependencies: %s", e2.msg);
		verify_needed(db, &unresolved, problems);
	}
	free(gcc);
	verify_flavour(db, dir, mp, problems);
	sysroot_verify_cuda(db, dir, mp, problems);
done:
	strvec_free(&notes);
	sysroot_unresolved_free(&unresolved);
	sysroot_close(&s);
	if (problems->n)
		return xcc_fail(err, XCC_EFAIL, "%s has %zu problem%s", dir, problems->n,
				problems->n == 1 ? "" : "s");
	return 0;
}
