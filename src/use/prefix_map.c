#include <config.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "use/prefix_map.h"

/* nvcc options whose value is the next word, as far as finding the source
 * files among the arguments needs (a word that is such a value is no input). */
static const char *const takes_value[] = {
	"-o", "--output-file", "-x", "--x", "-I", "--include-path", "-L", "--library-path",
	"-l", "--library", "-D", "--define-macro", "-U", "--undefine-macro", "-include",
	"--pre-include", "-isystem", "--system-include", "-odir", "--output-directory",
	"-MF", "--dependency-output", "-MT", "-MQ", "-Xcompiler", "--compiler-options",
	"-Xlinker", "--linker-options", "-Xptxas", "--ptxas-options", "-Xnvlink",
	"--nvlink-options", "-Xfatbin", "--fatbin-options", "-Xarchive", "--archive-options",
	"-Xcudafe", "-std", "--std", "-ccbin", "--compiler-bindir", "-optf", "--options-file",
	"-keep-dir", "--keep-dir", "-arch", "--gpu-architecture", "-code", "--gpu-code",
	"-gencode", "--generate-code", "-rdc", "--relocatable-device-code", "-t", "--threads",
	"-Werror", "-maxrregcount", "--maxrregcount", "-cudart", "--cudart", NULL,
};
/* Object compiles, where nvcc writes its intermediate files. */
static const char *const compiles[] = {
	"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w", NULL,
};
/* Options that place or keep the intermediate files themselves. */
static const char *const own_temps[] = {
	"-keep", "--keep", "-keep-dir", "--keep-dir", "-objtemp", "--objdir-as-tempdir",
	"-save-temps", "--save-temps", NULL,
};
static const char *const xcompiler[] = { "-Xcompiler", "--compiler-options", NULL };
static const char *const map_options[] = {
	"-ffile-prefix-map=", "-fdebug-prefix-map=", "-fmacro-prefix-map=", NULL,
};

static int among(const char *a, const char *const names[])
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(a, names[i]) == 0)
			return 1;
	return 0;
}

/* The value of "-name VALUE" or "-name=VALUE" for one of names, or NULL. */
static const char *option_value(const struct strvec *args, size_t *i, const char *const names[])
{
	const char *a = args->v[*i];

	for (size_t k = 0; names[k]; k++) {
		size_t n = strlen(names[k]);

		if (strncmp(a, names[k], n) == 0 && a[n] == '=')
			return a + n + 1;
		if (strcmp(a, names[k]) == 0 && *i + 1 < args->n)
			return args->v[++*i];
	}
	return NULL;
}

/* What the user's arguments say: the prefix maps given to the host
 * compiler (OLD=NEW, in order), the CUDA sources, and the kind of call. */
struct map_scan {
	struct strvec maps;
	struct strvec sources;
	int compiles, own_temps;
};

static void scan_xcompiler(const char *value, struct map_scan *s)
{
	char *copy = xstrdup(value);

	/* nvcc splits -Xcompiler's value at commas. */
	for (char *p = strtok(copy, ","); p; p = strtok(NULL, ","))
		for (size_t k = 0; map_options[k]; k++)
			if (strncmp(p, map_options[k], strlen(map_options[k])) == 0 &&
			    strchr(p + strlen(map_options[k]), '='))
				strvec_push(&s->maps, p + strlen(map_options[k]));
	free(copy);
}

static void scan_args(const struct strvec *args, struct map_scan *s)
{
	for (size_t i = 0; i < args->n; i++) {
		const char *a = args->v[i], *value, *dot;

		if ((value = option_value(args, &i, xcompiler))) {
			scan_xcompiler(value, s);
			continue;
		}
		s->compiles |= among(a, compiles);
		s->own_temps |= among(a, own_temps) || strncmp(a, "-keep-dir=", 10) == 0 ||
				strncmp(a, "--keep-dir=", 11) == 0;
		if (among(a, takes_value)) {
			i++;
			continue;
		}
		dot = strrchr(a, '.');
		if (a[0] != '-' && dot && strcmp(dot, ".cu") == 0)
			strvec_push(&s->sources, a);
	}
}

/* Whether a path can stand in a -Xcompiler prefix map, or a -Xcudafe value:
 * nvcc splits those at commas, gcc the map at its first '=', and nvcc runs
 * the tools through command lines it quotes itself. */
static int carryable(const char *path)
{
	return path[0] && !strpbrk(path, ",= \t\n\"'\\$`");
}

static int mappable(const char *path)
{
	return path[0] == '/' && path[1] && carryable(path);
}

/* path as an absolute one, lexically (as nvcc spells a source for cudafe++). */
static char *lexically_absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

static void push_sysroot_maps(const char *sysroot, struct strvec *maps, struct strvec *argv,
			      struct strvec *warnings)
{
	char *spelt = lexically_absolute(sysroot), *real = file_absolute(sysroot);
	const char *both[] = { spelt, real };

	for (size_t i = 0; i < 2; i++) {
		if (i == 1 && strcmp(real, spelt) == 0)
			break;
		if (!mappable(both[i])) {
			strvec_pushf(warnings, "the sysroot's path %s holds a comma, an '=', a space or "
				     "a quote, which nvcc's -Xcompiler cannot carry in a prefix map: "
				     "objects name it in __FILE__ and debug information, so compiler "
				     "caches miss between runners; move the sysroot to a path without "
				     "one (a link to it will do)", both[i]);
			continue;
		}
		strvec_pushf(argv, "-Xcompiler=-ffile-prefix-map=%s=%s", both[i], PREFIX_MAP_SYSROOT);
		strvec_pushf(maps, "%s=%s", both[i], PREFIX_MAP_SYSROOT);
	}
	free(spelt);
	free(real);
}

/* path through the last map that matches its start (gcc's rule: a later
 * option wins), or NULL where none does. */
static char *apply_maps(const struct strvec *maps, const char *path)
{
	for (size_t i = maps->n; i-- > 0;) {
		const char *map = maps->v[i], *eq = strchr(map, '=');
		size_t n = (size_t)(eq - map);

		if (n && strncmp(path, map, n) == 0 && (path[n] == '/' || !path[n] ||
							map[n - 1] == '/'))
			return xasprintf("%s%s", eq + 1, path + n);
	}
	return NULL;
}

void prefix_map_args(const char *sysroot, const struct strvec *nvcc_args, struct strvec *argv,
		     struct strvec *warnings)
{
	struct map_scan s = { STRVEC_INIT, STRVEC_INIT, 0, 0 };
	char *source = NULL, *mapped = NULL;

	scan_args(nvcc_args, &s);
	if (sysroot)
		push_sysroot_maps(sysroot, &s.maps, argv, warnings);
	/* One source to one object: with several, nvcc names the intermediate
	 * files per source itself, and each needs its own module id. */
	if (!s.compiles || s.sources.n != 1)
		goto out;
	if (!s.own_temps)
		strvec_push(argv, "-objtemp");
	source = lexically_absolute(s.sources.v[0]);
	mapped = apply_maps(&s.maps, source);
	if (mapped && carryable(mapped))
		strvec_pushf(argv, "-Xcudafe=--orig_src_path_name=%s", mapped);
out:
	free(source);
	free(mapped);
	strvec_free(&s.maps);
	strvec_free(&s.sources);
}

void prefix_map_gcc_args(const char *sysroot, struct strvec *argv)
{
	char *spelt = lexically_absolute(sysroot), *real = file_absolute(sysroot);

	if (!strchr(spelt, '='))
		strvec_pushf(argv, "-ffile-prefix-map=%s=%s", spelt, PREFIX_MAP_SYSROOT);
	if (strcmp(real, spelt) != 0 && !strchr(real, '='))
		strvec_pushf(argv, "-ffile-prefix-map=%s=%s", real, PREFIX_MAP_SYSROOT);
	free(spelt);
	free(real);
}
