#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "db/flags.h"
#include "sysroot/sysroot_open.h"
#include "use/foreign_cuda.h"
#include "use/toolchain.h"
#include "use/toolchain_query.h"

/* Everything the forms print, worked out once. */
struct answer {
	struct sysroot sr;
	char *named;       /* the sysroot as named, made absolute: the path the wrappers use */
	char *target_path; /* named/targets/TARGET_DIR */
	char *nvcc;
	char *host_c;      /* the recorded g++'s C compiler, or NULL */
	char *archs;       /* CMake's spelling of the GPUs, or NULL with archs_error */
	struct strvec gencode;
	char *archs_error;
	struct foreign_cuda_findings env;
	struct strvec given_var, given_entry, given_root; /* q->check's in another CUDA */
	const char *sysroot_unsafe; /* why CMake cannot carry the sysroot's path, or NULL */
	char *refusal;              /* why the CMake forms refuse, or NULL */
};

static void answer_free(struct answer *a)
{
	sysroot_close(&a->sr);
	free(a->named);
	free(a->target_path);
	free(a->nvcc);
	free(a->host_c);
	free(a->archs);
	strvec_free(&a->gencode);
	free(a->archs_error);
	foreign_cuda_findings_free(&a->env);
	strvec_free(&a->given_var);
	strvec_free(&a->given_entry);
	strvec_free(&a->given_root);
	free(a->refusal);
}

/* path made absolute without resolving its links: a link to the sysroot
 * is how a user names one whose real path CMake cannot carry. */
static char *named_absolute(const char *path)
{
	char *cwd, *out;

	if (path[0] == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	out = cwd ? xasprintf("%s/%s", cwd, path) : xstrdup(path);
	free(cwd);
	return out;
}

/* The first refusal of the values as the caller names them, before the
 * sysroot is opened (a device root CMake cannot carry is refused as such,
 * not as one without libc.so.6). The names are the toolchain file's. */
static char *given_refusal(const struct toolchain_query *q)
{
	struct xcc_error e = { 0 };

	if (toolchain_cmake_check("CUDA_XCC_SYSROOT", q->sysroot, &e) ||
	    toolchain_cmake_check_root("CUDA_XCC_TARGET_FS", q->target_fs, &e) ||
	    toolchain_cmake_check("CUDA_XCC_EXECUTABLE", q->cuda_xcc, &e))
		return xstrdup(e.msg);
	return NULL;
}

/* The refusals that need the sysroot: its own device root, a missing
 * host compiler (the toolchain file's compilers; not a cache's, whose
 * caller names its own), another CUDA's headers where every compile reads
 * them. */
static char *open_refusal(const struct toolchain_query *q, const struct answer *a)
{
	const struct sysroot_meta *m = &a->sr.meta;
	struct xcc_error e = { 0 };

	if (!q->target_fs && a->sr.target_fs &&
	    toolchain_cmake_check_root("the device root the sysroot records (target_fs of its "
				       "sysroot.json; give CUDA_XCC_TARGET_FS to name another)",
				       a->sr.target_fs, &e))
		return xstrdup(e.msg);
	if (!m->host_compiler && q->form != QUERY_CMAKE_CACHE)
		return xasprintf("%s/sysroot.json names no cross g++ (host_compiler); recreate "
				 "it with 'cuda-xcc sysroot create' on a machine that has one",
				 m->dir);
	for (size_t i = 0; i < a->env.n; i++) {
		const struct foreign_cuda_finding *f = &a->env.v[i];

		if (f->reach == FOREIGN_COMPILES)
			return xasprintf("%s holds %s, the headers of the CUDA in %s, not the "
					 "sysroot's, and the compilers read it at every compile "
					 "of this build: unset %s, or take that entry out of it, "
					 "for the configure and the build", f->var, f->entry,
					 f->root, f->var);
	}
	return NULL;
}

static int answer_archs(const struct gpudb *db, const struct toolchain_query *q,
			struct answer *a, struct xcc_error *err)
{
	const struct strvec *specs = q->arch.n ? &q->arch : &a->sr.meta.capabilities;
	struct arch_choice choice = { 0 };
	struct xcc_error e = { 0 };

	if (flags_resolve(db, a->sr.target, a->sr.cuda, specs, PTX_DEFAULT, &choice, &e)) {
		/* GPUs asked for here are the caller's to fix; the sysroot's own
		 * leave the other fields worth having. */
		if (q->arch.n) {
			*err = e;
			return -1;
		}
		a->archs_error = xstrdup(e.msg);
		return 0;
	}
	a->archs = arch_choice_cmake(&choice);
	arch_choice_gencode(&choice, &a->gencode);
	arch_choice_free(&choice);
	return 0;
}

static int answer_open(const struct gpudb *db, const struct toolchain_query *q,
		       struct answer *a, struct xcc_error *err)
{
	struct sysroot_want want = { .target_fs = q->target_fs };
	const struct sysroot_meta *m;

	a->refusal = given_refusal(q);
	if (a->refusal && q->form >= QUERY_CMAKE)
		return xcc_fail(err, XCC_EUSAGE, "%s", a->refusal);
	if (sysroot_open(db, q->sysroot, &want, &a->sr, err))
		return -1;
	m = &a->sr.meta;
	a->named = named_absolute(q->sysroot);
	a->target_path = xasprintf("%s/targets/%s", a->named, m->target_dir);
	a->nvcc = xasprintf("%s/bin/nvcc", a->named);
	a->host_c = m->host_compiler ? toolchain_c_compiler_for(m->host_compiler) : NULL;
	a->sysroot_unsafe = toolchain_cmake_unsafe(q->sysroot);
	if (answer_archs(db, q, a, err))
		return -1;
	foreign_cuda_find(m->dir, &a->env);
	for (size_t i = 0; i < q->check.n; i++) {
		const char *eq = strchr(q->check.v[i], '=');
		char *root;

		if (!eq || eq == q->check.v[i])
			return xcc_fail(err, XCC_EUSAGE, "--check takes NAME=PATH, not '%s'",
					q->check.v[i]);
		/* An empty PATH names nothing, as an unset variable passed. */
		if (!eq[1] || !(root = foreign_cuda_root(eq + 1, m->dir)))
			continue;
		strvec_pushf(&a->given_var, "%.*s", (int)(eq - q->check.v[i]), q->check.v[i]);
		strvec_push(&a->given_entry, eq + 1);
		strvec_push(&a->given_root, root);
		free(root);
	}
	if (!a->refusal)
		a->refusal = open_refusal(q, a);
	if (a->refusal && q->form >= QUERY_CMAKE)
		return xcc_fail(err, XCC_EUSAGE, "%s", a->refusal);
	return 0;
}

static void add_str(cJSON *o, const char *name, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, name, s);
	else
		cJSON_AddNullToObject(o, name);
}

static void add_strs(cJSON *o, const char *name, const struct strvec *v)
{
	cJSON *arr = cJSON_AddArrayToObject(o, name);

	for (size_t i = 0; i < v->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v->v[i]));
}

static const char *const reach_names[] = {
	[FOREIGN_TOOLKIT] = "toolkit", [FOREIGN_PROGRAMS] = "programs",
	[FOREIGN_COMPILES] = "compiles", [FOREIGN_LINKS] = "links",
};

static void add_foreign(cJSON *arr, const char *var, const char *entry, const char *root,
			const char *reach)
{
	cJSON *f = cJSON_CreateObject();

	cJSON_AddStringToObject(f, "variable", var);
	cJSON_AddStringToObject(f, "entry", entry);
	cJSON_AddStringToObject(f, "root", root);
	cJSON_AddStringToObject(f, "reaches", reach);
	cJSON_AddItemToArray(arr, f);
}

static cJSON *answer_json(const struct answer *a)
{
	const struct sysroot_meta *m = &a->sr.meta;
	cJSON *o = cJSON_CreateObject(), *arr;

	add_str(o, "sysroot", a->named);
	add_str(o, "sysroot_real", m->dir);
	add_str(o, "target", m->target);
	add_str(o, "cuda", m->cuda);
	add_str(o, "tag", m->tag);
	add_str(o, "target_dir", m->target_dir);
	add_str(o, "target_path", a->target_path);
	add_str(o, "triple", a->sr.target->triple);
	add_str(o, "processor", a->sr.target->machine);
	add_str(o, "nvcc", a->nvcc);
	add_str(o, "host_compiler", m->host_compiler);
	add_str(o, "host_compiler_c", a->host_c);
	add_strs(o, "capabilities", &m->capabilities);
	add_str(o, "archs", a->archs);
	add_strs(o, "gencode", &a->gencode);
	add_str(o, "archs_error", a->archs_error);
	add_str(o, "fingerprint", m->fingerprint);
	add_str(o, "target_fs", a->sr.target_fs);
	cJSON_AddBoolToObject(o, "target_fs_recorded", a->sr.target_fs_recorded);
	arr = cJSON_AddArrayToObject(o, "foreign_cuda");
	for (size_t i = 0; i < a->env.n; i++)
		add_foreign(arr, a->env.v[i].var, a->env.v[i].entry, a->env.v[i].root,
			    reach_names[a->env.v[i].reach]);
	for (size_t i = 0; i < a->given_var.n; i++)
		add_foreign(arr, a->given_var.v[i], a->given_entry.v[i], a->given_root.v[i],
			    "given");
	add_str(o, "sysroot_cmake_unsafe", a->sysroot_unsafe);
	add_str(o, "cmake_refusal", a->refusal);
	return o;
}

/* One line of --get: a value with a line break in it would read as two. */
static int get_line(const char *field, const char *s, struct strvec *lines,
		    struct xcc_error *err)
{
	if (strpbrk(s, "\n\r"))
		return xcc_fail(err, XCC_EUSAGE, "the %s '%s' holds a line break, which a plain "
				"answer cannot carry: ask for --json", field, s);
	strvec_push(lines, s);
	return 0;
}

static char *form_get(cJSON *o, const char *field, struct xcc_error *err)
{
	cJSON *item = cJSON_GetObjectItemCaseSensitive(o, field), *e;
	struct strvec lines = STRVEC_INIT;
	char *out = NULL;
	int rc = 0;

	if (!item) {
		struct strvec names = STRVEC_INIT;
		char *all;

		cJSON_ArrayForEach(e, o)
			strvec_push(&names, e->string);
		all = strvec_join(&names, ", ");
		xcc_fail(err, XCC_EUSAGE, "no field '%s': --get takes one of %s", field, all);
		free(all);
		strvec_free(&names);
		return NULL;
	}
	if (cJSON_IsString(item)) {
		rc = get_line(field, item->valuestring, &lines, err);
	} else if (cJSON_IsBool(item)) {
		strvec_push(&lines, cJSON_IsTrue(item) ? "true" : "false");
	} else if (cJSON_IsArray(item)) {
		cJSON_ArrayForEach(e, item) {
			if (!cJSON_IsString(e)) {
				rc = xcc_fail(err, XCC_EUSAGE, "the %s are records, not words: ask "
					      "for --json", field);
				break;
			}
			if ((rc = get_line(field, e->valuestring, &lines, err)))
				break;
		}
	}
	/* null: nothing, not a line that reads as an empty value */
	if (rc == 0) {
		strvec_push(&lines, "");
		out = lines.n > 1 ? strvec_join(&lines, "\n") : xstrdup("");
	}
	strvec_free(&lines);
	return out;
}

/* set(NAME VALUE...) with each value quoted, or nothing for no value. */
static void cmake_set(struct strvec *out, const char *name, const char *const *vals, size_t n)
{
	struct strvec q = STRVEC_INIT;
	char *joined;

	for (size_t i = 0; i < n; i++)
		if (vals[i]) {
			char *one = toolchain_cmake_quote(vals[i]);

			strvec_push(&q, one);
			free(one);
		}
	if (!q.n) {
		strvec_pushf(out, "unset(%s)", name);
		strvec_free(&q);
		return;
	}
	joined = strvec_join(&q, " ");
	strvec_pushf(out, "set(%s %s)", name, joined);
	free(joined);
	strvec_free(&q);
}

static void cmake_set1(struct strvec *out, const char *name, const char *val)
{
	cmake_set(out, name, &val, 1);
}

static void cmake_status(struct strvec *out, char *text)
{
	char *q = toolchain_cmake_quote(text);

	strvec_pushf(out, "message(STATUS %s)", q);
	free(q);
	free(text);
}

static char *form_cmake(const struct answer *a)
{
	const struct sysroot_meta *m = &a->sr.meta;
	struct strvec out = STRVEC_INIT;
	char *text;

	strvec_push(&out, "# What cuda-xcc knows of the sysroot CUDA_XCC_QUERY_SYSROOT, for the "
		    "CMake toolchain file");
	strvec_push(&out, "# ('cuda-xcc toolchain query --cmake'; every value a bracket "
		    "argument).");
	cmake_set1(&out, "CUDA_XCC_QUERY_SYSROOT", a->named);
	cmake_set1(&out, "CUDA_XCC_QUERY_TARGET", m->target);
	cmake_set1(&out, "CUDA_XCC_QUERY_CUDA", m->cuda);
	cmake_set1(&out, "CUDA_XCC_QUERY_TARGET_DIR", m->target_dir);
	cmake_set1(&out, "CUDA_XCC_QUERY_TARGET_PATH", a->target_path);
	cmake_set1(&out, "CUDA_XCC_QUERY_TRIPLE", a->sr.target->triple);
	cmake_set1(&out, "CUDA_XCC_QUERY_PROCESSOR", a->sr.target->machine);
	cmake_set1(&out, "CUDA_XCC_QUERY_NVCC", a->nvcc);
	cmake_set1(&out, "CUDA_XCC_QUERY_HOST_COMPILER", m->host_compiler);
	cmake_set1(&out, "CUDA_XCC_QUERY_HOST_COMPILER_C", a->host_c);
	cmake_set(&out, "CUDA_XCC_QUERY_CAPABILITIES", (const char *const *)m->capabilities.v,
		  m->capabilities.n);
	cmake_set1(&out, "CUDA_XCC_QUERY_ARCHS", a->archs);
	cmake_set1(&out, "CUDA_XCC_QUERY_FINGERPRINT", m->fingerprint);
	cmake_set1(&out, "CUDA_XCC_QUERY_TARGET_FS", a->sr.target_fs);
	/* Another CUDA named where a project looks for one: this configure
	 * gives it the sysroot instead, and says so. */
	for (size_t i = 0; i < a->env.n; i++)
		if (a->env.v[i].reach == FOREIGN_TOOLKIT)
			cmake_status(&out, xasprintf("cuda-xcc: %s=%s names another CUDA than the "
						     "sysroot; this configure sees the sysroot's "
						     "instead", a->env.v[i].var,
						     a->env.v[i].entry));
	for (size_t i = 0; i < a->given_var.n; i++)
		cmake_status(&out, xasprintf("cuda-xcc: -D%s=%s names another CUDA than the "
					     "sysroot; this configure uses the sysroot's (%s) "
					     "instead: leave it out", a->given_var.v[i],
					     a->given_entry.v[i], a->named));
	strvec_push(&out, "");
	text = strvec_join(&out, "\n");
	strvec_free(&out);
	return text;
}

static int cmake_name_ok(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* set(NAME VALUE CACHE STRING "doc"): STRING, not PATH, which would turn
 * a '\' into '/'. */
static void cache_entry(struct strvec *out, const char *name, const char *value, const char *doc)
{
	char *q = toolchain_cmake_quote(value);

	strvec_pushf(out, "set(%s %s CACHE STRING \"%s\")", name, q, doc);
	free(q);
}

static char *form_cmake_cache(const struct toolchain_query *q, const struct answer *a,
			      struct xcc_error *err)
{
	struct strvec out = STRVEC_INIT;
	char *text;

	if (!a->archs)
		return xcc_fail(err, XCC_EUSAGE, "%s", a->archs_error), NULL;
	for (size_t i = 0; i < q->cache.n; i++) {
		const char *eq = strchr(q->cache.v[i], '=');

		if (!eq || !cmake_name_ok(q->cache.v[i], (size_t)(eq - q->cache.v[i])))
			return xcc_fail(err, XCC_EUSAGE, "--cache takes NAME=VALUE with a CMake "
					"variable's name (letters, digits and '_'), not '%s'",
					q->cache.v[i]), NULL;
	}
	strvec_push(&out, "# An initial CMake cache (cmake -C) for a cuda-xcc sysroot, written by "
		    "'cuda-xcc toolchain query --cmake-cache'.");
	/* FindCUDA's entries too: it would look for the target directory by
	 * the processor's name, aarch64-linux, on an sbsa sysroot. */
	cache_entry(&out, "CUDAToolkit_ROOT", a->named, "cuda-xcc");
	cache_entry(&out, "CUDA_TOOLKIT_ROOT_DIR", a->named, "cuda-xcc");
	cache_entry(&out, "CUDA_TOOLKIT_TARGET_DIR", a->target_path, "cuda-xcc");
	cache_entry(&out, "CMAKE_CUDA_ARCHITECTURES", a->archs, "validated by cuda-xcc");
	for (size_t i = 0; i < q->cache.n; i++) {
		const char *eq = strchr(q->cache.v[i], '=');
		char *name = xstrndup(q->cache.v[i], (size_t)(eq - q->cache.v[i]));

		cache_entry(&out, name, eq + 1, "cuda-xcc");
		free(name);
	}
	strvec_push(&out, "");
	text = strvec_join(&out, "\n");
	strvec_free(&out);
	return text;
}

char *toolchain_query(const struct gpudb *db, const struct toolchain_query *q,
		      struct xcc_error *err)
{
	struct answer a = { .gencode = STRVEC_INIT, .given_var = STRVEC_INIT,
			    .given_entry = STRVEC_INIT, .given_root = STRVEC_INIT };
	char *text = NULL;

	if (answer_open(db, q, &a, err))
		goto out;
	if (q->form == QUERY_JSON || q->form == QUERY_GET) {
		cJSON *o = answer_json(&a);

		if (q->form == QUERY_GET) {
			text = form_get(o, q->field, err);
		} else {
			char *s = cJSON_Print(o);

			text = xasprintf("%s\n", s);
			free(s);
		}
		cJSON_Delete(o);
	} else if (q->form == QUERY_CMAKE) {
		text = form_cmake(&a);
	} else {
		text = form_cmake_cache(q, &a, err);
	}
out:
	answer_free(&a);
	return text;
}
