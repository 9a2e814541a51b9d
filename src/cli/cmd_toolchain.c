#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "sysroot/sysroot_open.h"
#include "use/toolchain.h"
#include "use/toolchain_query.h"
#include "cli/cmd.h"

static const char toolchain_usage[] =
	"Usage: cuda-xcc toolchain cmake|meson [--sysroot DIR] [-arch LIST]...\n"
	"                          [--target-fs ROOTFS] [--output FILE]\n"
	"       cuda-xcc toolchain flags [--sysroot DIR] [--target-fs ROOTFS] [--nvcc]\n"
	"       cuda-xcc toolchain query [--sysroot DIR] [-arch LIST]... [--target-fs ROOTFS]\n"
	"                          [--json | --get FIELD | --cmake | --cmake-cache]\n"
	"                          [--cuda-xcc PATH] [--check NAME=PATH]...\n"
	"                          [--cache NAME=VALUE]... [--output FILE]\n"
	"       cuda-xcc toolchain quote --sh|--meson [WORD]...\n"
	"       cuda-xcc toolchain --data-dir\n"
	"\n"
	"Print a build system's file bound to a sysroot:\n"
	"  cmake   a CMake toolchain file that names the sysroot and includes the\n"
	"          cuda-xcc-toolchain.cmake shipped with cuda-xcc\n"
	"  meson   a Meson cross file: C and C++ through the cross g++ under 'cuda-xcc\n"
	"          check-link', CUDA through the cuda-xcc driver, test programs through\n"
	"          'cuda-xcc run'\n"
	"  flags   the cross g++'s options that compile and link against the device's\n"
	"          root filesystem as the driver does (--sysroot, -B, -rpath-link, the\n"
	"          overlay of its absolute links), one per line; --nvcc: as nvcc's\n"
	"          -Xcompiler/-Xlinker options\n"
	"  query   what the shipped wrappers (CMake, Yocto, Buildroot) ask of the\n"
	"          sysroot: its directories, compilers, GPUs and fingerprint, another\n"
	"          CUDA in the environment, the paths CMake cannot carry\n"
	"  quote   the WORDs (every argument after --sh or --meson, as it is) as one\n"
	"          line of sh words, or as one Meson array of strings, quoted as the\n"
	"          files cuda-xcc writes quote them: for the files a wrapper writes\n"
	"          itself; --meson refuses (exit 2) a word Meson cannot read back\n"
	"\n"
	"  --sysroot DIR     the sysroot (default: $CUDA_XCC_SYSROOT)\n"
	"  -arch LIST        GPU capabilities (default: the sysroot's)\n"
	"  --target-fs DIR   the device's root filesystem (default: the sysroot's)\n"
	"  --output FILE     write FILE instead of standard output: a file is replaced\n"
	"                    atomically, a symlink written through, a FIFO or device\n"
	"                    written into\n"
	"  --nvcc            (flags) nvcc's spelling of the options\n"
	"  --data-dir        print where the shipped CMake toolchain file is (its\n"
	"                    cmake/ directory: $(datadir)/cuda-xcc when installed,\n"
	"                    the source tree's wrappers/ from a build tree) and exit\n"
	"\n"
	"query's answer (one of):\n"
	"  --json            every field as JSON (the default)\n"
	"  --get FIELD       one field, plain: a list one value per line, nothing for\n"
	"                    none; a value with a line break is refused (use --json)\n"
	"  --cmake           set(CUDA_XCC_QUERY_<FIELD> ...) lines for the CMake\n"
	"                    toolchain file, each value a bracket argument\n"
	"  --cmake-cache     an initial CMake cache (cmake -C): the toolkit's root and\n"
	"                    target directory, the validated CMAKE_CUDA_ARCHITECTURES,\n"
	"                    and each --cache NAME=VALUE\n"
	"The CMake forms refuse (exit 2) what CMake cannot carry: a sysroot, device\n"
	"root or --cuda-xcc path with a ';', '[', ']' or line break, and more in a\n"
	"device root; another CUDA's headers on CPATH, C_INCLUDE_PATH or\n"
	"CPLUS_INCLUDE_PATH. --json says them in sysroot_cmake_unsafe and\n"
	"cmake_refusal.\n"
	"  --cuda-xcc PATH   the cuda-xcc the caller runs, checked as the sysroot is\n"
	"  --check NAME=PATH also say whether PATH (a -DNAME of the user's) is in\n"
	"                    another CUDA, as the environment's variables are\n"
	"  --cache NAME=VALUE  (--cmake-cache) one more STRING entry\n";

/* The absolute path of cuda-xcc, so that the files it writes call the
 * same cuda-xcc whatever PATH the build system runs with. */
static char *self_path(void)
{
	char buf[PATH_MAX];
	const char *launcher = getenv("CUDA_XCC_SELF");
	ssize_t n;

	/* cuda-xcc-full, run by cuda-xcc for this command: name cuda-xcc. */
	if (launcher && launcher[0] == '/' && access(launcher, X_OK) == 0)
		return xstrdup(launcher);
	n = readlink("/proc/self/exe", buf, sizeof buf - 1);

	if (n <= 0)
		return xstrdup("cuda-xcc");
	buf[n] = '\0';
	return xstrdup(buf);
}

/* cuda-xcc-nvcc in self's directory, or NULL where it is not installed
 * there (the static build ships cuda-xcc alone). */
static char *nvcc_beside(const char *self)
{
	const char *slash = strrchr(self, '/');
	char *p;

	if (!slash)
		return NULL;
	p = xasprintf("%.*s/cuda-xcc-nvcc", (int)(slash - self), self);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* The build system the one operand names, or NULL after a usage error
 * (none named, an unknown one, no sysroot). */
static const char *toolchain_kind(int argc, char **argv, const char *sysroot)
{
	const char *kind = optind == argc - 1 ? argv[optind] : NULL;

	if (!kind) {
		cmd_usage_error("toolchain", "name one build system: cmake, meson or flags (or "
				"query)");
		return NULL;
	}
	if (strcmp(kind, "cmake") && strcmp(kind, "meson") && strcmp(kind, "flags") &&
	    strcmp(kind, "query")) {
		cmd_usage_error("toolchain", "unknown build system '%s': use cmake, meson, flags, "
				"query or quote", kind);
		return NULL;
	}
	if (!sysroot || !*sysroot) {
		cmd_usage_error("toolchain", "no sysroot: give --sysroot DIR (a sysroot made by "
				"'cuda-xcc sysroot create') or set CUDA_XCC_SYSROOT");
		return NULL;
	}
	return kind;
}

/* What the command line asked, read in one place. */
struct toolchain_args {
	struct toolchain_request req;
	struct toolchain_query query;
	const char *sysroot, *output;
	int nvcc_form, query_forms, query_only; /* query_only: an option query alone takes */
};

/* query's answer form: one of --json, --get, --cmake, --cmake-cache. */
static void set_form(struct toolchain_args *a, enum toolchain_query_form form)
{
	a->query.form = form;
	a->query_forms++;
}

/* 0 to go on, 1 when --help or --data-dir answered, or the usage status. */
static int read_args(int argc, char **argv, struct toolchain_args *a, int *rc)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "arch", required_argument, NULL, 'a' },
		{ "target-fs", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "data-dir", no_argument, NULL, 'D' },
		{ "nvcc", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "get", required_argument, NULL, 'G' },
		{ "cmake", no_argument, NULL, 'C' },
		{ "cmake-cache", no_argument, NULL, 'K' },
		{ "cuda-xcc", required_argument, NULL, 'x' },
		{ "check", required_argument, NULL, 'c' },
		{ "cache", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "", opts, "toolchain")) != -1) {
		switch (c) {
		case 's': a->sysroot = optarg; break;
		case 'a': strvec_split(&a->req.arch, optarg); break;
		case 'f': a->req.target_fs = optarg; break;
		case 'o': a->output = optarg; break;
		case 'n': a->nvcc_form = 1; break;
		case 'J': set_form(a, QUERY_JSON); break;
		case 'G': set_form(a, QUERY_GET); a->query.field = optarg; break;
		case 'C': set_form(a, QUERY_CMAKE); break;
		case 'K': set_form(a, QUERY_CMAKE_CACHE); break;
		case 'x': a->query.cuda_xcc = optarg; a->query_only = 1; break;
		case 'c': strvec_push(&a->query.check, optarg); a->query_only = 1; break;
		case 'k': strvec_push(&a->query.cache, optarg); a->query_only = 1; break;
		case 'D': {
			const char *dir = toolchain_data_dir();

			if (!dir) {
				fputs("cuda-xcc: the shipped wrappers are not installed and the "
				      "source tree is gone; reinstall cuda-xcc ('make install')\n",
				      stderr);
				*rc = XCC_EFAIL;
				return 1;
			}
			puts(dir);
			return 1;
		}
		case 'h': fputs(toolchain_usage, stdout); return 1;
		default:
			*rc = XCC_EUSAGE;
			return 1;
		}
	}
	return 0;
}

/* The answer of 'toolchain query', or NULL with err set. */
static char *query_text(const struct gpudb *db, struct toolchain_args *a, struct xcc_error *err)
{
	if (a->query.cache.n && a->query.form != QUERY_CMAKE_CACHE)
		return xcc_fail(err, XCC_EUSAGE, "--cache NAME=VALUE is an entry of "
				"--cmake-cache's: give --cmake-cache too"), NULL;
	a->query.sysroot = a->sysroot;
	/* Empty: none named, as a toolchain file passes an unset variable. */
	a->query.target_fs = a->req.target_fs && *a->req.target_fs ? a->req.target_fs : NULL;
	a->query.arch = a->req.arch;
	return toolchain_query(db, &a->query, err);
}

/* The file of a build system, bound to the opened sysroot; NULL with err set. */
static char *file_text(const char *kind, struct sysroot *sr, struct toolchain_args *a,
		       struct xcc_error *err)
{
	struct toolchain_request *req = &a->req;
	char *text = NULL, *generic;
	const char *dir;

	if (strcmp(kind, "flags") == 0) {
		struct strvec flags = STRVEC_INIT;

		if (!sr->target_fs) {
			xcc_fail(err, XCC_EUSAGE, "no device root filesystem: give --target-fs "
				 "ROOTFS (the sysroot %s records none)", sr->meta.dir);
		} else if (!toolchain_target_fs_flags(sr->target_fs, sr->target->triple,
						      a->nvcc_form ? FLAGS_NVCC : FLAGS_GCC, &flags,
						      err)) {
			strvec_push(&flags, "");
			text = strvec_join(&flags, "\n");
		}
		strvec_free(&flags);
		return text;
	}
	if (strcmp(kind, "meson") == 0)
		return toolchain_meson(sr->target, &sr->meta, req, err);
	if (!(dir = toolchain_data_dir()))
		return xcc_fail(err, XCC_EFAIL, "the shipped cuda-xcc-toolchain.cmake is not "
				"installed and the source tree is gone; reinstall cuda-xcc ('make "
				"install')"), NULL;
	generic = xasprintf("%s/cmake/cuda-xcc-toolchain.cmake", dir);
	text = toolchain_cmake(&sr->meta, req, generic, err);
	free(generic);
	return text;
}

/* toolchain quote --sh|--meson WORD...: the one quoting of each language for the
 * files the wrappers write themselves (the Yocto class's nvcc script and Meson
 * cross file), as git rev-parse --sq-quote is git's for its scripts. Every
 * argument after the form is a word, options included: nvcc's start with '-'. */
static int quote(int argc, char **argv)
{
	struct strvec words = STRVEC_INIT;
	const char *form = argc > 1 ? argv[1] : "", *bad = NULL;
	char *text = NULL;
	int rc = 0;

	if (strcmp(form, "--help") == 0 || strcmp(form, "-h") == 0) {
		fputs(toolchain_usage, stdout);
		return 0;
	}
	if (strcmp(form, "--sh") && strcmp(form, "--meson"))
		return cmd_usage_error("toolchain quote", "say which quoting first: --sh or "
				       "--meson, then the words");
	for (int i = 2; i < argc; i++)
		strvec_push(&words, argv[i]);
	if (strcmp(form, "--sh") == 0)
		text = strvec_join_quoted(&words);
	else if (!(text = toolchain_meson_array(&words, &bad)))
		rc = cmd_usage_error("toolchain quote", "'%s' cannot be written as a Meson string "
				     "(a line break, three quotes in a row, a quote at its end or "
				     "before a backslash, or bytes that are not UTF-8): give the "
				     "value another way, or rename the path", bad);
	if (text)
		printf("%s\n", text);
	free(text);
	strvec_free(&words);
	return rc;
}

int cmd_toolchain(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct xcc_error err = { 0 };
	struct toolchain_args a = { .req = { .arch = STRVEC_INIT },
				    .query = { .arch = STRVEC_INIT, .check = STRVEC_INIT,
					       .cache = STRVEC_INIT, .form = QUERY_JSON } };
	struct sysroot_want want = { 0 };
	struct sysroot sr = { 0 };
	const struct gpudb *db;
	const char *kind;
	char *text = NULL, *self = NULL, *nvcc = NULL;
	int rc = 0;

	if (argc > 1 && strcmp(argv[1], "quote") == 0)
		return quote(argc - 1, argv + 1);
	a.sysroot = getenv("CUDA_XCC_SYSROOT");
	if (read_args(argc, argv, &a, &rc))
		goto out;
	if (!(kind = toolchain_kind(argc, argv, a.sysroot))) {
		rc = XCC_EUSAGE;
		goto out;
	}
	if (strcmp(kind, "query") && (a.query_forms || a.query_only)) {
		rc = cmd_usage_error("toolchain", "--json, --get, --cmake, --cmake-cache, "
				     "--cuda-xcc, --check and --cache are query's options");
		goto out;
	}
	if (a.query_forms > 1) {
		rc = cmd_usage_error("toolchain", "query answers in one form: give one of --json, "
				     "--get FIELD, --cmake and --cmake-cache");
		goto out;
	}
	if (!(db = cmd_gpudb(ctx, &err))) {
		rc = cmd_report(&err);
		goto out;
	}
	if (strcmp(kind, "query") == 0) {
		text = query_text(db, &a, &err);
	} else {
		want.target_fs = a.req.target_fs;
		if (sysroot_open(db, a.sysroot, &want, &sr, &err)) {
			rc = cmd_report(&err);
			goto out;
		}
		/* The files are read from other directories: every path absolute,
		 * and the device root the sysroot records is bound as one given. */
		a.req.target_fs = sr.target_fs;
		a.req.cuda_xcc = self = self_path();
		a.req.cuda_xcc_nvcc = nvcc = nvcc_beside(self);
		text = file_text(kind, &sr, &a, &err);
	}
	if (!text) {
		rc = cmd_report(&err);
		goto out;
	}
	if (a.output) {
		if (fileio_write_output_data(a.output, text, strlen(text), 0644, &err))
			rc = cmd_report(&err);
	} else {
		fputs(text, stdout);
	}
out:
	free(text);
	free(self);
	free(nvcc);
	strvec_free(&a.req.arch);
	strvec_free(&a.query.check);
	strvec_free(&a.query.cache);
	sysroot_close(&sr);
	return rc;
}
