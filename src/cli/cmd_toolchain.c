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
#include "cli/cmd.h"

static const char toolchain_usage[] =
	"Usage: cuda-xcc toolchain cmake|meson [--sysroot DIR] [-arch LIST]...\n"
	"                          [--target-fs ROOTFS] [--output FILE]\n"
	"       cuda-xcc toolchain flags [--sysroot DIR] [--target-fs ROOTFS] [--nvcc]\n"
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
	"                    the source tree's wrappers/ from a build tree) and exit\n";

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
		cmd_usage_error("toolchain", "name one build system: cmake, meson or flags");
		return NULL;
	}
	if (strcmp(kind, "cmake") && strcmp(kind, "meson") && strcmp(kind, "flags")) {
		cmd_usage_error("toolchain", "unknown build system '%s': use cmake, meson or flags",
				kind);
		return NULL;
	}
	if (!sysroot || !*sysroot) {
		cmd_usage_error("toolchain", "no sysroot: give --sysroot DIR (a sysroot made by "
				"'cuda-xcc sysroot create') or set CUDA_XCC_SYSROOT");
		return NULL;
	}
	return kind;
}

int cmd_toolchain(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "arch", required_argument, NULL, 'a' },
		{ "target-fs", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "data-dir", no_argument, NULL, 'D' },
		{ "nvcc", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	struct toolchain_request req = { .arch = STRVEC_INIT };
	struct sysroot_want want = { 0 };
	struct sysroot sr = { 0 };
	const struct gpudb *db;
	const char *sysroot = getenv("CUDA_XCC_SYSROOT"), *output = NULL, *kind;
	char *text = NULL, *self = NULL, *nvcc = NULL, *generic = NULL;
	int c, rc = 0, nvcc_form = 0;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "", opts, "toolchain")) != -1) {
		switch (c) {
		case 's': sysroot = optarg; break;
		case 'a': strvec_split(&req.arch, optarg); break;
		case 'f': req.target_fs = optarg; break;
		case 'o': output = optarg; break;
		case 'n': nvcc_form = 1; break;
		case 'D': {
			const char *dir = toolchain_data_dir();

			if (!dir) {
				fputs("cuda-xcc: the shipped wrappers are not installed and the source "
				      "tree is gone; reinstall cuda-xcc ('make install')\n", stderr);
				rc = XCC_EFAIL;
				goto out;
			}
			puts(dir);
			goto out;
		}
		case 'h': fputs(toolchain_usage, stdout); goto out;
		default:
			rc = XCC_EUSAGE;
			goto out;
		}
	}
	if (!(kind = toolchain_kind(argc, argv, sysroot))) {
		rc = XCC_EUSAGE;
		goto out;
	}

	if (!(db = cmd_gpudb(ctx, &err))) {
		rc = cmd_report(&err);
		goto out;
	}
	want.target_fs = req.target_fs;
	if (sysroot_open(db, sysroot, &want, &sr, &err)) {
		rc = cmd_report(&err);
		goto out;
	}
	/* The files are read from other directories: every path absolute, and
	 * the device root the sysroot records is bound as one given here. */
	req.target_fs = sr.target_fs;
	req.cuda_xcc = self = self_path();
	req.cuda_xcc_nvcc = nvcc = nvcc_beside(self);

	if (strcmp(kind, "flags") == 0) {
		struct strvec flags = STRVEC_INIT;

		if (!sr.target_fs) {
			xcc_fail(&err, XCC_EUSAGE, "no device root filesystem: give --target-fs ROOTFS "
				 "(the sysroot %s records none)", sr.meta.dir);
		} else if (!toolchain_target_fs_flags(sr.target_fs, sr.target->triple,
						      nvcc_form ? FLAGS_NVCC : FLAGS_GCC, &flags,
						      &err)) {
			strvec_push(&flags, "");
			text = strvec_join(&flags, "\n");
		}
		strvec_free(&flags);
	} else if (strcmp(kind, "meson") == 0) {
		text = toolchain_meson(sr.target, &sr.meta, &req, &err);
	} else {
		const char *dir = toolchain_data_dir();

		if (!dir) {
			xcc_fail(&err, XCC_EFAIL, "the shipped cuda-xcc-toolchain.cmake is not installed "
				 "and the source tree is gone; reinstall cuda-xcc ('make install')");
		} else {
			generic = xasprintf("%s/cmake/cuda-xcc-toolchain.cmake", dir);
			text = toolchain_cmake(&sr.meta, &req, generic, &err);
		}
	}
	if (!text) {
		rc = cmd_report(&err);
		goto out;
	}
	if (output) {
		if (fileio_write_output_data(output, text, strlen(text), 0644, &err))
			rc = cmd_report(&err);
	} else {
		fputs(text, stdout);
	}
out:
	free(text);
	free(self);
	free(nvcc);
	free(generic);
	strvec_free(&req.arch);
	sysroot_close(&sr);
	return rc;
}
