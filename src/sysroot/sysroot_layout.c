/* Where the members of a redist archive, a .deb or a wheel land in a
 * sysroot: the layout rules, one member at a time. The plan describes each
 * archive's destinations with the same function extraction maps members
 * with, so --dry-run shows what the real run does. */
#include <config.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "sysroot/sysroot_layout.h"

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The member's path inside a toolkit root (bin/..., include/..., lib/...),
 * whatever package format it came in; NULL to skip it. */
static char *toolkit_path(enum plan_format f, const char *m)
{
	const char *rest;

	if (f == PLAN_FMT_REDIST) {
		const char *slash = strchr(m, '/');
		size_t top = slash ? (size_t)(slash - m) : strlen(m);

		/* The top <name>-<tag>-<ver>-archive/ directory goes. */
		if (top > 8 && strncmp(m + top - 8, "-archive", 8) == 0)
			return slash && slash[1] ? xstrdup(slash + 1) : NULL;
		return xstrdup(m);
	}
	if (f == PLAN_FMT_WHEEL) {
		/* nvidia/<component>/{bin,include,lib,nvvm}/... */
		if (!starts_with(m, "nvidia/"))
			return NULL;
		rest = strchr(m + 7, '/');
		return rest && rest[1] ? xstrdup(rest + 1) : NULL;
	}
	/* Debian's and NVIDIA's .deb layouts. */
	if (starts_with(m, "usr/lib/nvidia-cuda-toolkit/")) {
		rest = m + strlen("usr/lib/nvidia-cuda-toolkit/");
		if (starts_with(rest, "libdevice"))
			return xasprintf("nvvm/%s", rest);
		/* Debian's bin/gcc and bin/g++ are scripts that run the build
		 * machine's x86_64 g++ for nvcc when it has no -ccbin (nvcc looks
		 * in its own directory first): a cross sysroot must not have them. */
		if (strcmp(rest, "bin/gcc") == 0 || strcmp(rest, "bin/g++") == 0)
			return NULL;
		/* Debian's include/<triple>/ (12.4 on): a glibc math-vector.h for
		 * the build machine's own -I, which Debian's nvcc.profile leaves
		 * commented out; it is no CUDA header. */
		if (starts_with(rest, "include/"))
			return NULL;
		return *rest ? xstrdup(rest) : NULL;
	}
	if (starts_with(m, "usr/local/cuda")) {
		rest = strchr(m + strlen("usr/local/cuda"), '/');
		if (!rest || !rest[1])
			return NULL;
		rest++;
		if (starts_with(rest, "targets/")) {
			rest = strchr(rest + strlen("targets/"), '/');
			return rest && rest[1] ? xstrdup(rest + 1) : NULL;
		}
		return xstrdup(rest);
	}
	if (starts_with(m, "usr/bin/")) {
		rest = m + strlen("usr/bin/");
		/* Debian's nvcc there is a wrapper that execs an absolute path. */
		if (!*rest || strcmp(rest, "nvcc") == 0)
			return NULL;
		return xasprintf("bin/%s", rest);
	}
	/* CMake package files (CCCL's cccl-, thrust-, cub- and
	 * libcudacxx-config.cmake): where NVIDIA's toolkit keeps them, lib/cmake
	 * of the target directory, three levels below it as in Debian's
	 * usr/share/cmake, so their ../../../include still finds the headers. */
	if (starts_with(m, "usr/share/cmake/"))
		return m[strlen("usr/share/cmake/")] ? xasprintf("lib/cmake/%s",
								 m + strlen("usr/share/cmake/"))
						     : NULL;
	/* Multiarch headers (TensorRT's and cuDNN's .debs keep theirs in
	 * usr/include/aarch64-linux-gnu/, where the target's compiler looks):
	 * beside the others, where -I finds them in the sysroot. */
	if (strcmp(m, "usr/include/aarch64-linux-gnu") == 0)
		return NULL;
	/* VPI's .debs install under their own prefix, opt/nvidia/vpi<N>/
	 * (include/, lib/aarch64-linux-gnu/ with priv/ and cmake/): as any
	 * library's, where -I, -L and find_package look in the sysroot. */
	if (starts_with(m, "opt/nvidia/vpi") && (rest = strchr(m + strlen("opt/nvidia/"), '/'))) {
		static const char *const dirs[][2] = { { "include/", "include" },
						       { "lib/aarch64-linux-gnu/", "lib" },
						       { "lib64/", "lib" } };

		for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
			if (starts_with(rest + 1, dirs[i][0]) && rest[1 + strlen(dirs[i][0])])
				return xasprintf("%s/%s", dirs[i][1], rest + 1 + strlen(dirs[i][0]));
		return NULL;
	}
	/* The Jetson Multimedia API's headers (nvidia-l4t-jetson-multimedia-api),
	 * which projects name as -I/usr/src/jetson_multimedia_api/include. */
	if (starts_with(m, "usr/src/jetson_multimedia_api/include/"))
		return m[strlen("usr/src/jetson_multimedia_api/include/")] ?
			xasprintf("include/%s", m + strlen("usr/src/jetson_multimedia_api/include/")) :
			NULL;
	if (starts_with(m, "usr/include/aarch64-linux-gnu/"))
		return m[strlen("usr/include/aarch64-linux-gnu/")] ?
			xasprintf("include/%s", m + strlen("usr/include/aarch64-linux-gnu/")) : NULL;
	if (starts_with(m, "usr/include/"))
		return m[strlen("usr/include/")] ? xasprintf("include/%s", m + strlen("usr/include/"))
						 : NULL;
	/* Debian's libnvvm4 (amd64): the build machine's libnvvm, which nvlink
	 * loads for -dlto's device link from nvvm/lib64 beside its bin/, as in
	 * NVIDIA's toolkit. */
	if (starts_with(m, "usr/lib/x86_64-linux-gnu/libnvvm.so"))
		return xasprintf("nvvm/lib64/%s", m + strlen("usr/lib/x86_64-linux-gnu/"));
	if (starts_with(m, "usr/lib/")) {
		const char *triple = m + strlen("usr/lib/");
		const char *slash = strchr(triple, '/');

		if (slash && slash[1] && strstr(triple, "-linux-gnu") &&
		    strstr(triple, "-linux-gnu") < slash)
			return xasprintf("lib/%s", slash + 1);
	}
	return NULL;
}

/* Where the top-level directory top (of a toolkit root) goes for archive a,
 * or NULL when a takes nothing from it. */
static char *top_destination(const struct plan *p, const struct plan_archive *a,
			     const char *top, size_t len)
{
#define TOP_IS(s) (len == strlen(s) && strncmp(top, s, len) == 0)
	if (TOP_IS("bin") || TOP_IS("nvvm")) {
		if (a->parts & PART_TOOLS)
			return xstrndup(top, len);
		if (a->parts & PART_LIBS)
			return xasprintf("targets/%s/%.*s", p->target_dir, (int)len, top);
		return NULL;
	}
	if (TOP_IS("include"))
		return a->parts & PART_HEADERS ? xasprintf("targets/%s/include", p->target_dir) :
			NULL;
	if (TOP_IS("lib") || TOP_IS("lib64"))
		return a->parts & PART_LIBS ? xasprintf("targets/%s/lib", p->target_dir) : NULL;
	/* compat/, compat_orin/, res/, share/: beside include and lib. */
	return a->parts & PART_LIBS ? xasprintf("targets/%s/%.*s", p->target_dir, (int)len, top) :
		NULL;
#undef TOP_IS
}

/* Where archive a's license texts go, or NULL. */
static char *license_destination(const struct plan_archive *a)
{
	if (!(a->parts & PART_LICENSE))
		return NULL;
	return xasprintf("licenses/%s%s", a->component, a->side == PLAN_HOST ? "-host" : "");
}

static int is_toolkit_dir(const char *path)
{
	static const char *const dirs[] = { "bin", "nvvm", "include", "lib", "lib64" };

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (strcmp(path, dirs[i]) == 0)
			return 1;
	return 0;
}

/* The name a .deb's license text keeps in licenses/<package>/, or NULL:
 * usr/share/doc/<package>/copyright (for CUDA's packages NVIDIA's EULA, as
 * Debian ships it), and VPI's opt/nvidia/vpi<N>/doc/ EULA and licenses of
 * the code it holds (VPI_EULA.txt, LICENSE.OpenCV...). */
static const char *deb_license_name(const char *member)
{
	const char *pkg = "usr/share/doc/", *slash, *base = strrchr(member, '/');

	if (starts_with(member, pkg)) {
		slash = strchr(member + strlen(pkg), '/');
		return slash && slash > member + strlen(pkg) && strcmp(slash, "/copyright") == 0 ?
			"copyright" : NULL;
	}
	if (!starts_with(member, "opt/nvidia/vpi") || !base ||
	    !(slash = strchr(member + strlen("opt/nvidia/"), '/')) ||
	    !starts_with(slash, "/doc/") || strchr(slash + strlen("/doc/"), '/'))
		return NULL;
	return strcasestr(base, "license") || strcasestr(base, "eula") ? base + 1 : NULL;
}

/* Whether lib_path (a member's path under lib/) is taken under the plan's
 * library filter. The layout owns this answer: the plan only records the
 * patterns, and the layout is the one that places files. */
int sysroot_layout_keeps_library(const struct plan *p, const char *lib_path)
{
	if (!p->filter_libs)
		return 1;
	for (size_t i = 0; i < p->lib_patterns.n; i++)
		if (fnmatch(p->lib_patterns.v[i], lib_path, FNM_PATHNAME) == 0)
			return 1;
	return 0;
}

char *sysroot_member_destination(const struct plan *p, const struct plan_archive *a,
				 const char *member)
{
	char *path, *dir = NULL, *out = NULL;
	const char *slash, *rest;
	size_t top_len;

	/* Kept as a redist archive's LICENSE is, so that whatever packages
	 * the libraries (a Yocto or Buildroot recipe) finds their terms in
	 * licenses/<component>/ whatever the sysroot was made from. */
	if (a->format == PLAN_FMT_DEB && deb_license_name(member)) {
		if ((dir = license_destination(a)))
			out = xasprintf("%s/%s", dir, deb_license_name(member));
		free(dir);
		return out;
	}
	if (!(path = toolkit_path(a->format, member)))
		return NULL;
	slash = strchr(path, '/');
	top_len = slash ? (size_t)(slash - path) : strlen(path);
	rest = slash ? slash + 1 : "";
	if (strcmp(path, "bin/nvcc.profile") == 0) {
		out = NULL; /* ours is written afterwards */
	} else if (!slash && !is_toolkit_dir(path)) {
		/* A top-level file: only the license texts are kept (wheels also
		 * have __init__.py there). */
		if ((strcasestr(path, "license") || strcasestr(path, "eula") ||
		     strcasestr(path, "notice")) && (dir = license_destination(a)))
			out = xasprintf("%s/%s", dir, path);
	} else if ((starts_with(path, "lib/cmake/") || starts_with(path, "lib64/cmake/")) &&
		   a->side != PLAN_HOST && (a->parts & (PART_HEADERS | PART_LIBS))) {
		/* A header-only package's (CCCL's) CMake files come with its
		 * headers, whatever the library filter takes. */
		out = xasprintf("targets/%s/lib/cmake/%s", p->target_dir, strstr(path, "cmake/") + 6);
	} else if ((dir = top_destination(p, a, path, top_len))) {
		/* A .deb or wheel may carry many components (Debian's
		 * nvidia-cuda-dev: all the math libraries, 2 GB); a redist
		 * archive is one. Subdirectories come with the files kept. */
		int is_lib = starts_with(path, "lib/") || starts_with(path, "lib64/") ||
			     strcmp(path, "lib") == 0 || strcmp(path, "lib64") == 0;

		if (!is_lib || a->format == PLAN_FMT_REDIST || !p->filter_libs ||
		    (*rest && sysroot_layout_keeps_library(p, rest)))
			out = *rest ? xasprintf("%s/%s", dir, rest) : xstrdup(dir);
	}
	free(dir);
	free(path);
	return out;
}

char *sysroot_layout_summary(const struct plan *p, const struct plan_archive *a)
{
	static const char *const tops[] = { "bin", "nvvm", "include", "lib" };
	struct strvec d = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
		/* bin/ and nvvm/ of a target archive go beside lib/: not worth a
		 * line of their own. */
		if (i < 2 && !(a->parts & PART_TOOLS))
			continue;
		s = top_destination(p, a, tops[i], strlen(tops[i]));
		if (s)
			strvec_push(&d, s);
		free(s);
	}
	/* NVIDIA's compat libraries (cuda_compat: compat/, cuda_compat_orin:
	 * compat_orin/) are all such an archive holds. */
	s = strncmp(a->component, "cuda_compat", 11) == 0 ?
		top_destination(p, a, a->component + 5, strlen(a->component + 5)) : NULL;
	if (s)
		strvec_push(&d, s);
	free(s);
	if ((s = license_destination(a)))
		strvec_push(&d, s);
	free(s);
	s = strvec_join(&d, ", ");
	strvec_free(&d);
	return s;
}
