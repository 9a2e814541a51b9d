#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "db/hostcc.h"
#include "db/jetpack.h"
#include "db/request.h"
#include "elf/devroot.h"
#include "elf/glibc.h"
#include "sysroot/sysroot.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_open.h"
#include "use/doctor.h"
#include "use/doctor_int.h"
#include "use/foreign_cuda.h"
#include "use/toolchain.h"

static int host_is(const char *machine)
{
	struct utsname u;

	return uname(&u) == 0 && strcmp(u.machine, machine) == 0;
}

/* A Jetson sysroot is made for named GPUs (create refuses one without):
 * the sysroot's own, else the newest that the release serves, for the
 * command to work as printed. Caller frees; NULL for other targets. */
static char *create_hint_arch(const struct doctor_ctx *c)
{
	if (!c->target->jetson_only)
		return NULL;
	if (!c->have_meta || !c->sr.meta.capabilities.n)
		return flags_newest_jetson_arch(c->db, c->target, c->cuda);
	return strvec_join(&c->sr.meta.capabilities, ",");
}

static char *create_hint(const struct doctor_ctx *c)
{
	char b[32], *arch, *s;

	if (!c->target || !c->have_cuda)
		return xstrdup("cuda-xcc sysroot create --target T --cuda V (see 'cuda-xcc sysroot "
			       "create --help')");
	arch = create_hint_arch(c);
	s = xasprintf("cuda-xcc sysroot create --target %s --cuda %s%s%s%s%s", c->target->name,
			 cuda_version_str(c->cuda, b, sizeof b), c->sysroot ? " --dest " : "",
			 c->sysroot ? c->sysroot : "", arch ? " -arch " : "", arch ? arch : "");
	free(arch);
	return s;
}

/* --- the checks ------------------------------------------------------------ */

static void check_cross_gxx(struct doctor_ctx *c, struct doctor_report *r)
{
	struct host_compiler hc;
	struct xcc_error err = { 0 };
	char b[32];

	if (!c->target || !c->have_cuda) {
		doctor_add(r, "cross-g++", DOCTOR_SKIP,
		    xstrdup("no target and CUDA release to check for: give --sysroot DIR, or "
			    "--target T and --cuda V"), NULL);
		return;
	}
	cuda_version_str(c->cuda, b, sizeof b);
	if (c->have_meta && c->sr.meta.host_compiler) {
		char *path = proc_which(c->sr.meta.host_compiler);

		if (!path) {
			const struct host_compiler_limit *lim = gpudb_host_limit(c->db, c->cuda);
			const char *dash = strrchr(c->sr.meta.host_compiler, '-');
			/* The package of the g++ the sysroot names (g++-12), not the newest
			 * one CUDA takes: only that one puts the named g++ on PATH. */
			int major = dash && dash[1] >= '0' && dash[1] <= '9' ? atoi(dash + 1)
					  : lim ? lim->gcc_max : 0;
			char *pkg = hostcc_debian_package(c->target, major);

			doctor_add(r, "cross-g++", DOCTOR_FAIL,
			    xasprintf("%s, which the sysroot was made with, is not on PATH",
				      c->sr.meta.host_compiler),
			    xasprintf("apt-get install %s, or put the directory holding %s on PATH",
				      pkg, c->sr.meta.host_compiler));
			free(pkg);
			return;
		}
		free(path);
	}
	if (hostcc_find(c->db, c->target, c->cuda, 0, &hc, &err)) {
		const struct host_compiler_limit *lim = gpudb_host_limit(c->db, c->cuda);
		char *pkg = lim ? hostcc_debian_package(c->target, lim->gcc_max) : NULL;
		char *nl = strchr(err.msg, '\n');

		if (nl)
			*nl = '\0'; /* the rest is the fix, said below */
		doctor_add(r, "cross-g++", DOCTOR_FAIL, xstrdup(err.msg),
		    pkg ? xasprintf("apt-get install %s", pkg)
			: xasprintf("pass -ccbin with a %s g++", c->target->triple));
		free(pkg);
		return;
	}
	if (gpudb_host_limit(c->db, c->cuda) && gpudb_host_limit(c->db, c->cuda)->gcc_unverified)
		doctor_add(r, "cross-g++", DOCTOR_SKIP,
		    xasprintf("%s (gcc %d): which gcc CUDA %s accepts is unverified in cuda-xcc's "
			      "tables, so it was not checked (nvcc says when it compiles)", hc.path,
			      hc.major, b), NULL);
	else
		doctor_add(r, "cross-g++", DOCTOR_OK,
		    xasprintf("%s (gcc %d), accepted by CUDA %s", hc.path, hc.major, b), NULL);
	c->host_compiler = xstrdup(hc.path);
	host_compiler_free(&hc);
}

/* The qemu user-mode emulator the target's programs run under here. */
static char *qemu_for(const struct target_profile *t)
{
	char *name = xasprintf("qemu-%s", t->machine), *path = proc_which(name);

	if (!path) {
		char *static_name = xasprintf("%s-static", name);

		path = proc_which(static_name);
		free(static_name);
	}
	free(name);
	return path;
}

static void check_qemu(struct doctor_ctx *c, struct doctor_report *r)
{
	char *path;

	if (!c->target) {
		doctor_add(r, "qemu", DOCTOR_SKIP, xstrdup("no target given: nothing to check for"), NULL);
		return;
	}
	if (host_is(c->target->machine)) {
		doctor_add(r, "qemu", DOCTOR_SKIP,
		    xasprintf("not needed: %s programs run natively here", c->target->machine), NULL);
		return;
	}
	path = qemu_for(c->target);
	if (!path) {
		doctor_add(r, "qemu", DOCTOR_FAIL,
		    xasprintf("qemu-%s is not on PATH: 'cuda-xcc run' and ctest cannot run %s "
			      "programs here", c->target->machine, c->target->machine),
		    xstrdup("apt-get install qemu-user (or run on the device: cuda-xcc run "
			    "--device ssh://user@host)"));
		return;
	}
	doctor_add(r, "qemu", DOCTOR_OK, xasprintf("%s", path), NULL);
	free(path);
}

/* The Debian package of the cross gcc named gcc ("aarch64-linux-gnu-gcc"). */
static char *cross_gcc_package(const struct target_profile *t)
{
	char *pkg, *p;

	if (strcmp(t->machine, "x86_64") == 0)
		return xstrdup("gcc");
	/* Debian spells the triple with dashes in package names. */
	pkg = xasprintf("gcc-%s", t->triple);
	for (p = pkg; *p; p++)
		if (*p == '_')
			*p = '-';
	return pkg;
}

/* verify failed while the cross gcc it needs is missing: that is the
 * problem to name, and making the sysroot again would not help. The
 * sysroot's own problems, if any, come after. */
static void sysroot_fail_no_gcc(struct doctor_ctx *c, struct doctor_report *r,
				const struct strvec *problems, const char *gcc)
{
	char *mine = sysroot_missing_cross_gcc_problem(gcc), *pkg = cross_gcc_package(c->target);
	struct strvec other = STRVEC_INIT;
	char *also = NULL, *hint = NULL;

	for (size_t i = 0; i < problems->n; i++)
		if (strcmp(problems->v[i], mine) != 0)
			strvec_push(&other, problems->v[i]);
	if (other.n)
		also = xasprintf("; and it does not verify: %s%s", other.v[0],
				 other.n > 1 ? " (and more: 'cuda-xcc sysroot verify' lists them)" : "");
	doctor_add(r, "sysroot", DOCTOR_FAIL,
	    xasprintf("%s cannot be checked: the cross compiler %s, which finds the target's "
		      "libstdc++ and libgcc_s for its ELF dependencies (and which builds for it), "
		      "is not on PATH%s", c->sysroot, gcc, also ? also : ""),
	    other.n ? xasprintf("apt-get install %s, or put the directory holding %s on PATH; "
				"for the rest: %s", pkg, gcc, hint = create_hint(c))
		    : xasprintf("apt-get install %s, or put the directory holding %s on PATH",
				pkg, gcc));
	strvec_free(&other);
	free(also);
	free(hint);
	free(mine);
	free(pkg);
}

static void check_sysroot(struct doctor_ctx *c, struct doctor_report *r)
{
	struct strvec problems = STRVEC_INIT;
	struct xcc_error err = { 0 };
	enum sysroot_verify_depth depth;
	char *gcc;

	if (!c->sysroot) {
		if (!c->target || !c->have_cuda)
			doctor_add(r, "sysroot", DOCTOR_SKIP,
			    xstrdup("no sysroot given: give --sysroot DIR, or --target T and --cuda V "
				    "for the store's"), NULL);
		else
			doctor_add(r, "sysroot", DOCTOR_FAIL,
			    xasprintf("no sysroot for %s and CUDA %d.%d in the store",
				      c->target->name, c->cuda.major, c->cuda.minor),
			    create_hint(c));
		return;
	}
	if (!c->have_meta) {
		doctor_add(r, "sysroot", DOCTOR_FAIL, xstrdup(c->meta_error), create_hint(c));
		return;
	}
	gcc = sysroot_missing_cross_gcc(&c->sr);
	if (sysroot_verify(c->db, c->sysroot, 0, &problems, &depth, &err) && gcc) {
		sysroot_fail_no_gcc(c, r, &problems, gcc);
	} else if (problems.n || err.msg[0]) {
		char *first = problems.n ? xstrdup(problems.v[0]) : xstrdup(err.msg);

		doctor_add(r, "sysroot", DOCTOR_FAIL,
		    problems.n > 1 ? xasprintf("%s does not verify: %s (and %zu more problems; "
					       "'cuda-xcc sysroot verify %s' lists them)",
					       c->sysroot, first, problems.n - 1, c->sysroot)
				   : xasprintf("%s does not verify: %s", c->sysroot, first),
		    create_hint(c));
		free(first);
	} else {
		doctor_add(r, "sysroot", DOCTOR_OK,
		    xasprintf("%s (CUDA %s, %s, %s) verifies: %s", c->sysroot, c->sr.meta.cuda,
			      c->sr.meta.target, c->sr.meta.target_dir,
			      sysroot_verify_depth_text(depth)), NULL);
	}
	free(gcc);
	strvec_free(&problems);
}

/* The serving table sysroot create recorded: a GPU no library has code for
 * fails at run time with "no kernel image is available". */
static void check_serving(struct doctor_ctx *c, struct doctor_report *r)
{
	const struct sysroot_serving *t = &c->sr.meta.serving;
	struct strvec unserved = STRVEC_INIT;
	size_t libs = t->n_rows, jit = sysroot_serving_count(t, FATBIN_SERVED_PTX_JIT);

	if (!c->have_meta) {
		doctor_add(r, "serving", DOCTOR_SKIP, xstrdup("no sysroot to read the serving table of"),
		    NULL);
		return;
	}
	if (!t->recorded) {
		doctor_add(r, "serving", DOCTOR_SKIP,
		    xasprintf("%s records no serving table (made before cuda-xcc recorded one, or "
			      "no library carries device code)", c->sysroot),
		    NULL);
		return;
	}
	for (size_t i = 0; i < t->n_rows; i++)
		for (size_t k = 0; k < t->capabilities.n; k++)
			if (t->rows[i].verdicts[k] == FATBIN_NOT_SERVED)
				strvec_pushf(&unserved, "%s for %s", t->rows[i].library,
					     t->capabilities.v[k]);
	if (libs == 0) {
		doctor_add(r, "serving", DOCTOR_SKIP,
		    xstrdup("no target library carries device code: nothing to serve"), NULL);
	} else if (unserved.n) {
		char *list = strvec_join(&unserved, ", ");

		doctor_add(r, "serving", DOCTOR_FAIL,
		    xasprintf("no code in %s: such a GPU gets \"no kernel image is available\"",
			      list),
		    xasprintf("'cuda-xcc sysroot info %s' shows the table; choose GPUs the "
			      "libraries serve (-arch) or a CUDA release that serves them",
			      c->sysroot));
		free(list);
	} else {
		doctor_add(r, "serving", DOCTOR_OK,
		    xasprintf("every GPU the sysroot was made for is served by its %zu librar%s "
			      "with device code%s", libs, libs == 1 ? "y" : "ies",
			      jit ? " (some through PTX JIT: slow first start)" : ""),
		    NULL);
	}
	strvec_free(&unserved);
}

/* nvcc finds ptxas, cicc, fatbinary... through PATH: the sysroot's profile
 * must put its own first, and have them all, or another CUDA's are used. */
static void check_nvcc_path(struct doctor_ctx *c, struct doctor_report *r)
{
	/* cicc is in nvvm/bin in NVIDIA's layout, in bin in Debian's. */
	static const char *const tools[] = { "ptxas", "fatbinary", "nvlink", "cudafe++", "cicc",
					     NULL };
	char *profile_path, *profile, *line, *save = NULL;
	struct strvec missing = STRVEC_INIT, elsewhere = STRVEC_INIT;
	int first_path_ok = -1;

	if (!c->have_meta) {
		doctor_add(r, "nvcc-path", DOCTOR_SKIP, xstrdup("no sysroot to check the nvcc of"), NULL);
		return;
	}
	profile_path = xasprintf("%s/bin/nvcc.profile", c->sysroot);
	profile = file_read_text(profile_path, NULL);
	for (line = profile ? strtok_r(profile, "\n", &save) : NULL; line && first_path_ok < 0;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *p = line + strspn(line, " \t");
		const char *v;

		if (strncmp(p, "PATH", 4) != 0 || !strchr(" \t+=", p[4]))
			continue;
		v = strchr(p, '=');
		if (!v)
			continue;
		v++;
		v += strspn(v, " \t");
		/* The first PATH assignment starts with the sysroot's nvvm/bin and bin. */
		first_path_ok = strncmp(v, "$(_HERE_)/../nvvm/bin:$(_HERE_):", 32) == 0 ||
				strncmp(v, "$(_HERE_):$(_HERE_)/../nvvm/bin:", 32) == 0;
	}
	for (const char *const *t = tools; *t; t++) {
		char *path = xasprintf("%s/bin/%s", c->sysroot, *t);
		char *nvvm = xasprintf("%s/nvvm/bin/%s", c->sysroot, *t);

		if (access(path, X_OK) && access(nvvm, X_OK)) {
			char *other = proc_which(*t);

			strvec_push(&missing, *t);
			if (other)
				strvec_push(&elsewhere, other);
			free(other);
		}
		free(path);
		free(nvvm);
	}
	if (!profile) {
		doctor_add(r, "nvcc-path", DOCTOR_FAIL,
		    xasprintf("%s is missing: nvcc would take its tools from PATH", profile_path),
		    create_hint(c));
	} else if (first_path_ok != 1) {
		doctor_add(r, "nvcc-path", DOCTOR_FAIL,
		    xasprintf("%s does not put the sysroot's nvvm/bin and bin first on PATH: nvcc "
			      "may run another CUDA's ptxas, cicc or fatbinary found on PATH",
			      profile_path),
		    create_hint(c));
	} else if (missing.n) {
		char *m = strvec_join(&missing, ", ");
		char *e = elsewhere.n ? strvec_join(&elsewhere, ", ") : NULL;

		doctor_add(r, "nvcc-path", DOCTOR_FAIL,
		    e ? xasprintf("the sysroot lacks %s: nvcc would run %s from PATH instead", m, e)
		      : xasprintf("the sysroot lacks %s: nvcc cannot compile", m),
		    create_hint(c));
		free(m);
		free(e);
	} else {
		doctor_add(r, "nvcc-path", DOCTOR_OK,
		    xasprintf("%s/bin/nvcc runs its own ptxas, cicc, fatbinary, nvlink and "
			      "cudafe++ whatever PATH holds", c->sysroot), NULL);
	}
	strvec_free(&missing);
	strvec_free(&elsewhere);
	free(profile);
	free(profile_path);
}

/* A JetPack that runs the CUDA release only through NVIDIA's cuda-compat
 * package, said without a sysroot. */
static char *compat_no_sysroot(const struct jetpack_release *jp, struct cuda_version v)
{
	char *dir = jetpack_compat_dir(v), *s, b[16];

	s = xasprintf("JetPack %s ships CUDA %s; its boards run CUDA %d.%d only with NVIDIA's "
		      "cuda-compat package installed on the board (cuda-compat-%d-%d, libcuda.so.* in "
		      "%s; the redist component %s); no sysroot to say which boards", jp->version,
		      cuda_version_str(jp->cuda, b, sizeof b), v.major, v.minor, v.major, v.minor,
		      dir, JETPACK_COMPAT_COMPONENT);
	free(dir);
	return s;
}

/* What the release's boards need beyond the program (cuda-compat), with
 * whether the sysroot carries it, pushed to parts; how many needs. */
static size_t jetpack_needs_parts(struct doctor_ctx *c, const struct arch_choice *choice,
				  struct strvec *parts)
{
	struct board_needs needs;
	struct strvec have = STRVEC_INIT;
	const struct sysroot_meta *m = &c->sr.meta;
	size_t n_needs;

	for (size_t i = 0; i < m->n_components; i++)
		if (m->components[i].name)
			strvec_push(&have, m->components[i].name);
	jetpack_board_needs(c->o->jetpacks, c->jp, choice, &needs);
	for (size_t i = 0; i < needs.n; i++) {
		const struct board_need *n = &needs.v[i];

		strvec_push(parts, n->why);
		if (strvec_contains(&have, n->component))
			strvec_pushf(parts, "the sysroot has the %s component (targets/%s/%s/), "
				     "which run --device sends along", n->component, m->target_dir,
				     n->subdir);
		else
			strvec_pushf(parts, "the sysroot lacks the %s component: install %s on "
				     "the board, or make the sysroot again with --components %s",
				     n->component, n->package ? n->package : "it", n->component);
	}
	n_needs = needs.n;
	board_needs_free(&needs);
	strvec_free(&have);
	return n_needs;
}

/* The release runs the sysroot's CUDA on its GPUs, perhaps only with
 * cuda-compat on the board (then it "supports" them, and the needs are
 * said). An L4T release the table holds unverified is shown as such (a
 * line whose points are not all verified shows none); a CUDA it holds
 * unverified makes the check say so instead of ok. */
static void jetpack_ok(struct doctor_ctx *c, struct doctor_report *r, const struct arch_choice *ch,
		       size_t first_warning)
{
	const struct jetpack_release *jp = c->jp;
	struct strvec parts = STRVEC_INIT, needs = STRVEC_INIT;
	char *caps = strvec_join(&c->sr.meta.capabilities, ", "), *l4t = NULL, *what, b[32];
	int skip = ch->warnings.n > first_warning;
	size_t n_needs = jetpack_needs_parts(c, ch, &needs);

	if (jp->line || !jetpack_unverified(jp, "l4t"))
		l4t = jetpack_l4t_text(jp);
	what = xasprintf("JetPack %s (%s%sUbuntu %s)", jp->version, l4t ? l4t : "",
			 l4t ? ", " : "", jp->ubuntu);
	cuda_version_str(c->cuda, b, sizeof b);
	if (skip)
		strvec_pushf(&parts, "%s would run CUDA %s on %s by cuda-xcc's table, but: %s", what,
			     b, caps, ch->warnings.v[ch->warnings.n - 1]);
	else if (n_needs)
		strvec_pushf(&parts, "%s supports %s", what, caps);
	else
		strvec_pushf(&parts, "%s runs CUDA %s on %s", what, b, caps);
	for (size_t i = 0; i < needs.n; i++)
		strvec_push(&parts, needs.v[i]);
	doctor_add(r, "jetpack", skip ? DOCTOR_SKIP : DOCTOR_OK, strvec_join(&parts, "; "), NULL);
	strvec_free(&parts);
	strvec_free(&needs);
	free(what);
	free(l4t);
	free(caps);
}

/* Board x CUDA x JetPack: the JetPack release must support every Jetson GPU
 * the sysroot was made for and run its CUDA release. Said for --target
 * jetson, and for sbsa when a JetPack is named (JetPack 7 boards use SBSA
 * libraries). */
static void check_jetpack(struct doctor_ctx *c, struct doctor_report *r)
{
	struct arch_choice choice;
	struct xcc_error err = { 0 };
	char b[32];
	size_t nw;

	if (!c->target || (!c->jp && !c->target->jetson_only))
		return;
	if (!c->jp) {
		doctor_add(r, "jetpack", DOCTOR_SKIP,
		    xstrdup("no JetPack release given or recorded: --jetpack V checks that its "
			    "boards run this CUDA and compares with its glibc and libstdc++"), NULL);
		return;
	}
	if (!c->have_cuda) {
		doctor_add(r, "jetpack", DOCTOR_SKIP,
		    xasprintf("JetPack %s: no CUDA release to check it with (--cuda V or a sysroot)",
			      c->jp->version), NULL);
		return;
	}
	if (!c->have_meta || !c->sr.meta.capabilities.n) {
		struct cuda_version max = jetpack_cuda_max(c->jp);
		char m[32];

		cuda_version_str(c->cuda, b, sizeof b);
		cuda_version_str(max, m, sizeof m);
		const struct jetpack_gpu_compat *g = jetpack_gpu_compat_any(c->jp, c->cuda);

		if (cuda_version_cmp(c->cuda, max) > 0 && g)
			doctor_add(r, "jetpack", DOCTOR_SKIP,
			    xasprintf("JetPack %s runs CUDA up to %s; CUDA %s only on sm_%d%d, with "
				      "NVIDIA's %s on the board%s; no sysroot to say which GPUs",
				      c->jp->version, m, b, g->major, g->minor, g->component,
				      g->unverified ? " (unverified in cuda-xcc's table: no NVIDIA "
				      "page states it)" : ""), NULL);
		else if (cuda_version_cmp(c->cuda, max) > 0)
			doctor_add(r, "jetpack", DOCTOR_FAIL,
			    xasprintf("JetPack %s runs CUDA up to %s, not %s", c->jp->version, m, b),
			    xasprintf("use CUDA %s or older, or a newer JetPack on the board (%s)", m,
				      "cuda-xcc gpus --target jetson lists each board's releases"));
		else if (jetpack_unverified(c->jp, "cuda") || jetpack_unverified(c->jp, "cuda_reachable"))
			doctor_add(r, "jetpack", DOCTOR_SKIP,
			    xasprintf("JetPack %s would run CUDA %s (up to %s) by cuda-xcc's table, "
				      "but its CUDA there is unverified (no NVIDIA page confirmed it)%s",
				      c->jp->version, b, m, jetpack_needs_compat(c->jp, c->cuda) ?
				      "; with that CUDA its boards would need NVIDIA's cuda-compat "
				      "package installed on the board" : ""), NULL);
		else if (jetpack_needs_compat(c->jp, c->cuda))
			doctor_add(r, "jetpack", DOCTOR_OK, compat_no_sysroot(c->jp, c->cuda), NULL);
		else
			doctor_add(r, "jetpack", DOCTOR_OK,
			    xasprintf("JetPack %s runs CUDA %s (up to %s); no sysroot to say which "
				      "boards", c->jp->version, b, m), NULL);
		return;
	}
	if (flags_resolve(c->db, c->target, c->cuda, &c->sr.meta.capabilities, PTX_NONE, &choice,
			  &err)) {
		doctor_add(r, "jetpack", DOCTOR_FAIL,
		    xasprintf("the sysroot's GPUs do not resolve: %s", err.msg), create_hint(c));
		return;
	}
	nw = choice.warnings.n;
	if (jetpack_check(c->o->jetpacks, c->jp, &choice, &err)) {
		doctor_add(r, "jetpack", DOCTOR_FAIL, xstrdup(err.msg),
		    xstrdup("make the sysroot for a CUDA release and GPUs that JetPack runs "
			    "(--jetpack V on sysroot create checks it), or name the JetPack the "
			    "board really has"));
	} else {
		jetpack_ok(c, r, &choice, nw);
	}
	arch_choice_free(&choice);
}

/* A binfmt_misc problem: a warning while qemu is there, since 'cuda-xcc
 * run', CTest, try_run (CMAKE_CROSSCOMPILING_EMULATOR) and meson test
 * (exe_wrapper) start programs through the emulator and do not need it;
 * only starting one directly by path does. Takes problem and fix. */
static void binfmt_add(struct doctor_ctx *c, struct doctor_report *r, char *problem, char *fix)
{
	char *qemu = qemu_for(c->target);
	const char *m = c->target->machine;

	if (qemu) {
		doctor_add(r, "binfmt", DOCTOR_WARN,
		    xasprintf("%s: %s programs cannot be started directly by path (a Makefile or "
			      "script running ./prog); cuda-xcc run, ctest, add_custom_command and "
			      "CMake's try_run (CMAKE_CROSSCOMPILING_EMULATOR of the toolchain file) "
			      "and meson test (exe_wrapper) run them through %s and work", problem,
			      m, qemu),
		    xasprintf("%s; or start them through cuda-xcc run, as ctest does", fix));
		free(fix);
	} else
		doctor_add(r, "binfmt", DOCTOR_FAIL,
		    xasprintf("%s: %s programs cannot be started directly, nor through qemu (not "
			      "on PATH)", problem, m), fix);
	free(qemu);
	free(problem);
}

/* binfmt_misc lets the kernel start target programs through qemu by
 * themselves: what runs a program by its path needs it; what goes through
 * the emulator does not. */
static void check_binfmt(struct doctor_ctx *c, struct doctor_report *r)
{
	const char *dir = c->o->binfmt_dir ? c->o->binfmt_dir : "/proc/sys/fs/binfmt_misc";
	char *status_path, *status = NULL, *entry_path = NULL, *entry = NULL, *interp = NULL;
	static const char fix[] = "apt-get install qemu-user-binfmt (it registers qemu with "
				  "binfmt_misc; in a container, the host must register it)";

	if (!c->target) {
		doctor_add(r, "binfmt", DOCTOR_SKIP, xstrdup("no target given: nothing to check for"), NULL);
		return;
	}
	if (host_is(c->target->machine)) {
		doctor_add(r, "binfmt", DOCTOR_SKIP,
		    xasprintf("not needed: %s programs run natively here", c->target->machine), NULL);
		return;
	}
	status_path = xasprintf("%s/status", dir);
	status = file_read_text(status_path, NULL);
	if (!status) {
		binfmt_add(c, r, xasprintf("binfmt_misc is not mounted at %s", dir),
		    xasprintf("mount -t binfmt_misc binfmt_misc %s; %s", dir, fix));
		goto out;
	}
	if (strncmp(status, "enabled", 7) != 0) {
		binfmt_add(c, r, xasprintf("binfmt_misc is disabled (%s)", status_path),
		    xasprintf("echo 1 > %s", status_path));
		goto out;
	}
	entry_path = xasprintf("%s/qemu-%s", dir, c->target->machine);
	entry = file_read_text(entry_path, NULL);
	if (!entry) {
		binfmt_add(c, r, xasprintf("no qemu-%s entry in %s", c->target->machine, dir),
		    xstrdup(fix));
		goto out;
	}
	{
		char *p = strstr(entry, "interpreter ");

		if (p) {
			p += strlen("interpreter ");
			interp = xstrndup(p, strcspn(p, "\n"));
		}
	}
	if (strncmp(entry, "enabled", 7) != 0) {
		binfmt_add(c, r, xasprintf("%s is disabled", entry_path),
		    xasprintf("echo 1 > %s", entry_path));
	} else if (!interp || access(interp, X_OK)) {
		binfmt_add(c, r, xasprintf("%s names the interpreter %s, which is not there",
					   entry_path, interp ? interp : "(none)"),
		    xstrdup(fix));
	} else {
		doctor_add(r, "binfmt", DOCTOR_OK, xasprintf("%s runs %s programs through %s", entry_path,
						      c->target->machine, interp), NULL);
	}
out:
	free(status_path);
	free(status);
	free(entry_path);
	free(entry);
	free(interp);
}

static void check_ccache(struct doctor_ctx *c, struct doctor_report *r)
{
	char *path = proc_which("ccache");

	(void)c;
	if (!path) {
		doctor_add(r, "ccache", DOCTOR_FAIL,
		    xstrdup("ccache is not on PATH: every rebuild compiles everything again"),
		    xstrdup("apt-get install ccache, then -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache "
			    "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"));
		return;
	}
	doctor_add(r, "ccache", DOCTOR_OK, path, NULL);
}

/* --- the build systems cuda-xcc writes files for ------------------------------ */

/* The version `TOOL --version` prints: the first word of its first line
 * that starts with a digit ("cmake version 3.25.1", "1.0.1"); NULL when
 * it does not run or prints none. */
static char *tool_version(const char *path)
{
	char *argv[] = { (char *)path, "--version", NULL }, *out = NULL, *v = NULL, *p;
	struct xcc_error err = { 0 };

	if (proc_capture(argv, &out, &err) == 0 && out) {
		out[strcspn(out, "\n")] = '\0';
		for (p = out; *p; p += strcspn(p, " "), p += strspn(p, " "))
			if (*p >= '0' && *p <= '9') {
				v = xstrndup(p, strspn(p, "0123456789."));
				break;
			}
	}
	free(out);
	return v;
}

/* A build system cuda-xcc writes files for, and what they need of it. */
struct build_system {
	const char *name;            /* its command, and the check's name */
	const char *what;            /* who needs it */
	const char *minimum;         /* the oldest version that reads cuda-xcc's file */
	const char *why;             /* that file */
	const char *install;         /* how to install it */
	const char *backend;         /* a command it cannot work without, or NULL */
	const char *backend_install; /* how to install that */
};

/* A build system is needed only by those who use it: not installed is
 * said (skip), too old to read cuda-xcc's file, or without its backend,
 * is a failure. */
static void check_build_system(struct doctor_report *r, const struct build_system *bs)
{
	char *path = proc_which(bs->name), *v, *backend_path = NULL;

	if (!path) {
		doctor_add(r, bs->name, DOCTOR_SKIP,
		    xasprintf("%s is not on PATH: needed only for %s (%s)", bs->name, bs->what,
			      bs->install),
		    NULL);
		return;
	}
	if (!(v = tool_version(path))) {
		doctor_add(r, bs->name, DOCTOR_FAIL, xasprintf("%s --version prints no version", path),
		    xasprintf("check that %s runs; %s", path, bs->install));
	} else if (strverscmp(v, bs->minimum) < 0) {
		doctor_add(r, bs->name, DOCTOR_FAIL,
		    xasprintf("%s is %s %s; %s needs %s or later", path, bs->name, v, bs->why,
			      bs->minimum),
		    xasprintf("install %s %s or later (%s)", bs->name, bs->minimum, bs->install));
	} else if (bs->backend && !(backend_path = proc_which(bs->backend))) {
		doctor_add(r, bs->name, DOCTOR_FAIL,
		    xasprintf("%s is installed but %s, its backend, is not on PATH", bs->name,
			      bs->backend),
		    xstrdup(bs->backend_install));
	} else {
		doctor_add(r, bs->name, DOCTOR_OK,
		    xasprintf("%s (%s %s; %s needs %s or later)", path, bs->name, v, bs->why,
			      bs->minimum),
		    NULL);
	}
	free(backend_path);
	free(v);
	free(path);
}

static void check_cmake(struct doctor_ctx *c, struct doctor_report *r)
{
	const char *dir = toolchain_data_dir();
	char *file = dir ? xasprintf("%s/cmake/cuda-xcc-toolchain.cmake", dir) : NULL;
	char *minimum = file ? toolchain_cmake_minimum(file) : NULL, *why;

	(void)c;
	if (!minimum) {
		doctor_add(r, "cmake", DOCTOR_FAIL,
		    xasprintf("the CMake toolchain file shipped with cuda-xcc %s",
			      file ? "says no CMake version it needs" : "is not installed"),
		    xstrdup("reinstall cuda-xcc (make install puts it under share/cuda-xcc/cmake)"));
		free(file);
		return;
	}
	why = xasprintf("the toolchain file %s", file);
	check_build_system(r, &(struct build_system){ .name = "cmake", .what = "CMake projects",
						      .minimum = minimum, .why = why,
						      .install = "apt-get install cmake" });
	free(why);
	free(minimum);
	free(file);
}

/* Meson's own backend is ninja: a Meson without it configures nothing. */
static void check_meson(struct doctor_ctx *c, struct doctor_report *r)
{
	static const struct build_system meson = {
		.name = "meson",
		.what = "Meson projects",
		.minimum = TOOLCHAIN_MESON_MINIMUM,
		.why = "the cross file of 'cuda-xcc toolchain meson'",
		.install = "apt-get install meson ninja-build",
		.backend = "ninja",
		.backend_install = "apt-get install ninja-build",
	};

	(void)c;
	check_build_system(r, &meson);
}

/* Another CUDA in the environment. The driver and check-link (CMake's
 * linker launcher, Meson's C and C++ compilers) take its entries out of
 * LIBRARY_PATH and CPATH, the CMake toolchain file puts the sysroot in
 * CUDA_HOME, CUDA_PATH, CUDAToolkit_ROOT, CUDACXX and first on PATH: only
 * the header search paths are a failure, which the CMake toolchain file
 * refuses (CMake runs its compilers without a launcher of cuda-xcc's). */
static void check_foreign_cuda(struct doctor_ctx *c, struct doctor_report *r)
{
	struct strvec found = STRVEC_INIT;
	int search = 0;
	char *list;

	foreign_cuda_scan(c->sysroot, &found);
	if (!found.n) {
		doctor_add(r, "foreign-cuda", DOCTOR_OK,
		    xstrdup("no other CUDA in CUDA_HOME, CUDA_PATH, CUDA_ROOT, CUDAToolkit_ROOT, "
			    "CUDACXX, PATH, LIBRARY_PATH, CPATH, C_INCLUDE_PATH or "
			    "CPLUS_INCLUDE_PATH"), NULL);
		strvec_free(&found);
		return;
	}
	for (size_t i = 0; i < found.n; i++)
		if (strstr(found.v[i], "PATH holds ") && strncmp(found.v[i], "PATH ", 5) != 0 &&
		    strncmp(found.v[i], "LIBRARY_PATH ", 13) != 0)
			search = 1;
	list = strvec_join(&found, "; ");
	if (search)
		doctor_add(r, "foreign-cuda", DOCTOR_FAIL,
		    xasprintf("another CUDA than the sysroot's is in the environment (%s): the "
			      "compilers read CPATH, C_INCLUDE_PATH and CPLUS_INCLUDE_PATH at every "
			      "compile, and the CMake toolchain file refuses them", list),
		    xstrdup("unset CPATH, C_INCLUDE_PATH and CPLUS_INCLUDE_PATH, or drop their "
			    "entries in the other CUDA, for cross builds"));
	else
		doctor_add(r, "foreign-cuda", DOCTOR_OK,
		    xasprintf("another CUDA than the sysroot's is in the environment (%s): the "
			      "toolchain files and the driver use the sysroot's instead, but a "
			      "Makefile or script of the project's own reading these takes the "
			      "other one", list), NULL);
	free(list);
	strvec_free(&found);
}

/* --- the whole report -------------------------------------------------------- */

static int resolve(struct doctor_ctx *c, struct xcc_error *err)
{
	const struct doctor_opts *o = c->o;
	const char *dir = o->sysroot ? o->sysroot : getenv("CUDA_XCC_SYSROOT");
	/* The device root is checked by glibc-floor, as a finding. */
	const struct sysroot_want open_want = { .inspect = 1 },
				  want = { .target = o->target, .cuda = o->cuda };
	struct xcc_error e = { 0 };

	if (o->target && request_target(c->db, o->target, &c->target, err))
		return -1;
	if (o->cuda) {
		if (request_cuda(o->cuda, &c->cuda, err))
			return -1;
		c->have_cuda = 1;
	}
	if (dir && *dir) {
		c->sysroot = xstrdup(dir);
	} else if (c->target && c->have_cuda) {
		char b[32];
		char *store = sysroot_store_path(c->target->name,
						 cuda_version_str(c->cuda, b, sizeof b));

		if (file_is_dir(store))
			c->sysroot = store;
		else
			free(store);
	}
	if (!c->sysroot)
		return 0;
	/* A sysroot that cannot be opened is a finding of the report; one made
	 * for another target or CUDA than the command line names is refused. */
	if (sysroot_open(c->db, c->sysroot, &open_want, &c->sr, &e)) {
		c->meta_error = xstrdup(e.msg);
		return 0;
	}
	c->have_meta = 1;
	if (sysroot_check_want(&c->sr, &want, err))
		return -1;
	c->target = c->sr.target;
	c->cuda = c->sr.cuda;
	c->have_cuda = 1;
	return 0;
}

/* --jetpack, else the sysroot's own: Jetson only, and the two must agree. */
static int resolve_jetpack(struct doctor_ctx *c, struct xcc_error *err)
{
	const char *recorded = c->have_meta ? c->sr.meta.jetpack : NULL;
	const char *v = c->o->jetpack ? c->o->jetpack : recorded;

	if (!v)
		return 0;
	if (!c->o->jetpacks)
		return xcc_fail(err, XCC_EFAIL, "no JetPack data loaded");
	if (c->o->jetpack) {
		if (request_jetpack(c->o->jetpacks, v, &c->jp, err))
			return -1;
	} else if (!(c->jp = jetpack_find(c->o->jetpacks, v))) {
		return xcc_fail(err, XCC_EFAIL, "%s records JetPack %s, which this cuda-xcc does "
				"not know: update cuda-xcc or name a release with --jetpack",
				c->sysroot, v);
	}
	/* 5.1.2 recorded and --jetpack 5.1.3 given: one line, one set of floors. */
	if (recorded && c->o->jetpack &&
	    jetpack_find_line(c->o->jetpacks, recorded) != jetpack_line(c->jp))
		return xcc_fail(err, XCC_EUSAGE, "%s was made for JetPack %s, not %s", c->sysroot,
				recorded, c->o->jetpack);
	if (!c->target)
		c->target = gpudb_target(c->db, "jetson");
	if (!c->target || strcmp(c->target->machine, "aarch64") != 0)
		return xcc_fail(err, XCC_EUSAGE, "--jetpack %s: JetPack runs only on Jetson boards, "
				"not on --target %s; drop --jetpack", v,
				c->target ? c->target->name : "?");
	return 0;
}

int doctor_run(const struct gpudb *db, const struct doctor_opts *o, struct doctor_report *r,
	       struct xcc_error *err)
{
	struct doctor_ctx c = { .db = db, .o = o };
	char b[32];
	int rc = -1;

	memset(r, 0, sizeof *r);
	if (resolve(&c, err) || resolve_jetpack(&c, err))
		goto out;
	if (c.target)
		r->target = xstrdup(c.target->name);
	if (c.have_cuda)
		r->cuda = xstrdup(cuda_version_str(c.cuda, b, sizeof b));
	if (c.sysroot)
		r->sysroot = xstrdup(c.sysroot);
	check_cross_gxx(&c, r);
	check_qemu(&c, r);
	check_sysroot(&c, r);
	check_serving(&c, r);
	check_nvcc_path(&c, r);
	check_foreign_cuda(&c, r);
	check_jetpack(&c, r);
	doctor_check_floor(&c, r);
	doctor_check_target_fs_links(&c, r);
	check_binfmt(&c, r);
	check_ccache(&c, r);
	check_cmake(&c, r);
	check_meson(&c, r);
	rc = 0;
out:
	sysroot_close(&c.sr);
	free(c.sysroot);
	free(c.meta_error);
	free(c.host_compiler);
	return rc;
}
