#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/xalloc.h"
#include "db/hostcc.h"
#include "db/request.h"
#include "elf/devroot.h"
#include "elf/glibc.h"
#include "pkg/fetch.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_open.h"
#include "use/driver.h"
#include "use/prefix_map.h"
#include "use/linkdirs.h"

/*
 * cuda-xcc's own options in driver mode. This is one of the two exceptions
 * to the verbs' getopt convention (cli/cmd.h): nvcc's arguments must pass
 * through unchanged and in order among ours, read by nvcc's own table
 * (use/nvcc_options.h), so that the value of an option of nvcc's is never
 * taken for one of ours ("-o --cuda" names a file "--cuda").
 */
enum driver_option {
	OPT_SYSROOT, OPT_CUDA, OPT_TARGET, OPT_TARGET_FS, OPT_JETPACK, OPT_PTX,
	OPT_FINGERPRINT
};

static const struct {
	const char *name;
	enum driver_option opt;
} driver_options[] = {
	{ "--sysroot", OPT_SYSROOT },     { "--cuda", OPT_CUDA },
	{ "--target", OPT_TARGET },       { "--target-fs", OPT_TARGET_FS },
	{ "--jetpack", OPT_JETPACK },     { "--ptx", OPT_PTX },
	{ "--sysroot-fingerprint", OPT_FINGERPRINT },
};

static int set_option(struct driver_opts *o, enum driver_option opt, const char *val,
		      struct xcc_error *err)
{
	switch (opt) {
	case OPT_SYSROOT: o->sysroot = val; break;
	case OPT_CUDA: o->cuda = val; break;
	case OPT_TARGET: o->target = val; break;
	case OPT_TARGET_FS: o->target_fs = val; break;
	case OPT_JETPACK: o->jetpack = val; break;
	case OPT_FINGERPRINT: o->fingerprint = val; break;
	case OPT_PTX:
		if (ptx_policy_parse(val, &o->ptx))
			return xcc_fail(err, XCC_EUSAGE, "--ptx takes none, highest or all (got '%s')",
					val);
		break;
	}
	return 0;
}

/* nvcc's argument a, read from argv, as the words it was copied to at
 * o->nvcc_args.v[first...]: the typed form points into o's own copies. */
static void push_nvcc_arg(struct driver_opts *o, char **argv, int i, const struct nvcc_arg *a)
{
	struct nvcc_arg copy = *a;
	size_t first = o->nvcc_args.n;

	for (int k = 0; k < a->words; k++)
		strvec_push(&o->nvcc_args, argv[i + k]);
	copy.word = o->nvcc_args.v[first];
	if (a->form == NVCC_SEPARATE && a->value)
		copy.value = o->nvcc_args.v[first + 1];
	else if (a->value)
		copy.value = copy.word + (a->value - a->word);
	nvcc_args_push(&o->nvcc, &copy);
}

int driver_parse_args(int argc, char **argv, struct driver_opts *o, struct xcc_error *err)
{
	driver_opts_init(o);
	for (int i = 0; i < argc;) {
		const char *a = argv[i];
		struct nvcc_arg na;
		size_t k, n = 0;
		int words;

		if (strcmp(a, "--dry-run") == 0 || strcmp(a, "-###") == 0) {
			o->dry_run = 1;
			i++;
			continue;
		}
		if (strcmp(a, "--strict") == 0) {
			o->strict = 1;
			i++;
			continue;
		}
		for (k = 0; k < sizeof driver_options / sizeof driver_options[0]; k++) {
			n = strlen(driver_options[k].name);
			if (strncmp(a, driver_options[k].name, n) == 0 && (!a[n] || a[n] == '='))
				break;
		}
		if (k < sizeof driver_options / sizeof driver_options[0]) {
			const char *val = a[n] ? a + n + 1 : i + 1 < argc ? argv[i + 1] : NULL;

			if (!val)
				return xcc_fail(err, XCC_EUSAGE, "%s needs a value", a);
			if (set_option(o, driver_options[k].opt, val, err))
				return -1;
			i += a[n] ? 1 : 2;
			continue;
		}
		/* Everything else is nvcc's, read by nvcc's table: -arch in any
		 * of nvcc's spellings is cuda-xcc's. */
		words = nvcc_arg_read(argc, argv, i, &na);
		if (na.opt && na.opt->role == NVCC_ARCH) {
			if (!na.value)
				return xcc_fail(err, XCC_EUSAGE, "%s needs a value", a);
			strvec_push(&o->arch, na.value);
		} else {
			push_nvcc_arg(o, argv, i, &na);
		}
		i += words;
	}
	return 0;
}

/* --sysroot, then $CUDA_XCC_SYSROOT, then the default store. */
static char *locate_sysroot(const struct driver_opts *o)
{
	const char *env = getenv("CUDA_XCC_SYSROOT");

	if (o->sysroot)
		return xstrdup(o->sysroot);
	if (env && *env)
		return xstrdup(env);
	if (o->target && o->cuda)
		return sysroot_store_path(o->target, o->cuda);
	return NULL;
}

/*
 * Build against the device's root filesystem. Debian's cross g++ searches its
 * own /usr/<triple>/{include,lib} before anything under --sysroot, so
 * --sysroot alone would still link the cross toolchain's (newer) glibc:
 * -B puts the rootfs's multiarch dirs first for start files and libraries,
 * and -rpath-link lets ld follow the NEEDED chains of the device's libraries.
 * The root's absolute symlinks are read through an overlay (devroot.h).
 */
static int target_fs_args(const char *rootfs, const char *known_libc,
			  const struct target_profile *t, struct driver_plan *plan,
			  struct xcc_error *err)
{
	struct strvec *argv = &plan->argv;
	struct devroot_args dr;
	char *abs, *cache;
	int rc;

	if (request_rootfs_for_nvcc(rootfs, &abs, err))
		return -1;
	/* The sysroot's opener has checked the root and found its libc (an
	 * absolute path, as the floor check after the link reports it). */
	if (known_libc)
		plan->target_libc = xstrdup(known_libc);
	else if (glibc_check_rootfs(abs, t->triple, &plan->target_libc, err)) {
		free(abs);
		return -1;
	}
	if (glibc_find_in_root(abs, t->triple, "libstdc++.so.6", &plan->target_libstdcxx, err) ||
	    glibc_find_in_root(abs, t->triple, "libgcc_s.so.1", &plan->target_libgcc_s, err)) {
		free(abs);
		return -1;
	}
	cache = fetch_default_cache_dir();
	rc = devroot_args_make(abs, t->triple, cache, &dr, err);
	free(cache);
	free(abs);
	if (rc)
		return -1;
	/* nvcc would split an overlay path with a comma into two options. */
	if (dr.overlay && strchr(dr.overlay, ',')) {
		xcc_fail(err, XCC_EUSAGE, "the overlay %s for --target-fs %s has a comma in its "
			 "path, which nvcc splits: set XDG_CACHE_HOME to a directory without one",
			 dr.overlay, rootfs);
		devroot_args_free(&dr);
		return -1;
	}
	/* ld skips such a link silently and may take the static library of
	 * the same name instead: say which file the root lacks. */
	for (size_t i = 0; i < dr.links.n; i++)
		if (!dr.links.v[i].resolved)
			strvec_pushf(&plan->warnings, "--target-fs %s: %s -> %s names no file in that "
				     "root, so the linker skips it (and may take a static library "
				     "instead): copy the device's %s into the root", rootfs,
				     dr.links.v[i].path, dr.links.v[i].target, dr.links.v[i].target);
	devroot_args_format(&dr, 1, argv);
	devroot_args_free(&dr);
	return 0;
}

int driver_run_child(const struct driver_plan *plan, struct xcc_error *err)
{
	return proc_run(plan->argv.v, err);
}

/* 'cuda-xcc sysroot create ...' for these GPUs, ready to paste. */
static char *driver_create_command(const struct arch_choice *c, const char *cuda)
{
	struct strvec caps = STRVEC_INIT;
	char tok[16], *list, *cmd;

	for (size_t i = 0; i < c->n; i++)
		strvec_pushf(&caps, "sm_%s", gpu_cap_token(c->entries[i].cap, tok, sizeof tok));
	list = strvec_join(&caps, ",");
	cmd = xasprintf("cuda-xcc sysroot create --target %s --cuda %s -arch %s", c->target->name,
			cuda, list);
	free(list);
	strvec_free(&caps);
	return cmd;
}

/* The sysroot the command line names (--sysroot, CUDA_XCC_SYSROOT, or the
 * store's for --target and --cuda), opened and checked against them. None is
 * not an error unless one was named; *opened says whether s holds one. */
static int driver_open_sysroot(const struct gpudb *db, const struct driver_opts *o,
			       struct driver_plan *plan, struct sysroot *s, int *opened,
			       struct xcc_error *err)
{
	struct sysroot_want want = { .target = o->target, .cuda = o->cuda,
				     .target_fs = o->target_fs };

	*opened = 0;
	plan->sysroot = locate_sysroot(o);
	if (o->fingerprint && !plan->sysroot)
		return xcc_fail(err, XCC_EUSAGE, "--sysroot-fingerprint %s names a sysroot's "
				"fingerprint, and no sysroot was named: give --sysroot DIR",
				o->fingerprint);
	if (!plan->sysroot)
		return 0;
	if (!file_is_dir(plan->sysroot) && !o->sysroot && !getenv("CUDA_XCC_SYSROOT") &&
	    !o->fingerprint)
		return 0; /* the store has none yet: said after the GPUs are known */
	if (sysroot_open(db, plan->sysroot, &want, s, err))
		return -1;
	*opened = plan->sysroot_exists = 1;
	if (o->fingerprint)
		return driver_check_fingerprint(s->meta.dir, s->meta.fingerprint, o->fingerprint, err);
	return 0;
}

int driver_check_fingerprint(const char *dir, const char *have, const char *want,
			     struct xcc_error *err)
{
	if (have && strcmp(have, want) == 0)
		return sysroot_meta_unchanged(dir, err);
	return xcc_fail(err, XCC_EUSAGE,
			"the sysroot %s is not the one this command was written for "
			"(--sysroot-fingerprint %s, the sysroot's %s): it was made again or swapped "
			"since. Write the Meson cross file again ('cuda-xcc toolchain meson --sysroot "
			"%s'), or drop --sysroot-fingerprint",
			dir, want, have ? have : "not recorded", dir);
}

/* No sysroot and no --cuda. The command suggested must work as printed:
 * with the GPUs known, the newest CUDA release that serves them; a Jetson
 * build without them has only the placeholders, for the board decides. */
static int driver_no_cuda(const struct gpudb *db, const struct driver_opts *o,
			  const struct target_profile *t, struct xcc_error *err)
{
	char *cuda = t->jetson_only && !o->arch.n ? NULL : flags_newest_cuda(db, t, &o->arch);
	char *arch = o->arch.n ? strvec_join(&o->arch, ",") : NULL;

	if (cuda)
		xcc_fail(err, XCC_EUSAGE,
			 "no sysroot found for --target %s: pass --sysroot DIR, set "
			 "CUDA_XCC_SYSROOT, or give --cuda V; 'cuda-xcc sysroot create --target %s "
			 "--cuda %s%s%s' makes one (CUDA %s is the newest verified release that serves "
			 "%s)", t->name, t->name, cuda, arch ? " -arch " : "", arch ? arch : "", cuda,
			 arch ? "these GPUs" : "its default GPUs");
	else
		xcc_fail(err, XCC_EUSAGE,
			 "no sysroot found for --target %s: pass --sysroot DIR, set "
			 "CUDA_XCC_SYSROOT, or give --cuda V with the GPUs (-arch sm_XX); "
			 "cuda-xcc sysroot create --target %s --cuda V -arch sm_XX, with the "
			 "board's GPU ('cuda-xcc gpus'), makes one", t->name, t->name);
	free(cuda);
	free(arch);
	return -1;
}

/* The target and CUDA release: the sysroot's, else the command line's. */
static int driver_request(const struct gpudb *db, const struct driver_opts *o,
			  const struct sysroot *s, int opened, const struct target_profile **t,
			  struct cuda_version *v, const char **cuda_str, struct xcc_error *err)
{
	const char *target_name = opened ? s->meta.target : o->target;

	*cuda_str = opened ? s->meta.cuda : o->cuda;
	if (!target_name) {
		char *names = gpudb_target_names(db);

		xcc_fail(err, XCC_EUSAGE, "no target: pass --target (one of %s) or --sysroot DIR",
			 names);
		free(names);
		return -1;
	}
	if (request_target(db, target_name, t, err))
		return -1;
	if (!*cuda_str)
		return driver_no_cuda(db, o, *t, err);
	return request_cuda(*cuda_str, v, err);
}

/*
 * GPUs that only --target jetson's L4T (linux-aarch64) build serves, asked of
 * an SBSA sysroot: "use --target jetson" is no way out, for the sysroot
 * decides the target, and one made from Debian's packages can never be a
 * Jetson one. Say so, and which sysroot would serve them.
 */
static void driver_explain_jetson_gpus(const struct gpudb *db, const char *sysroot,
				       const struct target_profile *t, struct cuda_version v,
				       const char *cuda_str, const struct strvec *specs,
				       enum ptx_policy ptx, struct xcc_error *err)
{
	const struct target_profile *jetson = gpudb_target(db, "jetson");
	struct arch_choice c = { 0 };
	struct xcc_error ignored = { 0 };
	char *create = NULL;

	if (!jetson || t->jetson_only ||
	    flags_resolve(db, jetson, v, specs, ptx, &c, &ignored) ||
	    strcmp(c.tag, "linux-aarch64") != 0)
		goto out;
	create = driver_create_command(&c, cuda_str);
	xcc_fail(err, XCC_EUSAGE,
		 "sysroot %s is an SBSA one (--target %s: Arm servers with a discrete GPU), and "
		 "the GPUs asked are Jetson ones, whose CUDA %s libraries are NVIDIA's L4T build "
		 "(linux-aarch64), which this sysroot does not have.\nDebian's arm64 CUDA packages "
		 "are SBSA builds, so no sysroot made from them serves a Jetson: make one from "
		 "NVIDIA's linux-aarch64 archives ('%s --dest DIR', without --from) and pass it as "
		 "--sysroot DIR, or build for an Arm server's GPU (-arch sm_80, sm_90...).",
		 sysroot, t->name, cuda_str, create);
out:
	free(create);
	arch_choice_free(&c);
}

/* The GPUs: the user's own -gencode/-code win over -arch and are only checked. */
static int driver_arch(const struct gpudb *db, const struct driver_opts *o,
		       const struct nvcc_line *l, const struct target_profile *t,
		       struct cuda_version v, const char *cuda_str, int opened,
		       struct driver_plan *plan, struct xcc_error *err)
{
	struct strvec all = STRVEC_INIT;
	enum ptx_policy ptx = o->ptx;
	int bad;

	if (l->has_gencode) {
		strvec_extend(&all, &l->specs);
		ptx = PTX_NONE;
	}
	strvec_extend(&all, &o->arch);
	bad = flags_resolve(db, t, v, &all, ptx, &plan->arch, err);
	if (bad && opened)
		driver_explain_jetson_gpus(db, plan->sysroot, t, v, cuda_str, &all, ptx, err);
	strvec_free(&all);
	return bad;
}

/* Whether the sysroot serves these GPUs; checked after them, so that the
 * command suggested names them (a Jetson create without -arch is refused). */
static int driver_check_sysroot(const struct driver_opts *o, const struct sysroot *s, int opened,
				const struct target_profile *t, const char *cuda_str,
				struct driver_plan *plan, struct xcc_error *err)
{
	plan->create_command = driver_create_command(&plan->arch, cuda_str);
	if (!opened && !o->dry_run)
		return xcc_fail(err, XCC_EUSAGE,
				"no sysroot for --target %s --cuda %s at %s.\nCreate it with '%s', or "
				"pass --sysroot DIR (--dry-run shows the command without one).",
				t->name, cuda_str, plan->sysroot, plan->create_command);
	if (opened && strcmp(s->meta.tag, plan->arch.tag) != 0)
		return xcc_fail(err, XCC_EUSAGE,
				"sysroot %s holds %s libraries, but these GPUs need %s.\nCreate a "
				"sysroot for them: %s --dest DIR", plan->sysroot, s->meta.tag,
				plan->arch.tag, plan->create_command);
	return 0;
}

/* -ccbin: the user's (checked), the sysroot's, else one found for t and v. */
static int driver_host_compiler(const struct gpudb *db, const struct nvcc_line *l,
				const struct sysroot *s, int opened, const struct target_profile *t,
				struct cuda_version v, struct host_compiler *hc,
				struct xcc_error *err)
{
	if (l->ccbin)
		return hostcc_check_machine(l->ccbin, t, err) ||
				       hostcc_check_version(db, t, v, l->ccbin,
							    l->allow_unsupported, err)
			       ? -1 : 0;
	if (opened && s->meta.host_compiler && (hc->path = proc_which(s->meta.host_compiler))) {
		hc->name = xstrdup(s->meta.host_compiler);
		return 0;
	}
	return hostcc_find(db, t, v, l->allow_unsupported, hc, err);
}

/* The libraries the program links: the device root's (--target-fs, else the
 * sysroot's own), else the sysroot's libcudart by an rpath. */
static int driver_link_args(const struct driver_opts *o, const struct sysroot *s, int opened,
			    const struct target_profile *t, const struct nvcc_line *l,
			    struct driver_plan *plan, struct xcc_error *err)
{
	const char *target_fs = opened ? s->target_fs : o->target_fs;

	if (target_fs)
		return target_fs_args(target_fs,
				      opened && s->target_libc && s->target_libc[0] == '/'
					      ? s->target_libc : NULL,
				      t, plan, err);
	if (l->links && l->cudart_shared && opened) {
		/* The sysroot is the only place this machine has the target's
		 * libcudart: record it so the program runs under qemu without
		 * LD_LIBRARY_PATH. On the device the path does not exist and the
		 * loader goes on to its usual directories. With --target-fs the
		 * program is meant for that device, so nothing is added. nvcc
		 * would split a path with a comma into two linker options. */
		if (!strchr(s->meta.dir, ','))
			strvec_pushf(&plan->argv, "-Xlinker=-rpath=%s/targets/%s/lib", s->meta.dir,
				     plan->arch.target_dir);
	}
	return 0;
}

/* nvlink loads the host's libnvvm.so beside nvcc for -dlto's device link
 * and says only "elfLink linker library load error" without it (Debian's
 * nvidia-cuda-toolkit has it in the separate libnvvm4 package, which
 * sysroot create takes into nvvm/lib64). */
static void warn_no_libnvvm(struct driver_plan *plan)
{
	char *lib;

	if (!plan->sysroot_exists)
		return;
	lib = xasprintf("%s/nvvm/lib64/libnvvm.so", plan->sysroot);
	if (access(lib, R_OK) != 0)
		strvec_pushf(&plan->warnings, "-dlto: the sysroot has no %s, which nvlink loads "
			     "for the device link (it fails with \"elfLink linker library load "
			     "error\"): the sysroot needs the build machine's libnvvm.so there; "
			     "for Debian's CUDA, make it again with --from Debian's libnvvm4 .deb "
			     "as well (scripts/fetch-debian-cuda.sh fetches it)", lib);
	free(lib);
}

/*
 * Device link-time optimisation, spelt as nvcc takes it: nvcc refuses -dlto
 * beside -gencode wherever it compiles ("use 'code=lto_<arch>' instead"),
 * and wants -dlto, with SASS targets, where it links. So a compile asks for
 * code=lto_XX (and -rdc=true, which -dlto implies) without -dlto; a link
 * keeps -dlto and asks for the SASS. One call that does both can only be
 * spelt -arch=sm_XX -dlto, for one GPU.
 */
static int driver_lto(const struct nvcc_line *l, struct driver_plan *plan, int *keep_dlto,
		      int *arch_flag, struct xcc_error *err)
{
	int compiles = l->sources && !l->dlink;

	*keep_dlto = 1;
	*arch_flag = 0;
	if (l->has_gencode) {
		if (l->dlto && compiles)
			return xcc_fail(err, XCC_EUSAGE,
					"-dlto cannot be mixed with -gencode or -code where nvcc compiles "
					"(nvcc refuses it): ask for the LTO-IR in the -gencode "
					"(arch=compute_87,code=lto_87) and pass -dlto at the device link");
		return 0;
	}
	if (!l->dlto) {
		if (l->dlink || (l->links && !l->sources))
			arch_choice_lto_to_sass(&plan->arch);
		return 0;
	}
	if (!compiles) {
		arch_choice_lto_to_sass(&plan->arch);
		warn_no_libnvvm(plan);
		return 0;
	}
	if (!l->links) {
		arch_choice_sass_to_lto(&plan->arch);
		*keep_dlto = 0;
		if (!l->rdc)
			strvec_push(&plan->argv, "-rdc=true");
		return 0;
	}
	if (plan->arch.n != 1)
		return xcc_fail(err, XCC_EUSAGE,
				"-dlto in one nvcc call that compiles and links takes one GPU (nvcc "
				"spells it -arch=sm_XX -dlto only): compile with -dc (cuda-xcc asks "
				"for each GPU's LTO-IR), then link the objects with -dlto");
	*arch_flag = 1;
	return 0;
}

/* The GPU flags (cuda-xcc's -gencode, unless the user has their own) and
 * the user's arguments. */
static int driver_gpu_args(const struct driver_opts *o, const struct nvcc_line *l,
			   struct driver_plan *plan, struct xcc_error *err)
{
	int keep_dlto, arch_flag;
	char tok[16];

	if (driver_lto(l, plan, &keep_dlto, &arch_flag, err))
		return -1;
	if (arch_flag)
		strvec_pushf(&plan->argv, "-arch=sm_%s",
			     gpu_cap_token(plan->arch.entries[0].cap, tok, sizeof tok));
	else if (!l->has_gencode)
		arch_choice_gencode(&plan->arch, &plan->argv);
	for (size_t i = 0; i < o->nvcc.n; i++) {
		const struct nvcc_arg *a = &o->nvcc.v[i];

		if (!keep_dlto && a->opt && a->opt->role == NVCC_DLTO)
			continue;
		strvec_push(&plan->argv, a->word);
		if (a->words == 2)
			strvec_push(&plan->argv, a->value);
	}
	return 0;
}

int driver_plan(const struct gpudb *db, const struct driver_opts *o, struct driver_plan *plan,
		struct xcc_error *err)
{
	struct sysroot s;
	struct nvcc_line line;
	struct host_compiler hc = { 0 };
	const struct target_profile *t;
	struct cuda_version v;
	const char *cuda_str;
	int opened = 0, rc = -1;

	memset(plan, 0, sizeof *plan);
	memset(&s, 0, sizeof s);
	/* What the user's nvcc arguments decide, read once for every stage. */
	nvcc_line_read(&o->nvcc, &line);

	/* What to build for: the sysroot, the target and release, the GPUs. */
	if (driver_open_sysroot(db, o, plan, &s, &opened, err) ||
	    driver_request(db, o, &s, opened, &t, &v, &cuda_str, err) ||
	    driver_arch(db, o, &line, t, v, cuda_str, opened, plan, err) ||
	    driver_check_sysroot(o, &s, opened, t, cuda_str, plan, err) ||
	    driver_host_compiler(db, &line, &s, opened, t, v, &hc, err))
		goto out;

	/* nvcc's command line: the sysroot's nvcc and what the user left out. */
	if (plan->sysroot)
		strvec_pushf(&plan->argv, "%s/bin/nvcc", plan->sysroot);
	else
		strvec_push(&plan->argv, "nvcc");
	/* One word each, NAME=VALUE: sccache takes a two-word -target-dir's
	 * value for a second input file ("multiple input files") and a bare
	 * -ccbin's for a file in the current directory to hash; the absolute
	 * path is the same on every runner, where a bare name is looked up. */
	if (line.ccbin || hc.path || hc.name)
		plan->host_compiler = xstrdup(line.ccbin ? line.ccbin : hc.path ? hc.path : hc.name);
	if (!line.ccbin)
		strvec_pushf(&plan->argv, "-ccbin=%s", plan->host_compiler);
	if (!line.has_target_dir)
		strvec_pushf(&plan->argv, "-target-dir=%s", plan->arch.target_dir);
	if (!line.has_arbin)
		strvec_pushf(&plan->argv, "-arbin=%s-ar", t->triple);
	if (driver_link_args(o, &s, opened, t, &line, plan, err))
		goto out;
	/* The sysroot's libraries and the stub libcuda.so.1 for the NEEDED of
	 * the libraries linked, which a cross ld finds by -rpath-link alone. */
	if (line.links && opened)
		link_rpath_nvcc_args(s.meta.dir, plan->arch.target_dir, &plan->argv,
				     &plan->warnings);

	/* What is checked after nvcc: the runtime floors of every linked program. */
	if (line.links)
		plan->linked_output = xstrdup(line.output ? line.output : "a.out");
	if (o->jetpack)
		plan->jetpack = xstrdup(o->jetpack);
	else if (opened && s.meta.jetpack)
		plan->jetpack = xstrdup(s.meta.jetpack);
	for (size_t i = 0; opened && i < s.meta.n_components; i++)
		if (s.meta.components[i].name)
			strvec_push(&plan->components, s.meta.components[i].name);
	if (driver_gpu_args(o, &line, plan, err))
		goto out;
	prefix_map_args(plan->sysroot_exists ? plan->sysroot : NULL, &o->nvcc_args, &plan->argv,
			&plan->warnings);
	rc = 0;
out:
	sysroot_close(&s);
	host_compiler_free(&hc);
	nvcc_line_free(&line);
	/* A failed plan owns nothing: the caller only reports the error. */
	if (rc)
		driver_plan_free(plan);
	return rc;
}

void driver_plan_free(struct driver_plan *plan)
{
	strvec_free(&plan->argv);
	free(plan->sysroot);
	free(plan->linked_output);
	free(plan->host_compiler);
	free(plan->target_libc);
	free(plan->target_libstdcxx);
	free(plan->target_libgcc_s);
	free(plan->create_command);
	free(plan->jetpack);
	strvec_free(&plan->components);
	strvec_free(&plan->warnings);
	arch_choice_free(&plan->arch);
	memset(plan, 0, sizeof *plan);
}

void driver_opts_init(struct driver_opts *o)
{
	memset(o, 0, sizeof *o);
	o->ptx = PTX_DEFAULT;
}

void driver_opts_free(struct driver_opts *o)
{
	strvec_free(&o->arch);
	strvec_free(&o->nvcc_args);
	nvcc_args_free(&o->nvcc);
	driver_opts_init(o);
}
