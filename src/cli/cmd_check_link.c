#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/xalloc.h"
#include "db/flags.h"
#include "db/request.h"
#include "elf/glibc.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_open.h"
#include "use/driver.h"
#include "use/foreign_cuda.h"
#include "use/nvcc_options.h"
#include "use/link_check.h"
#include "cli/cmd.h"

/*
 * The messages and the exit status of the runtime floor checks after a
 * link (use/link_check.h), shared by driver mode (after nvcc links) and
 * `cuda-xcc check-link`. Under --strict a check that could not run is
 * never a pass.
 */

static void say_above(const struct linked_program *prog, const struct jetpack_release *jp,
		      const struct link_check_report *r, const struct link_finding *f,
		      const char *level)
{
	if (f->floor == LINK_FLOOR_ROOT_LIBC) {
		char *list = strvec_join(&f->needs, " ");

		fprintf(stderr,
			"cuda-xcc: %s: %s needs %s, but the --target-fs C library %s provides only "
			"up to %s (missing: %s): it will not start on that device.\n"
			"cuda-xcc: %s: the newer versions come from the cross toolchain's own glibc "
			"(start files, libraries or headers the --target-fs lacks, e.g. its libc6-dev) "
			"or from functions newer than the device's glibc.\n",
			level, f->file, f->needed_max, prog->target_libc, f->provided_max, list,
			level);
		free(list);
		return;
	}
	for (size_t k = 0; k < f->needs.n; k++) {
		const char *need = f->needs.v[k];
		int is_gcc = strncmp(need, "GCC_", 4) == 0;
		int is_abi = strncmp(need, "CXXABI_", 7) == 0;

		if (f->floor == LINK_FLOOR_ROOT_CXX)
			fprintf(stderr, "cuda-xcc: %s: %s needs %s, newer than the --target-fs %s "
				"defines (up to %s%s): it will not start on that device\n", level,
				f->file, need,
				is_gcc ? prog->target_libgcc_s : prog->target_libstdcxx,
				is_gcc ? "GCC_" : is_abi ? "CXXABI_" : "GLIBCXX_",
				is_gcc ? r->root_gcc_s : is_abi ? r->root_cxxabi : r->root_glibcxx);
		else
			fprintf(stderr, "cuda-xcc: %s: %s needs %s, newer than JetPack %s (Ubuntu %s: "
				"glibc %s, GLIBCXX_%s, CXXABI_%s, GCC_%s) provides: it will not start "
				"there\n", level, f->file, need, jp->version, jp->ubuntu,
				jp->glibc, jp->glibcxx, jp->cxxabi, jp->gcc_s);
	}
	if (f->floor == LINK_FLOOR_ROOT_CXX)
		fprintf(stderr, "cuda-xcc: %s: the cross g++ linked its own, newer C++ "
			"runtime; %s\n", level, f->fix);
	else
		fprintf(stderr, "cuda-xcc: %s: for GLIBC_ needs, build against a root "
			"filesystem with that runtime (--target-fs ROOTFS: the board's own, or "
			"a distribution root no newer than it, e.g. from Debian's arm64 packages: "
			"scripts/fetch-target-root.sh --jetpack J); for GLIBCXX_/"
			"CXXABI_/GCC_ needs, %s\n", level, f->fix);
}

int cmd_check_linked(const struct linked_program *prog, const struct jetpack_release *floor,
		     int strict)
{
	const char *level = strict ? "error" : "warning";
	struct link_check_report r;
	int rc = 0;

	link_check(prog, floor, &r);
	switch (r.status) {
	case LINK_CHECK_PASS:
	case LINK_CHECK_NO_FLOOR: /* check-link says so once, for all its files */
		break;
	case LINK_CHECK_EXEMPT:
		fprintf(stderr, "cuda-xcc: note: %s is a static archive: not checked; its objects "
			"are checked in the link that takes them\n", prog->file);
		break;
	case LINK_CHECK_UNCHECKED:
	case LINK_CHECK_ABOVE:
		if (r.file_error.status)
			fprintf(stderr, "cuda-xcc: %s: cannot check %s against the device's runtime "
				"floor: %s\n", level, prog->file, r.file_error.msg);
		for (size_t i = 0; i < r.n; i++)
			if (r.v[i].above)
				say_above(prog, floor, &r, &r.v[i], level);
			else
				fprintf(stderr, "cuda-xcc: %s: cannot read the version needs of %s: "
					"%s\n", level, r.v[i].file, r.v[i].why);
		if (strict)
			rc = r.file_error.status ? r.file_error.status : XCC_EFAIL;
		break;
	}
	link_check_report_free(&r);
	return rc;
}

static const char check_link_usage[] =
	"Usage: cuda-xcc check-link [--sysroot DIR] [--target T] [--target-fs ROOTFS]\n"
	"                           [--jetpack J] [--strict] FILE...\n"
	"       cuda-xcc check-link [OPTIONS] -- LINK-COMMAND...\n"
	"       cuda-xcc check-link [OPTIONS] --compiler=CC ARGUMENTS...\n"
	"\n"
	"Check linked programs and shared libraries against the device's runtime floor,\n"
	"as driver mode does after each link: their GLIBC_ needs against the --target-fs\n"
	"root's libc.so.6, GLIBCXX_/CXXABI_/GCC_ against its libstdc++ and libgcc_s, and\n"
	"for Jetson GPUs all of them against the JetPack release's floor. With '--' it\n"
	"runs LINK-COMMAND first and checks the file its -o names (a compile, with -c,\n"
	"-S or -E, is only run): the CMake toolchain file makes it the linker launcher\n"
	"of C, C++ and CUDA targets, the Meson cross file the C and C++ compilers.\n"
	"'--compiler=CC ARGUMENTS...' is '-- CC ARGUMENTS...' in the one word ccache\n"
	"keeps in its place when it is put in front (Meson's c = ['ccache', ...]).\n"
	"\n"
	"  --sysroot DIR      the sysroot (default: $CUDA_XCC_SYSROOT): the target, its GPUs,\n"
	"                     and the root and JetPack release it was made for\n"
	"  --target T         the target, without a sysroot\n"
	"  --target-fs ROOTFS the device's root filesystem (default: the sysroot's)\n"
	"  --jetpack J        the board's JetPack release (default: the sysroot's)\n"
	"  --strict           a C library, C++ runtime or JetPack need above the floor is\n"
	"                     an error, and so is a file that could not be checked\n"
	"  --no-floor-note    say nothing when no floor is known (the CMake toolchain\n"
	"                     file, which says it once per configure)\n"
	"  --sysroot-fingerprint FP  refuse (exit 2) a sysroot whose fingerprint is not FP:\n"
	"                     the Meson cross file's, so that its command lines, which\n"
	"                     compiler caches hash, change with the sysroot\n"
	"\n"
	"With no floor known (no --jetpack, --target-fs or sysroot) it says so; with\n"
	"--strict that is an error. A static archive (.a) is not checked: its objects\n"
	"are, in the link that takes them. A LINK-COMMAND output that fails the check\n"
	"is removed, as a failed link leaves none.\n"
	"\n"
	"Exit status: LINK-COMMAND's when it fails; else 0, or with --strict 1 when a need\n"
	"is above the floor, no floor is known or a file cannot be read or is no ELF\n"
	"file; 2 for bad options, and with --strict for a file that does not exist.\n";

/* The file a compiler or linker command line links: -o FILE or -oFILE,
 * the last one winning, as in gcc. NULL when it names none or only
 * compiles (-c, -S, -E): the Meson cross file puts every C and C++ command
 * through check-link, not only the links. An nvcc command line (CMake's
 * CUDA links) is read by nvcc's own table: -o=FILE, --output-file, and its
 * phases that link nothing (-dlink, -lib, -ptx...). */
static const char *command_output(int argc, char **argv)
{
	const char *out = NULL, *base = strrchr(argv[0], '/');
	size_t n;

	base = base ? base + 1 : argv[0];
	n = strlen(base);
	if (n >= 4 && strcmp(base + n - 4, "nvcc") == 0)
		return nvcc_command_output(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "-S") == 0 ||
		    strcmp(argv[i], "-E") == 0)
			return NULL;
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strncmp(argv[i], "-o", 2) == 0 && argv[i][2])
			out = argv[i] + 2;
	}
	return out;
}

/* The floor of a Jetson sysroot without a JetPack named: the oldest JetPack
 * that runs its GPUs with its CUDA, as driver mode takes it. */
static const struct jetpack_release *sysroot_floor(struct cmd_ctx *ctx, const struct gpudb *db,
						   const struct target_profile *t,
						   const struct sysroot_meta *m,
						   const struct jetpack_release *jp)
{
	const struct jetpack_db *jdb;
	const struct jetpack_release *floor;
	struct xcc_error err = { 0 };
	struct arch_choice arch;
	struct cuda_version v;

	if (!(jdb = cmd_jetpacks(ctx, &err)) || cuda_version_parse(m->cuda, &v))
		return jp;
	memset(&arch, 0, sizeof arch);
	if (flags_resolve(db, t, v, &m->capabilities, PTX_NONE, &arch, &err))
		return jp;
	floor = jetpack_floor_for(jdb, jp, &arch);
	arch_choice_free(&arch);
	return floor;
}

/* What the links are checked against: the sysroot's target and device root
 * (--target and --target-fs must agree with it), else --target and
 * --target-fs alone. */
struct check_against {
	struct sysroot sr; /* empty when no sysroot is named */
	const struct target_profile *t;
	char *libc, *cxx, *gcc_s; /* the device root's, or NULL */
	const struct jetpack_release *floor;
};

static int check_against_open(struct cmd_ctx *ctx, const char *sysroot, const char *target,
			      const char *rootfs, const char *jetpack, struct check_against *ca,
			      struct xcc_error *err)
{
	struct sysroot_want want = { .target = target, .target_fs = rootfs };
	const struct jetpack_release *jp = NULL;
	const struct gpudb *db;
	int opened = sysroot && *sysroot;

	if (!(db = cmd_gpudb(ctx, err)))
		return -1;
	if (opened) {
		if (sysroot_open(db, sysroot, &want, &ca->sr, err))
			return -1;
		ca->t = ca->sr.target;
		rootfs = ca->sr.target_fs;
		if (!jetpack)
			jetpack = ca->sr.meta.jetpack;
	} else if (request_target(db, target, &ca->t, err)) {
		return -1;
	}
	if (jetpack && !(jp = cmd_jetpack(ctx, jetpack, err)))
		return -1;
	if (rootfs) {
		if (opened)
			ca->libc = xstrdup(ca->sr.target_libc);
		else if (glibc_check_rootfs(rootfs, ca->t->triple, &ca->libc, err))
			return -1;
		if (glibc_find_in_root(rootfs, ca->t->triple, "libstdc++.so.6", &ca->cxx, err) ||
		    glibc_find_in_root(rootfs, ca->t->triple, "libgcc_s.so.1", &ca->gcc_s, err))
			return -1;
	}
	ca->floor = opened ? sysroot_floor(ctx, db, ca->t, &ca->sr.meta, jp) : jp;
	return 0;
}

/* No floor and no device root: nothing can be checked, and that is said
 * (an error under --strict) instead of passing in silence. Returns 1 when
 * that is so. */
static int no_floor(const struct check_against *ca, int strict, int quiet)
{
	if (ca->floor || ca->libc)
		return 0;
	/* The build system said it once already: not again at every link. */
	if (quiet && !strict)
		return 1;
	fprintf(stderr, "cuda-xcc: %s: no runtime floor is known for --target %s, so nothing "
		"was checked: give --jetpack J (the board's JetPack release), --target-fs ROOTFS "
		"(the device's root filesystem), or --sysroot DIR of a sysroot made with one%s\n",
		strict ? "error" : "warning", ca->t->name,
		ca->t->jetson_only ? "" : " (--target-fs for a server's own distribution)");
	return 1;
}

/* A failed check leaves no output, as a failed link does: make would take
 * the file for built. */
void cmd_remove_failed_output(const char *file)
{
	if (unlink(file) == 0)
		fprintf(stderr, "cuda-xcc: error: removed %s: it failed the check above\n", file);
	else if (errno != ENOENT) /* a link that wrote none leaves nothing to remove */
		fprintf(stderr, "cuda-xcc: error: cannot remove %s, which failed the check above: "
			"%s\n", file, strerror(errno));
}

static void check_against_close(struct check_against *ca)
{
	sysroot_close(&ca->sr);
	free(ca->libc);
	free(ca->cxx);
	free(ca->gcc_s);
}

/* The command check-link runs, into cmd, and check-link's own arguments
 * cut to end before it (*argc): everything after "--", or the CC of the
 * first "--compiler=CC" and everything after it. The one-word form is the
 * Meson cross file's: ccache, put in front of it as Meson users do, drops a
 * "--" from the command lines it runs itself and keeps one word in its
 * place. The command's length, 0 for an empty one, -1 for none. */
static int split_command(int *argc, char **argv, struct strvec *cmd)
{
	static const char compiler[] = "--compiler=";

	for (int i = 1; i < *argc; i++) {
		int dash = strcmp(argv[i], "--") == 0;

		if (!dash && strncmp(argv[i], compiler, sizeof compiler - 1) != 0)
			continue;
		if (!dash && argv[i][sizeof compiler - 1])
			strvec_push(cmd, argv[i] + sizeof compiler - 1);
		if (dash || cmd->n)
			for (int j = i + 1; j < *argc; j++)
				strvec_push(cmd, argv[j]);
		*argc = i;
		return (int)cmd->n;
	}
	return -1;
}

int cmd_check_link(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 't' },
		{ "target-fs", required_argument, NULL, 'F' },
		{ "jetpack", required_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 'S' },
		{ "sysroot-fingerprint", required_argument, NULL, 'P' },
		{ "no-floor-note", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	struct check_against ca = { 0 };
	struct strvec files = STRVEC_INIT;
	const char *sysroot = getenv("CUDA_XCC_SYSROOT"), *target = NULL, *rootfs = NULL,
		   *jetpack = NULL, *fingerprint = NULL;
	struct linked_program prog = { 0 };
	struct strvec cmdv = STRVEC_INIT;
	int c, rc = 0, strict = 0, quiet = 0, ncmd;

	ncmd = split_command(&argc, argv, &cmdv);
	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "-", opts, "check-link")) != -1) {
		switch (c) {
		case 1: strvec_push(&files, optarg); break;
		case 's': sysroot = optarg; break;
		case 't': target = optarg; break;
		case 'F': rootfs = optarg; break;
		case 'j': jetpack = optarg; break;
		case 'S': strict = 1; break;
		case 'P': fingerprint = optarg; break;
		case 'Q': quiet = 1; break;
		case 'h': fputs(check_link_usage, stdout); goto out;
		default: rc = XCC_EUSAGE; goto out;
		}
	}
	if (ncmd == 0 || (ncmd < 0 && !files.n) || (ncmd > 0 && files.n)) {
		rc = cmd_usage_error("check-link", "give the files to check, or '--' and the link "
				     "command (or --compiler=CC and its arguments), not both");
		goto out;
	}

	if (!target && !(sysroot && *sysroot)) {
		rc = cmd_usage_error("check-link", "no target: give --sysroot DIR (or set "
				     "CUDA_XCC_SYSROOT) or --target T");
		goto out;
	}
	if (fingerprint && !(sysroot && *sysroot)) {
		rc = cmd_usage_error("check-link", "--sysroot-fingerprint needs the sysroot it "
				     "names: give --sysroot DIR (or set CUDA_XCC_SYSROOT)");
		goto out;
	}
	if (check_against_open(ctx, sysroot, target, rootfs, jetpack, &ca, &err))
		goto report;
	if (fingerprint && driver_check_fingerprint(ca.sr.meta.dir, ca.sr.meta.fingerprint,
						    fingerprint, &err))
		goto report;

	if (ncmd > 0) {
		char **cmd = cmdv.v;
		const char *output;

		/* The Meson cross file's C and C++ compilers and CMake's linker
		 * launcher: another CUDA's stubs or headers on LIBRARY_PATH or CPATH
		 * stay out of the link and the compile, as in driver mode. */
		foreign_cuda_clean_env(ca.sr.meta.dir);
		rc = proc_run(cmd, &err);
		if (rc < 0)
			goto report;
		if (rc)
			goto out;
		output = command_output(ncmd, cmd);
		/* A version probe or a compile links nothing to check. */
		if (output)
			strvec_push(&files, output);
	}
	prog.sysroot = ca.sr.meta.dir;
	prog.target_dir = ca.sr.meta.target_dir;
	prog.target_libc = ca.libc;
	prog.target_libstdcxx = ca.cxx;
	prog.target_libgcc_s = ca.gcc_s;
	prog.triple = ca.t ? ca.t->triple : NULL;
	if (files.n && no_floor(&ca, strict, quiet) && strict)
		rc = XCC_EFAIL;
	for (size_t i = 0; i < files.n; i++) {
		int one;

		prog.file = files.v[i];
		/* The worst status wins: a named file that does not exist (2)
		 * over one that failed (1). */
		if ((one = cmd_check_linked(&prog, ca.floor, strict)) > rc)
			rc = one;
	}
	/* The link command's output is this command's own: it goes when the
	 * check fails. Files named to check are only reported on. */
	if (rc && ncmd > 0 && files.n)
		cmd_remove_failed_output(files.v[0]);
	goto out;
report:
	rc = cmd_report(&err);
out:
	check_against_close(&ca);
	strvec_free(&files);
	strvec_free(&cmdv);
	return rc;
}
