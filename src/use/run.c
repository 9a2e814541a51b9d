#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/xalloc.h"
#include "db/request.h"
#include "elf/autopatch.h"
#include "elf/devroot.h"
#include "elf/elfinfo.h"
#include "pkg/fetch.h"
#include "sysroot/sysroot_meta.h"
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

/* The common part of a local and a remote run: program, machine, sysroot,
 * loader prefix and library dirs. */
static int plan_target(const struct gpudb *db, const struct run_opts *o, struct run_plan *plan,
		       struct elfinfo *elf, struct xcc_error *err)
{
	const char *sysroot = o->sysroot ? o->sysroot : getenv("CUDA_XCC_SYSROOT");
	const struct target_profile *profile = NULL;
	struct sysroot_meta meta;
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
		if (sysroot_meta_load(sysroot, &meta, err))
			return -1;
		have_meta = 1;
		plan->sysroot = xstrdup(sysroot);
		profile = gpudb_target(db, meta.target);
		if (profile && strcmp(profile->machine, plan->machine) != 0)
			profile = NULL; /* a build-machine tool of the project: the sysroot is not its */
		if (profile)
			push_dir_if_exists(&plan->lib_dirs,
					   xasprintf("%s/targets/%s/lib", sysroot, meta.target_dir));
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
	} else if (!plan->native && have_meta && meta.target_fs && profile &&
		   strcmp(profile->machine, plan->machine) == 0) {
		plan->prefix = xstrdup(meta.target_fs);
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
	if (have_meta)
		sysroot_meta_free(&meta);
	return 0;
fail:
	if (have_meta)
		sysroot_meta_free(&meta);
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
 * Returns the overlay directory (NULL when the root needs none) in *overlay.
 */
static int qemu_root_overlay(const struct run_plan *plan, const char *interp, char **overlay,
			     struct xcc_error *err)
{
	struct devroot_args dr;
	char *cache, *path, *inside;
	int rc;

	*overlay = NULL;
	if (interp && interp[0] == '/') {
		path = xasprintf("%s%s", plan->prefix, interp);
		inside = access(path, F_OK) != 0 ? devroot_resolve(plan->prefix, interp + 1) : NULL;
		if (inside) {
			char target[PATH_MAX];
			ssize_t n = readlink(path, target, sizeof target - 1);

			target[n > 0 ? n : 0] = '\0';
			xcc_fail(err, XCC_EFAIL,
				 "the program's loader %s is a link to %s, which qemu follows on this "
				 "machine, not in the root: make it relative in the root (ln -sfr "
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
	*overlay = dr.overlay;
	dr.overlay = NULL;
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
	memset(plan, 0, sizeof *plan);
}

void run_opts_free(struct run_opts *o)
{
	strvec_free(&o->libs);
}

/* --- the device: ssh://[user@]host[:port] ------------------------------- */

int run_parse_device(const char *url, struct ssh_target *t, struct xcc_error *err)
{
	const char *p, *at, *host_end, *port = NULL;
	char *host;

	memset(t, 0, sizeof *t);
	if (strncmp(url, "ssh://", 6) != 0)
		return xcc_fail(err, XCC_EUSAGE, "--device %s: give it as ssh://[user@]host[:port]",
				url);
	p = url + 6;
	at = strchr(p, '@');
	if (at && (!strchr(p, '/') || at < strchr(p, '/'))) {
		if (at == p)
			return xcc_fail(err, XCC_EUSAGE, "--device %s: the user before '@' is empty; "
					"give it as ssh://[user@]host[:port]", url);
		t->user = strndup(p, (size_t)(at - p));
		p = at + 1;
	}
	if (*p == '[') {
		host_end = strchr(p, ']');
		if (!host_end)
			goto bad;
		host = strndup(p + 1, (size_t)(host_end - p - 1));
		host_end++;
	} else {
		host_end = p + strcspn(p, ":/");
		host = strndup(p, (size_t)(host_end - p));
	}
	t->host = host;
	if (*host_end == ':')
		port = host_end + 1;
	if (port) {
		size_t n = strcspn(port, "/");

		if (n == 0 || strspn(port, "0123456789") != n || n > 5 || atoi(port) > 65535 ||
		    atoi(port) == 0)
			goto bad;
		t->port = strndup(port, n);
		host_end = port + n;
	}
	if (*host_end && strcmp(host_end, "/") != 0)
		goto bad;
	if (!*t->host || t->host[0] == '-')
		goto bad;
	return 0;
bad:
	ssh_target_free(t);
	return xcc_fail(err, XCC_EUSAGE, "--device %s: give it as ssh://[user@]host[:port] "
			"(port 1-65535)", url);
}

void ssh_target_free(struct ssh_target *t)
{
	free(t->user);
	free(t->host);
	free(t->port);
	memset(t, 0, sizeof *t);
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

/* --- ssh ------------------------------------------------------------------ */

static void ssh_argv(struct strvec *argv, const struct run_opts *o, const struct ssh_target *t,
		     int no_stdin)
{
	strvec_push(argv, "ssh");
	if (o->ssh_config)
		strvec_pushl(argv, "-F", o->ssh_config, NULL);
	/* A password prompt would hang CTest: keys or an agent only. */
	strvec_pushl(argv, "-o", "BatchMode=yes", NULL);
	if (no_stdin)
		strvec_push(argv, "-n");
	if (t->port)
		strvec_pushl(argv, "-p", t->port, NULL);
	if (t->user)
		strvec_pushl(argv, "-l", t->user, NULL);
	strvec_pushl(argv, "--", t->host, NULL);
}

/* Run a shell command on the device; its stdout into *out when out is not
 * NULL. Returns the exit status (255: ssh itself failed), -1 on error. */
static int ssh_command(const struct run_opts *o, const struct ssh_target *t, const char *command,
		       char **out, struct xcc_error *err)
{
	struct strvec argv = STRVEC_INIT;
	int status;

	ssh_argv(&argv, o, t, 1);
	strvec_push(&argv, command);
	if (out) {
		int pipefd[2];
		pid_t pid;

		if (pipe(pipefd)) {
			strvec_free(&argv);
			return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
		}
		pid = proc_spawn(argv.v, -1, pipefd[1], err);
		close(pipefd[1]);
		strvec_free(&argv);
		if (pid < 0) {
			close(pipefd[0]);
			return -1;
		}
		return proc_collect(pid, pipefd[0], out, err);
	}
	status = proc_run(argv.v, err);
	strvec_free(&argv);
	return status;
}

/* One regular file into the archive, contents read through symlinks. */
static int tar_add_file(struct archive *a, const char *path, const char *name, mode_t mode,
			struct xcc_error *err)
{
	struct archive_entry *e;
	struct stat st;
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st))
		return xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
	e = archive_entry_new();
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, mode);
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_mtime(e, st.st_mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "sending %s: %s", path, archive_error_string(a));
		goto out;
	}
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (archive_write_data(a, buf, (size_t)n) != n) {
			xcc_fail(err, XCC_EFAIL, "sending %s: %s", path, archive_error_string(a));
			goto out;
		}
	}
	rc = 0;
out:
	archive_entry_free(e);
	close(fd);
	return rc;
}

/* The files as a tar stream into `tar -x` on the device. */
static int upload(const struct run_opts *o, const struct ssh_target *t, const char *dir,
		  const struct strvec *paths, const struct strvec *names, struct xcc_error *err)
{
	struct strvec argv = STRVEC_INIT;
	struct archive *a;
	char *qdir = shell_quote(dir);
	int pipefd[2], status, rc = -1;
	pid_t pid;

	ssh_argv(&argv, o, t, 0);
	strvec_pushf(&argv, "tar -xf - -C %s", qdir);
	free(qdir);
	if (pipe(pipefd)) {
		strvec_free(&argv);
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	}
	pid = proc_spawn(argv.v, pipefd[0], -1, err);
	close(pipefd[0]);
	strvec_free(&argv);
	if (pid < 0) {
		close(pipefd[1]);
		return -1;
	}
	a = archive_write_new();
	/* ustar: every tar, busybox's included, reads it. */
	archive_write_set_format_ustar(a);
	archive_write_set_bytes_in_last_block(a, 1);
	if (archive_write_open_fd(a, pipefd[1]) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "sending files: %s", archive_error_string(a));
		goto done;
	}
	for (size_t i = 0; i < paths->n; i++)
		if (tar_add_file(a, paths->v[i], names->v[i], i == 0 ? 0755 : 0644, err))
			goto done;
	if (archive_write_close(a) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "sending files: %s", archive_error_string(a));
		goto done;
	}
	rc = 0;
done:
	archive_write_free(a);
	close(pipefd[1]);
	{
		struct xcc_error wait_err = { 0 };

		status = proc_wait(pid, &wait_err);
		if (rc == 0 && status < 0)
			*err = wait_err;
	}
	if (rc == 0 && status != 0) {
		if (status > 0)
			xcc_fail(err, XCC_EFAIL, "copying the program to %s:%s failed (ssh/tar exit "
				 "status %d)", t->host, dir, status);
		rc = -1;
	}
	return rc;
}

/* Which of names the device's loader finds by itself: its ld.so cache
 * (ldconfig -p, where JetPack's CUDA and Tegra dirs are listed) or the
 * usual lib dirs. Prints "dir DIR" first, then "have NAME" lines. */
static char *probe_script(const struct strvec *names)
{
	struct strvec s = STRVEC_INIT;
	char *text;

	strvec_push(&s, "d=$(mktemp -d \"${TMPDIR:-/tmp}/cuda-xcc-run.XXXXXX\") || exit 1\n"
		    "echo \"dir $d\"\n"
		    "m=$(uname -m)\n"
		    "c=$( (ldconfig -p || /sbin/ldconfig -p || /usr/sbin/ldconfig -p) 2>/dev/null)\n");
	strvec_push(&s, "for n in");
	for (size_t i = 0; i < names->n; i++) {
		char *q = shell_quote(names->v[i]);

		strvec_pushf(&s, " %s", q);
		free(q);
	}
	strvec_push(&s, "; do\n"
		    "  case \"$c\" in *\"\t$n (\"*) echo \"have $n\"; continue ;; esac\n"
		    "  for p in /lib /usr/lib /lib64 /usr/lib64 /lib/$m-linux-gnu /usr/lib/$m-linux-gnu; do\n"
		    "    if [ -e \"$p/$n\" ]; then echo \"have $n\"; break; fi\n"
		    "  done\n"
		    "done\n");
	text = strvec_join(&s, "");
	strvec_free(&s);
	return text;
}

static volatile sig_atomic_t run_signal;
static volatile pid_t run_child;

/* Remember the signal and pass it on to ssh, so the device's directory can
 * still be removed before this process dies of it. */
static void on_signal(int sig)
{
	run_signal = sig;
	if (run_child > 0)
		kill(run_child, sig == SIGINT ? SIGINT : SIGTERM);
}

int run_remote(const struct run_opts *o, const struct run_plan *plan,
	       struct run_remote_result *r, struct xcc_error *err)
{
	struct ssh_target t;
	struct run_libraries libs = { 0 };
	struct strvec names = STRVEC_INIT, paths = STRVEC_INIT, send_names = STRVEC_INIT,
		      send_paths = STRVEC_INIT, cmd = STRVEC_INIT, argv = STRVEC_INIT;
	char *script = NULL, *answer = NULL, *line, *save = NULL, *qdir = NULL, *command = NULL;
	const char *prog_name = file_base_name(plan->program);
	struct sigaction sa, old_int, old_term, old_hup;
	int status, rc = -1;
	pid_t pid;

	memset(r, 0, sizeof *r);
	if (run_parse_device(o->device, &t, err))
		return -1;
	if (o->libs.n) {
		for (size_t i = 0; i < o->libs.n; i++) {
			if (access(o->libs.v[i], R_OK)) {
				xcc_fail(err, XCC_EUSAGE, "--lib %s: %s", o->libs.v[i], strerror(errno));
				goto out;
			}
			strvec_push(&names, file_base_name(o->libs.v[i]));
			strvec_push(&paths, o->libs.v[i]);
		}
	} else {
		if (run_needed_libraries(plan, &libs, err))
			goto out;
		for (size_t i = 0; i < libs.n; i++) {
			strvec_push(&names, libs.v[i].name);
			strvec_push(&paths, libs.v[i].path);
		}
	}

	script = probe_script(o->libs.n ? &(struct strvec)STRVEC_INIT : &names);
	status = ssh_command(o, &t, script, &answer, err);
	if (status < 0)
		goto out;
	if (status != 0) {
		xcc_fail(err, XCC_EFAIL, "cannot prepare a directory on %s (ssh exit status %d%s)",
			 o->device, status, status == 255 ? ": ssh could not connect or log in; "
			 "ssh's message is above" : "");
		goto out;
	}
	for (line = strtok_r(answer, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "dir /", 5) == 0 && !r->device_dir)
			r->device_dir = xstrdup(line + 4);
		else if (strncmp(line, "have ", 5) == 0)
			strvec_push(&send_names, line + 5); /* reused below as "the device has" */
	}
	if (!r->device_dir) {
		xcc_fail(err, XCC_EFAIL, "%s did not make a temporary directory (no mktemp?)",
			 o->device);
		goto out;
	}
	{
		struct strvec has = send_names;

		memset(&send_names, 0, sizeof send_names);
		strvec_push(&send_names, prog_name);
		strvec_push(&send_paths, plan->program);
		for (size_t i = 0; i < names.n; i++) {
			if (strvec_contains(&has, names.v[i]) || strvec_contains(&send_names, names.v[i]))
				continue;
			strvec_push(&send_names, names.v[i]);
			strvec_push(&send_paths, paths.v[i]);
		}
		strvec_free(&has);
	}
	if (upload(o, &t, r->device_dir, &send_paths, &send_names, err))
		goto cleanup;
	strvec_extend(&r->copied, &send_names);

	/* The command: the program in its directory with that directory first
	 * on the library path; a trailing command keeps the shell alive, so a
	 * signal that kills the program comes back as 128 + N, as from a shell. */
	qdir = shell_quote(r->device_dir);
	strvec_pushf(&cmd, "cd %s || exit 127; LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; "
		     "export LD_LIBRARY_PATH; ./", qdir, qdir);
	{
		char *qprog = shell_quote(prog_name);

		/* shell_quote may quote: "./'a b'" is still one word. */
		strvec_push(&cmd, qprog);
		free(qprog);
	}
	for (size_t i = 1; o->argv[i]; i++) {
		char *q = shell_quote(o->argv[i]);

		strvec_pushf(&cmd, " %s", q);
		free(q);
	}
	strvec_push(&cmd, "; s=$?; ");
	if (!o->keep)
		strvec_pushf(&cmd, "cd / && rm -rf %s; ", qdir);
	strvec_push(&cmd, "exit $s");
	command = strvec_join(&cmd, "");

	ssh_argv(&argv, o, &t, 0);
	strvec_push(&argv, command);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	run_signal = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	pid = proc_spawn(argv.v, -1, -1, err);
	if (pid > 0) {
		run_child = pid;
		status = proc_wait(pid, err);
		run_child = 0;
	} else {
		status = -1;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (status < 0)
		goto cleanup;
	r->status = status;
	if (run_signal)
		goto cleanup;
	rc = 0;
	goto out;

cleanup:
	/* The run did not get to remove its directory. */
	if (r->device_dir && !o->keep) {
		struct xcc_error ignored = { 0 };
		char *q = shell_quote(r->device_dir), *rm = xasprintf("rm -rf %s", q);

		ssh_command(o, &t, rm, NULL, &ignored);
		free(rm);
		free(q);
	}
	if (run_signal) {
		int sig = run_signal;

		signal(sig, SIG_DFL);
		raise(sig);
		xcc_fail(err, XCC_EFAIL, "interrupted by signal %d", sig);
	}
out:
	ssh_target_free(&t);
	run_libraries_free(&libs);
	strvec_free(&names);
	strvec_free(&paths);
	strvec_free(&send_names);
	strvec_free(&send_paths);
	strvec_free(&cmd);
	strvec_free(&argv);
	free(script);
	free(answer);
	free(qdir);
	free(command);
	return rc;
}

void run_remote_result_free(struct run_remote_result *r)
{
	free(r->device_dir);
	strvec_free(&r->copied);
	memset(r, 0, sizeof *r);
}
