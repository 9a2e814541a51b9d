/*
 * cuda-xcc as a dynamic build installs it: driver mode runs here, in a
 * program linked --as-needed that loads neither libcurl nor libarchive
 * (setting up their libraries was most of each compile's start-up, some
 * 8 ms of CPU: bench/driver-overhead.sh); every command, --help, --version
 * and a call under another name (cuda-xcc-patchelf) goes to the whole
 * program, cuda-xcc-full, with the same arguments, argv[0] included.
 * The static build has no loader to pay and is the whole program alone.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "cli/cmd.h"

/* Whether the first argument may be a command (or help, --version): a
 * lower-case word. Driver mode starts with an option or an input file
 * (foo.cu, main.o); a bare word goes to cuda-xcc-full, which decides as it
 * always has (a command's name wins over a file of that name, as in
 * 'sysroot info' run beside a directory called sysroot), so this guess
 * costs time at most, never a different answer. */
static int maybe_command(const char *a)
{
	static const char *const whole[] = { "--help", "-h", "--version", "-V", NULL };

	for (size_t i = 0; whole[i]; i++)
		if (strcmp(a, whole[i]) == 0)
			return 1;
	return a[0] >= 'a' && a[0] <= 'z' && strspn(a, "abcdefghijklmnopqrstuvwxyz-") == strlen(a);
}

/* Run cuda-xcc-full: beside this binary (a build tree), in
 * ../libexec/cuda-xcc from it (an installed tree moved elsewhere, as
 * Yocto's native sysroots are), else in the configured pkglibexecdir. It
 * learns this binary's path from CUDA_XCC_SELF, as the files it writes
 * (Meson cross files) must name cuda-xcc, not itself. */
static int hand_over(char **argv)
{
	static const char *const near[] = { "/cuda-xcc-full", "/../libexec/cuda-xcc/cuda-xcc-full" };
	char self[PATH_MAX], path[PATH_MAX + 64];
	const char *tried = XCC_PKGLIBEXECDIR "/cuda-xcc-full";
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n > 0) {
		int dir;

		self[n] = '\0';
		setenv("CUDA_XCC_SELF", self, 1);
		dir = (int)(strrchr(self, '/') - self);
		for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
			snprintf(path, sizeof path, "%.*s%s", dir, self, near[i]);
			if (access(path, X_OK) == 0)
				execv(path, argv);
		}
	}
	execv(tried, argv);
	fprintf(stderr, "cuda-xcc: cannot run %s (%s), which runs every command but driver mode: "
		"reinstall cuda-xcc ('make install' puts it there)\n", tried, strerror(errno));
	return XCC_EFAIL;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { 0 };
	int rc;

	if (argc < 2 || strcmp(file_base_name(argv[0]), "cuda-xcc") != 0 ||
	    maybe_command(argv[1]))
		return hand_over(argv);
	rc = cmd_driver(argc - 1, argv + 1, &ctx);
	cmd_ctx_free(&ctx);
	return rc;
}
