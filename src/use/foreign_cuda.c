#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "use/foreign_cuda.h"

const char *const foreign_cuda_search_vars[] = { "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
						 "CPLUS_INCLUDE_PATH", NULL };

/* The variables that name a toolkit's root, or its nvcc. */
static const char *const root_vars[] = { "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT",
					 "CUDAToolkit_ROOT", "CUDACXX", NULL };

/* A toolkit's headers, or its nvcc beside a targets directory: an nvcc
 * alone is no toolkit (a link to one in /usr/local/bin makes /usr/local
 * none). */
static int is_toolkit_root(const char *dir)
{
	char *nvcc = xasprintf("%s/bin/nvcc", dir);
	char *hdr = xasprintf("%s/include/cuda_runtime_api.h", dir);
	char *targets = xasprintf("%s/targets", dir);
	int yes = access(hdr, R_OK) == 0 || (access(nvcc, X_OK) == 0 && file_is_dir(targets));

	free(nvcc);
	free(hdr);
	free(targets);
	return yes;
}

/* Whether the part of a path below a toolkit root is one the toolkit's own
 * files are in: /usr/local/include is no part of a Debian CUDA in /usr. */
static int in_toolkit_part(const char *rest)
{
	static const char *const parts[] = { "bin", "include", "lib", "lib64", "nvvm", "targets",
					     "lib32", NULL };

	if (!*rest)
		return 1;
	for (size_t i = 0; parts[i]; i++) {
		size_t n = strlen(parts[i]);

		if (strncmp(rest, parts[i], n) == 0 && (!rest[n] || rest[n] == '/'))
			return 1;
	}
	/* lib/x86_64-linux-gnu and the like start with "lib" */
	return 0;
}

static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (!path[n] || path[n] == '/' || n == 1);
}

char *foreign_cuda_root(const char *path, const char *sysroot)
{
	char *real = realpath(path, NULL), *own = sysroot ? realpath(sysroot, NULL) : NULL;
	char *dir, *root = NULL;

	if (!real || (own && beneath(real, own)))
		goto out;
	dir = xstrdup(real);
	for (;;) {
		char *slash = strrchr(dir, '/');
		const char *rest = real + strlen(dir) + (real[strlen(dir)] == '/');

		if (*dir && in_toolkit_part(rest) && is_toolkit_root(dir)) {
			root = xstrdup(dir);
			break;
		}
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
out:
	free(real);
	free(own);
	return root;
}

/* A ':' list's entries in another CUDA: pushed to dropped, the others
 * joined into the returned list. */
static char *filter_list(const char *value, const char *sysroot, struct strvec *dropped)
{
	struct strvec kept = STRVEC_INIT;
	char *copy = xstrdup(value), *p = copy, *out;

	for (char *next; p; p = next) {
		char *root;

		next = strchr(p, ':');
		if (next)
			*next++ = '\0';
		root = *p ? foreign_cuda_root(p, sysroot) : NULL;
		if (root)
			strvec_push(dropped, p);
		else
			strvec_push(&kept, p);
		free(root);
	}
	out = strvec_join(&kept, ":");
	strvec_free(&kept);
	free(copy);
	return out;
}

static void push_finding(struct foreign_cuda_findings *f, const char *var, const char *entry,
			 char *root, enum foreign_cuda_reach reach)
{
	XGROW(f->v, f->n + 1, f->cap);
	f->v[f->n++] = (struct foreign_cuda_finding){ var, xstrdup(entry), root, reach };
}

/* The entries of a ':' list in another CUDA, each once. */
static void find_in_list(const char *var, const char *sysroot, enum foreign_cuda_reach reach,
			 struct foreign_cuda_findings *f)
{
	const char *v = getenv(var);
	struct strvec dropped = STRVEC_INIT;
	char *kept = v ? filter_list(v, sysroot, &dropped) : NULL;

	for (size_t i = 0; i < dropped.n; i++) {
		int seen = 0;

		for (size_t k = 0; k < f->n && !seen; k++)
			seen = !strcmp(f->v[k].var, var) && !strcmp(f->v[k].entry, dropped.v[i]);
		/* PATH: an nvcc there is what a build would take. */
		if (!seen && reach == FOREIGN_PROGRAMS) {
			char *nvcc = xasprintf("%s/nvcc", dropped.v[i]);

			seen = access(nvcc, X_OK) != 0;
			free(nvcc);
		}
		if (!seen)
			push_finding(f, var, dropped.v[i], foreign_cuda_root(dropped.v[i], sysroot),
				     reach);
	}
	free(kept);
	strvec_free(&dropped);
}

void foreign_cuda_find(const char *sysroot, struct foreign_cuda_findings *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; root_vars[i]; i++) {
		const char *v = getenv(root_vars[i]);
		char *root = v && *v ? foreign_cuda_root(v, sysroot) : NULL;

		if (root)
			push_finding(out, root_vars[i], v, root, FOREIGN_TOOLKIT);
	}
	find_in_list("PATH", sysroot, FOREIGN_PROGRAMS, out);
	for (size_t i = 0; foreign_cuda_search_vars[i]; i++)
		find_in_list(foreign_cuda_search_vars[i], sysroot,
			     strcmp(foreign_cuda_search_vars[i], "LIBRARY_PATH") ? FOREIGN_COMPILES
										 : FOREIGN_LINKS,
			     out);
}

void foreign_cuda_findings_free(struct foreign_cuda_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].entry);
		free(f->v[i].root);
	}
	free(f->v);
	memset(f, 0, sizeof *f);
}

void foreign_cuda_scan(const char *sysroot, struct strvec *found)
{
	struct foreign_cuda_findings f;

	foreign_cuda_find(sysroot, &f);
	for (size_t i = 0; i < f.n; i++) {
		if (f.v[i].reach == FOREIGN_TOOLKIT)
			strvec_pushf(found, "%s=%s", f.v[i].var, f.v[i].entry);
		else
			strvec_pushf(found, "%s holds %s", f.v[i].var, f.v[i].entry);
	}
	foreign_cuda_findings_free(&f);
}

void foreign_cuda_clean_env(const char *sysroot)
{
	/* Without a sysroot there is no CUDA of ours to tell another from. */
	if (!sysroot)
		return;
	for (size_t i = 0; foreign_cuda_search_vars[i]; i++) {
		const char *name = foreign_cuda_search_vars[i], *v = getenv(name);
		struct strvec dropped = STRVEC_INIT;
		char *kept;

		if (!v || !*v)
			continue;
		kept = filter_list(v, sysroot, &dropped);
		/* Silently: a CI image's LIBRARY_PATH would otherwise warn at
		 * every compile; 'cuda-xcc doctor' names what was left out. */
		if (dropped.n && *kept)
			setenv(name, kept, 1);
		else if (dropped.n)
			unsetenv(name);
		free(kept);
		strvec_free(&dropped);
	}
}
