#include <config.h>

#include <archive.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/xalloc.h"
#include "db/jetpack.h"
#include "db/request.h"
#include "elf/autopatch.h"
#include "elf/devroot.h"
#include "elf/elfinfo.h"
#include "pkg/fetch.h"
#include "sysroot/sysroot_open.h"
#include "use/linkdirs.h"
#include "use/run.h"

/* The qemu user-mode emulator for an ELF machine; NULL when there is none. */
static char *qemu_name(const struct elfinfo *e)
{
	switch (e->machine) {
	case EM_AARCH64:
		return xstrdup(e->data == ELFDATA2MSB ? "qemu-aarch64_be" : "qemu-aarch64");
	case EM_ARM:
		return xstrdup(e->data == ELFDATA2MSB ? "qemu-armeb" : "qemu-arm");
	case EM_PPC64:
		return xstrdup(e->data == ELFDATA2LSB ? "qemu-ppc64le" : "qemu-ppc64");
	case EM_RISCV:
		return xstrdup(e->elfclass == ELFCLASS32 ? "qemu-riscv32" : "qemu-riscv64");
	case EM_X86_64:
		return xstrdup("qemu-x86_64");
	case EM_386:
		return xstrdup("qemu-i386");
	case EM_S390:
		return xstrdup("qemu-s390x");
	default:
		return NULL;
	}
}

static int host_runs_natively(const char *machine)
{
	struct utsname u;

	if (uname(&u))
		return 0;
	/* An x86_64 kernel also runs i386 programs. */
	return strcmp(u.machine, machine) == 0 ||
	       (strcmp(u.machine, "x86_64") == 0 && strcmp(machine, "i386") == 0);
}

/* A target profile whose machine is this one: its triple names the cross
 * toolchain's /usr/<triple>. */
static const struct target_profile *profile_for_machine(const struct gpudb *db,
							 const char *machine)
{
	for (size_t i = 0; i < db->n_targets; i++)
		if (strcmp(db->targets[i].machine, machine) == 0)
			return &db->targets[i];
	return NULL;
}

/* PROGRAM as given when it names a file (qemu's rule), else on PATH. */
static char *find_program(const char *name)
{
	struct stat st;

	if (strchr(name, '/') || (stat(name, &st) == 0 && S_ISREG(st.st_mode)))
		return xstrdup(name);
	return proc_which(name);
}

static void push_dir_if_exists(struct strvec *dirs, char *dir)
{
	if (file_is_dir(dir) && !strvec_contains(dirs, dir))
		strvec_push(dirs, dir);
	free(dir);
}

/* The stub libcuda as libcuda.so.1 on the program's library path: a
 * driver-API program then starts under qemu and its cuInit fails cleanly
 * (CUDA_ERROR_STUB_LIBRARY). */
static int push_stub_libcuda(const char *sysroot, const char *target_dir, struct strvec *dirs,
			     struct xcc_error *err)
{
	char *dir;

	if (stub_libcuda_dir(sysroot, target_dir, &dir, err))
		return xcc_error_prefix(err, "--stub-libcuda");
	strvec_push(dirs, dir);
	free(dir);
	return 0;
}

/* The sysroot's copy of a compat component: the shared libraries of
 * targets/<dir>/<subdir>/ (libcuda.so.1 and what it loads), sorted. */
static void compat_files(const char *sysroot, const char *target_dir, const char *subdir,
			 struct strvec *files)
{
	char *dir = xasprintf("%s/targets/%s/%s", sysroot, target_dir, subdir);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strstr(e->d_name, ".so") && e->d_name[0] != '.')
			strvec_pushf(files, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
	if (files->n)
		strvec_sort(files);
	free(dir);
}

/* What the board needs for the sysroot's CUDA and GPUs on its JetPack:
 * checked on the device by a device run. A sysroot whose GPUs or JetPack
 * no longer resolve was refused by the opener or is verify's to report. */
static void plan_compat(const struct gpudb *db, const struct run_opts *o, const struct sysroot *s,
			struct run_plan *plan)
{
	const struct jetpack_release *jp = NULL;
	struct jetpack_db jdb;
	struct arch_choice choice;
	struct board_needs needs;
	struct cuda_version v;
	struct xcc_error e2 = { 0 };

	if (!o->device || !s->meta.capabilities.n || cuda_version_parse(s->meta.cuda, &v) ||
	    jetpack_db_load(&jdb, db, &e2))
		return;
	if ((s->meta.jetpack && !(jp = jetpack_find(&jdb, s->meta.jetpack))) ||
	    flags_resolve(db, s->target, v, &s->meta.capabilities, PTX_NONE, &choice, &e2)) {
		jetpack_db_free(&jdb);
		return;
	}
	jetpack_board_needs(&jdb, jp, &choice, &needs);
	plan->compat = xmalloc((needs.n + 1) * sizeof *plan->compat);
	for (size_t i = 0; i < needs.n; i++) {
		struct run_compat *c = &plan->compat[plan->n_compat++];
		const struct board_need *n = &needs.v[i];

		memset(c, 0, sizeof *c);
		c->component = xstrdup(n->component);
		c->package = n->package ? xstrdup(n->package) : NULL;
		c->why = xstrdup(n->why);
		if (n->dir && o->device_cuda)
			c->device_dir = xasprintf("%s/%s", o->device_cuda, n->subdir);
		else if (n->dir)
			c->device_dir = xstrdup(n->dir);
		compat_files(plan->sysroot, s->meta.target_dir, n->subdir, &c->files);
	}
	board_needs_free(&needs);
	arch_choice_free(&choice);
	jetpack_db_free(&jdb);
}

/* The common part of a local and a remote run: program, machine, sysroot,
 * loader prefix and library dirs. */
static int plan_target(const struct gpudb *db, const struct run_opts *o, struct run_plan *plan,
		       struct elfinfo *elf, struct xcc_error *err)
{
	const char *sysroot = o->sysroot ? o->sysroot : getenv("CUDA_XCC_SYSROOT");
	const struct target_profile *profile = NULL;
	struct sysroot s = { 0 };
	int have_meta = 0;

	memset(plan, 0, sizeof *plan);
	if (!o->argv || !o->argv[0])
		return xcc_fail(err, XCC_EUSAGE, "no program to run: give PROGRAM [ARGS...]");
	plan->program = find_program(o->argv[0]);
	if (!plan->program)
		return xcc_fail(err, XCC_EUSAGE, "%s: no such file (and not found on PATH)",
				o->argv[0]);
	if (access(plan->program, F_OK))
		return xcc_fail(err, XCC_EUSAGE, "%s: %s", plan->program, strerror(errno));
	if (elfinfo_read(plan->program, elf, err))
		return xcc_error_prefix(err, "cannot run it: it must be a program for the target");
	if (elf->type != ET_EXEC && elf->type != ET_DYN)
		return xcc_fail(err, XCC_EUSAGE, "%s is an ELF file but not a program", plan->program);
	plan->machine = elfinfo_machine_name(elf->machine, elf->elfclass);

	if (sysroot && *sysroot) {
		struct sysroot_want want = { .target_fs = o->target_fs };

		if (sysroot_open(db, sysroot, &want, &s, err))
			return -1;
		have_meta = 1;
		plan->sysroot = xstrdup(sysroot);
		/* The sysroot's CUDA is the one the board must run, whichever
		 * program goes there. */
		plan_compat(db, o, &s, plan);
		profile = s.target;
		if (strcmp(profile->machine, plan->machine) != 0)
			profile = NULL; /* a build-machine tool of the project: the sysroot is not its */
		/* lib/nvidia: L4T's multimedia libraries (l4t_multimedia), where the
		 * board keeps them too (usr/lib/aarch64-linux-gnu/nvidia). */
		if (profile) {
			push_dir_if_exists(&plan->lib_dirs,
					   xasprintf("%s/targets/%s/lib", sysroot, s.meta.target_dir));
			push_dir_if_exists(&plan->lib_dirs, xasprintf("%s/targets/%s/lib/nvidia",
								      sysroot, s.meta.target_dir));
		}
		if (profile && o->stub_libcuda &&
		    push_stub_libcuda(sysroot, s.meta.target_dir, &plan->lib_dirs, err))
			goto fail;
	}
	if (o->stub_libcuda && !have_meta) {
		xcc_fail(err, XCC_EUSAGE, "--stub-libcuda takes the stub libcuda.so of a sysroot: "
			 "give --sysroot DIR (or set CUDA_XCC_SYSROOT)");
		goto fail;
	}
	if (!profile)
		profile = profile_for_machine(db, plan->machine);
	if (profile)
		plan->triple = xstrdup(profile->triple);
	plan->native = host_runs_natively(plan->machine);

	if (o->target_fs) {
		if (request_rootfs(o->target_fs, err))
			goto fail;
		if (plan->native) {
			xcc_fail(err, XCC_EUSAGE,
				 "%s is built for %s: it runs with this machine's own loader and "
				 "libraries, so --target-fs cannot apply; drop --target-fs or run it "
				 "on the device with --device", plan->program, plan->machine);
			goto fail;
		}
		plan->prefix = xstrdup(o->target_fs);
	} else if (!plan->native && have_meta && s.target_fs && profile) {
		plan->prefix = xstrdup(s.target_fs);
	} else if (!plan->native && plan->triple) {
		plan->prefix = xasprintf("/usr/%s", plan->triple);
		if (!file_is_dir(plan->prefix) && !elf->is_static) {
			xcc_fail(err, XCC_EFAIL,
				 "%s is not there: it holds the %s C library and loader the program "
				 "needs; install the cross toolchain (apt-get install g++-%s) or give "
				 "--target-fs ROOTFS", plan->prefix, plan->machine, plan->triple);
			goto fail;
		}
	}
	sysroot_close(&s);
	return 0;
fail:
	sysroot_close(&s);
	return -1;
}

int run_plan_target(const struct gpudb *db, const struct run_opts *o, struct run_plan *plan,
		    struct xcc_error *err)
{
	struct elfinfo elf;
	int rc;

	memset(&elf, 0, sizeof elf);
	rc = plan_target(db, o, plan, &elf, err);
	elfinfo_free(&elf);
	if (rc)
		run_plan_free(plan);
	return rc;
}

/*
 * A device root taken as it is may hold absolute symlinks (Debian 11's,
 * Ubuntu's and L4T's library dirs do). qemu -L looks a path up inside the
 * root, but the kernel follows an absolute link on this machine: the
 * library dangles there, or this machine's own arm64 multiarch copy gets
 * loaded. The libraries are read through the driver's overlay of corrected
 * twins (devroot.h), last on LD_LIBRARY_PATH, since the device finds them
 * in its system directories, after everything else. The loader itself
 * cannot be redirected: a loader link of that kind is refused with the fix.
 * Returns the overlay directory and the root's lib dirs qemu would read
 * elsewhere, ':'-joined (NULL when the root needs none), in *overlay.
 */
static int qemu_root_overlay(const struct run_plan *plan, const char *interp, char **overlay,
			     struct xcc_error *err)
{
	struct devroot_args dr;
	struct strvec dirs = STRVEC_INIT;
	char *cache, *path, *inside;
	int rc;

	*overlay = NULL;
	if (interp && interp[0] == '/') {
		path = xasprintf("%s%s", plan->prefix, interp);
		/* qemu follows the loader's links on this machine: one that would
		 * leave the root here reads another file than the device does. */
		inside = devroot_escapes(plan->prefix, interp + 1) ?
				 devroot_resolve(plan->prefix, interp + 1) : NULL;
		if (inside) {
			char target[PATH_MAX];
			ssize_t n = readlink(path, target, sizeof target - 1);

			target[n > 0 ? n : 0] = '\0';
			xcc_fail(err, XCC_EFAIL,
				 "the program's loader %s is a link to %s, which qemu follows on this "
				 "machine, not in the root: make it a relative link that stays in the root (ln -sfr "
				 "%s %s), or run the program on the device with --device "
				 "ssh://user@host", path, target, inside, path);
			free(inside);
			free(path);
			return -1;
		}
		free(path);
	}
	cache = fetch_default_cache_dir();
	rc = devroot_args_make(plan->prefix, plan->triple, cache, &dr, err);
	free(cache);
	if (rc)
		return -1;
	/* With the root's lib dirs that this machine would read elsewhere
	 * (lib/<triple> -> /usr/lib/...): qemu -L follows such links here. */
	if (dr.overlay)
		strvec_push(&dirs, dr.overlay);
	strvec_extend(&dirs, &dr.moved);
	if (dirs.n)
		*overlay = strvec_join(&dirs, ":");
	strvec_free(&dirs);
	devroot_args_free(&dr);
	return 0;
}

int run_plan_local(const struct gpudb *db, const struct run_opts *o, struct run_plan *plan,
		   struct xcc_error *err)
{
	struct elfinfo elf;
	const char *user_path = getenv("LD_LIBRARY_PATH");
	char *libpath = NULL, *qemu = NULL, *qemu_path = NULL, *overlay = NULL;
	struct strvec dirs = STRVEC_INIT;
	int rc = -1;

	memset(&elf, 0, sizeof elf);
	if (plan_target(db, o, plan, &elf, err))
		goto out;
	if (!plan->native && plan->prefix && plan->triple &&
	    qemu_root_overlay(plan, elf.interp, &overlay, err))
		goto out;
	/* The user's own LD_LIBRARY_PATH comes first: it is how one overrides a
	 * library for a run (a stub libcuda, a debug build). */
	if (plan->lib_dirs.n || overlay) {
		if (user_path && *user_path)
			strvec_push(&dirs, user_path);
		strvec_extend(&dirs, &plan->lib_dirs);
		if (overlay)
			strvec_push(&dirs, overlay);
		libpath = strvec_join(&dirs, ":");
	}
	if (plan->native) {
		strvec_push(&plan->argv, plan->program);
		plan->ld_library_path = libpath;
		libpath = NULL;
	} else {
		qemu = qemu_name(&elf);
		if (!qemu) {
			xcc_fail(err, XCC_EFAIL, "%s is a %s program and qemu has no user-mode "
				 "emulator for it; run it on the device with --device ssh://user@host",
				 plan->program, plan->machine);
			goto out;
		}
		qemu_path = proc_which(qemu);
		if (!qemu_path) {
			char *static_name = xasprintf("%s-static", qemu);

			qemu_path = proc_which(static_name);
			free(static_name);
		}
		if (!qemu_path) {
			xcc_fail(err, XCC_EFAIL,
				 "%s is not installed (not on PATH): it runs %s programs on this "
				 "machine.\nInstall Debian's qemu-user package (apt-get install "
				 "qemu-user), or run the program on the device with --device "
				 "ssh://user@host.", qemu, plan->machine);
			goto out;
		}
		strvec_push(&plan->argv, qemu_path);
		if (plan->prefix)
			strvec_pushl(&plan->argv, "-L", plan->prefix, NULL);
		/* -E sets it for the program only, not for qemu itself. */
		if (libpath) {
			strvec_push(&plan->argv, "-E");
			strvec_pushf(&plan->argv, "LD_LIBRARY_PATH=%s", libpath);
		}
		strvec_push(&plan->argv, plan->program);
	}
	for (size_t i = 1; o->argv[i]; i++)
		strvec_push(&plan->argv, o->argv[i]);
	rc = 0;
out:
	if (rc)
		run_plan_free(plan);
	elfinfo_free(&elf);
	strvec_free(&dirs);
	free(overlay);
	free(libpath);
	free(qemu);
	free(qemu_path);
	return rc;
}

void run_plan_free(struct run_plan *plan)
{
	free(plan->program);
	free(plan->machine);
	free(plan->sysroot);
	free(plan->triple);
	free(plan->prefix);
	strvec_free(&plan->lib_dirs);
	strvec_free(&plan->argv);
	free(plan->ld_library_path);
	for (size_t i = 0; i < plan->n_compat; i++) {
		free(plan->compat[i].component);
		free(plan->compat[i].package);
		free(plan->compat[i].device_dir);
		free(plan->compat[i].why);
		strvec_free(&plan->compat[i].files);
	}
	free(plan->compat);
	memset(plan, 0, sizeof *plan);
}

void run_opts_free(struct run_opts *o)
{
	strvec_free(&o->libs);
}

/* --- the libraries a program needs ------------------------------------- */

/* RPATH/RUNPATH entries with $ORIGIN replaced by the file's directory. */
static void push_run_paths(struct strvec *dirs, const char *file, const char *list)
{
	char *copy, *tok, *save = NULL, *origin;

	if (!list)
		return;
	origin = file_dir_name(file);
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		const char *rest = NULL;

		if (strncmp(tok, "$ORIGIN", 7) == 0)
			rest = tok + 7;
		else if (strncmp(tok, "${ORIGIN}", 9) == 0)
			rest = tok + 9;
		push_dir_if_exists(dirs, rest ? xasprintf("%s%s", origin, rest) : xstrdup(tok));
	}
	free(copy);
	free(origin);
}

/* A file named name in dirs with the program's machine and class. */
static char *find_library(const struct strvec *dirs, const char *name, const struct elfinfo *want)
{
	for (size_t i = 0; i < dirs->n; i++) {
		char *cand = xasprintf("%s/%s", dirs->v[i], name);
		struct elfinfo e;
		struct xcc_error ignored = { 0 };

		if (access(cand, R_OK) == 0 && elfinfo_read(cand, &e, &ignored) == 0) {
			int same = e.machine == want->machine && e.elfclass == want->elfclass;

			elfinfo_free(&e);
			if (same)
				return cand;
		}
		free(cand);
	}
	return NULL;
}

static int have_library(const struct run_libraries *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return 1;
	return 0;
}

int run_needed_libraries(const struct run_plan *plan, struct run_libraries *out,
			 struct xcc_error *err)
{
	struct elfinfo prog;
	struct strvec base = STRVEC_INIT, queue = STRVEC_INIT;
	const char *prefix = plan->prefix ? plan->prefix : (plan->native ? "" : NULL);
	size_t next = 0;

	memset(out, 0, sizeof *out);
	if (elfinfo_read(plan->program, &prog, err))
		return -1;
	strvec_extend(&base, &plan->lib_dirs);
	if (prefix) {
		const char *sub[] = { "lib", "usr/lib", "lib64", "usr/lib64" };

		for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
			if (plan->triple)
				push_dir_if_exists(&base, xasprintf("%s/%s/%s", prefix, sub[i],
								   plan->triple));
			push_dir_if_exists(&base, xasprintf("%s/%s", prefix, sub[i]));
		}
	}
	/* Breadth first over (file, needed name) pairs: each file's own run
	 * paths come before the common dirs, as for the loader. */
	strvec_push(&queue, plan->program);
	while (next < queue.n) {
		const char *file = queue.v[next++];
		struct elfinfo e;
		struct strvec dirs = STRVEC_INIT;

		if (elfinfo_read(file, &e, err)) {
			strvec_free(&dirs);
			goto fail;
		}
		push_run_paths(&dirs, file, e.rpath);
		push_run_paths(&dirs, file, e.runpath);
		for (size_t i = 0; i < base.n; i++)
			if (!strvec_contains(&dirs, base.v[i]))
				strvec_push(&dirs, base.v[i]);
		for (size_t i = 0; i < e.needed.n; i++) {
			const char *name = e.needed.v[i];
			char *path;

			if (autopatch_is_libc(name) || autopatch_is_driver_library(name) ||
			    have_library(out, name) || strvec_contains(&out->unresolved, name))
				continue;
			path = find_library(&dirs, name, &prog);
			if (!path) {
				strvec_push(&out->unresolved, name);
				continue;
			}
			out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
			out->v[out->n].name = xstrdup(name);
			out->v[out->n].path = path;
			out->n++;
			strvec_push(&queue, path);
		}
		strvec_free(&dirs);
		elfinfo_free(&e);
	}
	strvec_free(&queue);
	strvec_free(&base);
	elfinfo_free(&prog);
	return 0;
fail:
	strvec_free(&queue);
	strvec_free(&base);
	elfinfo_free(&prog);
	run_libraries_free(out);
	return -1;
}

void run_libraries_free(struct run_libraries *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
	strvec_free(&l->unresolved);
	memset(l, 0, sizeof *l);
}


static int needs_libcuda(const char *file)
{
	struct elfinfo e;
	struct xcc_error err = { 0 };
	int found;

	if (elfinfo_read(file, &e, &err))
		return 0;
	found = strvec_contains(&e.needed, "libcuda.so.1");
	elfinfo_free(&e);
	return found;
}

char *run_libcuda_hint(const struct run_plan *plan)
{
	struct run_libraries libs;
	struct xcc_error err = { 0 };
	const char *needer = NULL;
	char *hint = NULL;

	if (run_needed_libraries(plan, &libs, &err))
		return NULL;
	if (needs_libcuda(plan->program))
		needer = plan->program;
	for (size_t i = 0; !needer && i < libs.n; i++)
		if (needs_libcuda(libs.v[i].path))
			needer = libs.v[i].name;
	/* The loader looks where the program's libraries were looked for. */
	for (size_t i = 0; needer && i < plan->lib_dirs.n; i++) {
		char *p = xasprintf("%s/libcuda.so.1", plan->lib_dirs.v[i]);

		if (access(p, F_OK) == 0)
			needer = NULL;
		free(p);
	}
	if (needer)
		hint = xasprintf("%s needs libcuda.so.1, the GPU driver's library, which only the "
				 "board has: --stub-libcuda runs it with the sysroot's stub in its "
				 "place (the driver API then answers CUDA_ERROR_STUB_LIBRARY, 34)",
				 needer);
	run_libraries_free(&libs);
	return hint;
}
