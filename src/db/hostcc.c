#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/proc.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "db/hostcc.h"

char *hostcc_debian_package(const struct target_profile *t, int major)
{
	char *triple = xstrdup(t->triple), *pkg;

	/* Debian spells the triple with dashes in package names. */
	for (char *p = triple; *p; p++)
		if (*p == '_')
			*p = '-';
	if (strcmp(t->machine, "x86_64") == 0)
		pkg = xasprintf("g++-%d", major);
	else
		pkg = xasprintf("g++-%d-%s", major, triple);
	free(triple);
	return pkg;
}

/* The gcc major of a compiler: from the -N suffix of its name, else by
 * asking it. */
static int compiler_major(const char *name, const char *path)
{
	const char *dash = strrchr(name, '-');
	char *argv[] = { (char *)path, "-dumpversion", NULL }, *out = NULL;
	int major = -1;

	if (dash && isdigit((unsigned char)dash[1])) {
		char *end;
		long n = strtol(dash + 1, &end, 10);

		if (!*end)
			return (int)n;
	}
	if (proc_capture(argv, &out, NULL) == 0 && out)
		major = atoi(out);
	free(out);
	return major;
}

/* The way out is the same whether cuda-xcc chose the compiler or the user
 * gave it with -ccbin. */
static void fail_unsupported(struct xcc_error *err, const struct target_profile *t, int max,
			     const char *what)
{
	char *pkg = hostcc_debian_package(t, max);

	xcc_fail(err, XCC_EUSAGE,
		 "%s.\nInstall one: apt-get install %s\n"
		 "or pass -allow-unsupported-compiler to let nvcc try a newer one at your own "
		 "risk (newer libstdc++ headers are known to break older nvcc).",
		 what, pkg);
	free(pkg);
}

int hostcc_find(const struct gpudb *db, const struct target_profile *t, struct cuda_version v,
		int allow_unsupported, struct host_compiler *out, struct xcc_error *err)
{
	const struct host_compiler_limit *lim = gpudb_host_limit(db, v);
	struct strvec names = STRVEC_INIT, paths = STRVEC_INIT, seen = STRVEC_INIT;
	char *prefix = xasprintf("%s-g++", t->triple);
	int best = -1, best_major = -1, max = lim ? lim->gcc_max : 0;
	char b[16];

	memset(out, 0, sizeof *out);
	proc_list_prefixed(prefix, &names, &paths);
	for (size_t i = 0; i < names.n; i++) {
		const char *suffix = names.v[i] + strlen(prefix);
		int major;

		/* Only "<triple>-g++" and "<triple>-g++-N". */
		if (*suffix && (suffix[0] != '-' || !isdigit((unsigned char)suffix[1])))
			continue;
		major = compiler_major(names.v[i], paths.v[i]);
		if (major < 0)
			continue;
		strvec_pushf(&seen, "%s (gcc %d)", names.v[i], major);
		if (!allow_unsupported && (major > max || major < db->gcc_min))
			continue;
		/* Prefer the versioned name on a tie: it says what it is. */
		if (major > best_major || (major == best_major && *suffix)) {
			best = (int)i;
			best_major = major;
		}
	}
	if (best >= 0) {
		out->path = xstrdup(paths.v[best]);
		out->name = xstrdup(names.v[best]);
		out->major = best_major;
	} else if (!lim) {
		xcc_fail(err, XCC_EUSAGE,
			 "cuda-xcc does not know which host compilers CUDA %s accepts; pass -ccbin "
			 "with the %s g++ to use", cuda_version_str(v, b, sizeof b), t->triple);
	} else {
		char *found = seen.n ? strvec_join(&seen, ", ") : xstrdup("none");
		char *what = xasprintf("no %s C++ compiler that CUDA %d.%d accepts (gcc %d to %d) "
				       "is installed (found: %s)", t->triple, v.major, v.minor,
				       db->gcc_min, max, found);

		fail_unsupported(err, t, max, what);
		free(what);
		free(found);
	}
	strvec_free(&names);
	strvec_free(&paths);
	strvec_free(&seen);
	free(prefix);
	return best >= 0 ? 0 : -1;
}

int hostcc_check_machine(const char *ccbin, const struct target_profile *t,
			 struct xcc_error *err)
{
	char *argv[] = { (char *)ccbin, "-dumpmachine", NULL }, *out = NULL, *path = NULL;
	struct stat st;
	int rc;

	/* nvcc also takes a directory holding the compiler. */
	if (stat(ccbin, &st) == 0 && S_ISDIR(st.st_mode)) {
		path = xasprintf("%s/g++", ccbin);
		argv[0] = path;
	}
	rc = proc_capture(argv, &out, err);
	if (rc < 0) {
		free(path);
		return xcc_error_prefix(err, "-ccbin %s", ccbin);
	}
	if (rc != 0 || !out || strncmp(out, t->machine, strlen(t->machine)) != 0) {
		size_t n = out ? strcspn(out, "\n") : 0;

		xcc_fail(err, XCC_EUSAGE,
			 "-ccbin %s builds for '%.*s', not for --target %s (%s).\n"
			 "Pass a %s compiler, e.g. %s-g++, or leave -ccbin out and let cuda-xcc choose.",
			 ccbin, (int)n, out ? out : "?", t->name, t->triple, t->machine, t->triple);
		free(out);
		free(path);
		return -1;
	}
	free(out);
	free(path);
	return 0;
}

int hostcc_check_version(const struct gpudb *db, const struct target_profile *t,
			 struct cuda_version v, const char *ccbin, int allow_unsupported,
			 struct xcc_error *err)
{
	const struct host_compiler_limit *lim = gpudb_host_limit(db, v);
	const char *base = strrchr(ccbin, '/') ? strrchr(ccbin, '/') + 1 : ccbin;
	char *name = NULL, *path = NULL, *what;
	struct stat st;
	int major;

	if (allow_unsupported || !lim)
		return 0;
	if (stat(ccbin, &st) == 0 && S_ISDIR(st.st_mode)) {
		path = xasprintf("%s/g++", ccbin);
		name = xstrdup("g++");
	} else {
		path = xstrdup(ccbin);
		name = xstrdup(base);
	}
	major = compiler_major(name, path);
	/* clang, or a compiler that does not answer -dumpversion: nvcc checks
	 * those itself; cuda-xcc has no limit to compare with. */
	if (major < 0 || strstr(name, "clang")) {
		free(name);
		free(path);
		return 0;
	}
	free(name);
	free(path);
	/* An unverified limit refuses nothing: nvcc's own check decides. */
	if ((major <= lim->gcc_max || lim->gcc_unverified) && major >= db->gcc_min)
		return 0;
	what = xasprintf("-ccbin %s is gcc %d, but CUDA %d.%d accepts gcc %d to %d", ccbin,
			 major, v.major, v.minor, db->gcc_min, lim->gcc_max);
	fail_unsupported(err, t, lim->gcc_max, what);
	free(what);
	return -1;
}

void host_compiler_free(struct host_compiler *hc)
{
	free(hc->path);
	free(hc->name);
	memset(hc, 0, sizeof *hc);
}
