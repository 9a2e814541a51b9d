#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/autopatch.h"
#include "elf/elfinfo.h"
#include "elf/fatbin.h"
#include "elf/glibc.h"
#include "pkg/unpack.h"
#include "sysroot/sysroot_meta.h"
#include "sysroot/sysroot_passes.h"

/* "target half: libfoo.so.1 (needed by targets/x/lib/libbar.so), ..." */
static void note_missing(struct strvec *notes, const char *half, const char *root,
			 const struct autopatch_report *r)
{
	struct strvec list = STRVEC_INIT;
	size_t shown = 0, root_len = strlen(root);
	char *s;

	for (size_t i = 0; i < r->n_missing; i++) {
		const struct autopatch_missing *m = &r->missing[i];
		const char *file = m->file;

		if (m->ignored)
			continue;
		if (shown++ == 8) {
			strvec_pushf(&list, "and %zu more", r->n_missing_unignored - 8);
			break;
		}
		if (strncmp(file, root, root_len) == 0 && file[root_len] == '/')
			file += root_len + 1;
		strvec_pushf(&list, "%s (needed by %s)", m->library, file);
	}
	s = strvec_join(&list, ", ");
	strvec_pushf(notes, "%s: not in the sysroot, so the device must provide: %s", half, s);
	free(s);
	strvec_free(&list);
}

static void keep_unresolved(struct sysroot_unresolved *u, const char *root,
			    const struct autopatch_report *r)
{
	size_t root_len = strlen(root);

	for (size_t i = 0; u && i < r->n_missing; i++) {
		const char *file = r->missing[i].file;

		if (r->missing[i].ignored)
			continue;
		if (strncmp(file, root, root_len) == 0 && file[root_len] == '/')
			file += root_len + 1;
		strvec_push(&u->library, r->missing[i].library);
		strvec_push(&u->file, file);
	}
}

void sysroot_unresolved_free(struct sysroot_unresolved *u)
{
	strvec_free(&u->library);
	strvec_free(&u->file);
}

/* Patch one half; libraries found nowhere are a note (the device may
 * provide them) and go to unresolved, any other failure an error. */
static int autopatch_half(const struct autopatch_opts *o, const char *half, const char *root,
			  struct strvec *notes, struct sysroot_unresolved *unresolved,
			  struct xcc_error *err)
{
	struct autopatch_report r = { 0 };
	struct xcc_error e2 = { 0 };
	int rc = 0;

	if (autopatch_run(o, &r, &e2)) {
		if (r.n_missing_unignored == 0) {
			rc = xcc_fail(err, e2.status, "autopatch of the %s: %s", half, e2.msg);
		} else {
			note_missing(notes, half, root, &r);
			keep_unresolved(unresolved, root, &r);
		}
	}
	autopatch_report_free(&r);
	return rc;
}

int sysroot_autopatch(const char *root, const char *target_dir, const char *triple,
		      const char *target_fs, int dry_run, struct strvec *notes,
		      struct sysroot_unresolved *unresolved, struct xcc_error *err)
{
	struct autopatch_opts host = AUTOPATCH_OPTS_INIT, target = AUTOPATCH_OPTS_INIT;
	char *prefix = xasprintf("%s-", triple);
	int rc = -1;

	/* Host half: x86_64 tools, whose system libraries are the build
	 * machine's own. */
	for (size_t i = 0; i < 2; i++) {
		char *d = xasprintf("%s/%s", root, i == 0 ? "bin" : "nvvm");
		struct stat st;

		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
			strvec_push(&host.paths, d);
		free(d);
	}
	host.target_fs = "/";
	host.dry_run = dry_run;
	if (autopatch_half(&host, "host half", root, notes, NULL, err))
		goto out;
	/* Target half: the target's own libraries, then the device's root
	 * filesystem when there is one (its libstdc++ and libgcc_s are the
	 * ones the programs will meet), else the cross toolchain's. */
	strvec_pushf(&target.paths, "%s/targets/%s", root, target_dir);
	if (target_fs)
		target.target_fs = target_fs;
	else
		target.cross_prefix = prefix;
	target.dry_run = dry_run;
	if (autopatch_half(&target, "target half", root, notes, unresolved, err))
		goto out;
	rc = 0;
out:
	autopatch_opts_free(&host);
	autopatch_opts_free(&target);
	free(prefix);
	return rc;
}

/* ---- the device's glibc floor ---- */

static int is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;

	if (fd < 0)
		return 0;
	ok = read(fd, magic, sizeof magic) == (ssize_t)sizeof magic && elfinfo_is_elf(magic, sizeof magic);
	close(fd);
	return ok;
}

void sysroot_glibc_floor(const char *root, const char *target_dir, const char *triple,
			 const char *target_fs, struct strvec *warnings)
{
	char *libdir = xasprintf("%s/targets/%s/lib", root, target_dir);
	char *libc = glibc_find_libc(target_fs, triple);
	struct strvec names = STRVEC_INIT;

	if (!libc) /* the request refused such a root (glibc_check_rootfs) */
		goto out;
	if (file_list_dir(libdir, &names)) {
		if (errno != ENOENT)
			strvec_pushf(warnings, "cannot check the target libraries against the "
				     "device's glibc: %s: %s", libdir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", libdir, names.v[i]);
		const char *shown = path + strlen(root) + 1;
		struct xcc_error e = { 0 };
		struct glibc_report r;
		struct stat st;

		/* Symlinks name the same files again; archives and stubs never
		 * meet the device's loader. */
		if (lstat(path, &st) || !S_ISREG(st.st_mode) || !is_elf_file(path)) {
			free(path);
			continue;
		}
		if (glibc_check(path, libc, &r, &e)) {
			strvec_pushf(warnings, "cannot check %s against the device's glibc: %s",
				     shown, e.msg);
			free(path);
			continue;
		}
		if (r.missing.n) {
			char *list = strvec_join(&r.missing, " ");

			strvec_pushf(warnings, "%s needs %s, but the --target-fs C library %s "
				     "provides only up to %s (missing: %s): programs using it will "
				     "not start on that device.", shown, r.needed_max, libc,
				     r.provided_max, list);
			free(list);
		}
		glibc_report_free(&r);
		free(path);
	}
out:
	strvec_free(&names);
	free(libc);
	free(libdir);
}

/* ---- the serving check ---- */

struct serving_walk {
	const struct gpudb *db;
	size_t prefix_len;
	const struct gpu_cap **caps;
	struct sysroot_serving *table;
};

/* nftw has no user argument. */
static __thread struct serving_walk *current_walk;

static int looks_like_library(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return strstr(base, ".so") != NULL || (n > 2 && strcmp(base + n - 2, ".a") == 0);
}

static int has_object_magic(const char *path)
{
	unsigned char m[8] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(m, 1, sizeof m, f);
	fclose(f);
	return elfinfo_is_elf(m, n) ||
	       (n == 8 && memcmp(m, "!<arch>\n", 8) == 0);
}

/* Verdicts are ordered best first: SASS, PTX-JIT, NOT SERVED. */
static void merge_verdicts(const struct gpudb *db, const struct fatbin_file *f,
			   const struct gpu_cap *const *caps, size_t n, enum fatbin_verdict *v)
{
	for (size_t i = 0; i < n; i++) {
		struct fatbin_serving how;
		enum fatbin_verdict m = fatbin_serves(db, f, caps[i], &how);

		if (m < v[i])
			v[i] = m;
	}
}

/*
 * A static archive, member by member through libarchive: memory stays at
 * the largest member, where mapping the archive would touch all of it
 * (libcublasLt_static.a: 500 MB). Device code of an object sits in its
 * .nv_fatbin, so only those sections are read.
 */
static int static_library_serving(const struct gpudb *db, const char *path,
				  const struct gpu_cap *const *caps, size_t n,
				  enum fatbin_verdict *v, int *has_code, struct xcc_error *err)
{
	struct fatbin_options sections_only = { 1 };
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *buf = NULL;
	size_t cap = 0;
	int r, rc = -1;

	archive_read_support_format_ar(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		la_int64_t size = archive_entry_size(e);
		struct fatbin_file f;
		struct xcc_error e2 = { 0 };
		size_t got = 0;

		if (size < 64 || size > ((la_int64_t)1 << 32))
			continue;
		if ((size_t)size > cap)
			buf = xrealloc(buf, cap = (size_t)size);
		while (got < (size_t)size) {
			la_ssize_t k = archive_read_data(a, buf + got, (size_t)size - got);

			if (k <= 0)
				break;
			got += (size_t)k;
		}
		if (got != (size_t)size || !elfinfo_is_elf(buf, got))
			continue;
		if (fatbin_read_memory(buf, got, path, &sections_only, &f, &e2))
			continue;
		if (fatbin_has_device_code(&f)) {
			*has_code = 1;
			merge_verdicts(db, &f, caps, n, v);
		}
		fatbin_file_free(&f);
	}
	if (r != ARCHIVE_EOF) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, archive_error_string(a));
		goto out;
	}
	rc = 0;
out:
	archive_read_free(a);
	free(buf);
	return rc;
}

int sysroot_library_serving(const struct gpudb *db, const char *path,
			    const struct gpu_cap *const *caps, size_t n, enum fatbin_verdict *v,
			    int *has_code, struct xcc_error *err)
{
	unsigned char magic[8] = { 0 };
	FILE *fp = fopen(path, "rb");
	struct fatbin_file f;

	*has_code = 0;
	for (size_t i = 0; i < n; i++)
		v[i] = FATBIN_NOT_SERVED;
	if (!fp)
		return xcc_fail(err, XCC_EFAIL, "%s: cannot read it", path);
	if (fread(magic, 1, sizeof magic, fp) != sizeof magic)
		memset(magic, 0, sizeof magic);
	fclose(fp);
	if (memcmp(magic, "!<arch>\n", 8) == 0)
		return static_library_serving(db, path, caps, n, v, has_code, err);
	if (fatbin_read_file_bounded(path, &f, err))
		return -1;
	if (fatbin_has_device_code(&f)) {
		*has_code = 1;
		merge_verdicts(db, &f, caps, n, v);
	}
	fatbin_file_free(&f);
	return 0;
}

static int serving_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct serving_walk *w = current_walk;
	size_t n = w->table->capabilities.n;
	struct xcc_error e2 = { 0 };
	enum fatbin_verdict *v;
	int has_code = 0;

	(void)ftw;
	if (flag != FTW_F || !S_ISREG(st->st_mode) || !looks_like_library(path) ||
	    !has_object_magic(path))
		return 0;
	v = xmalloc((n + 1) * sizeof *v);
	/* A library whose device code cannot be read is not ours to judge. */
	if (sysroot_library_serving(w->db, path, w->caps, n, v, &has_code, &e2) == 0 && has_code)
		sysroot_serving_add(w->table, path + w->prefix_len, v);
	free(v);
	return 0;
}

int sysroot_serving(const struct gpudb *db, const char *root, const char *target_dir,
		    const struct strvec *capabilities, struct sysroot_serving *table,
		    struct xcc_error *err)
{
	struct serving_walk w = { 0 };
	char *dir;

	memset(table, 0, sizeof *table);
	w.db = db;
	w.table = table;
	w.caps = xmalloc((capabilities->n ? capabilities->n : 1) * sizeof *w.caps);
	for (size_t i = 0; i < capabilities->n; i++) {
		if (!(w.caps[i] = gpudb_cap_named(db, capabilities->v[i], NULL))) {
			free(w.caps);
			return xcc_fail(err, XCC_EFAIL, "unknown capability %s", capabilities->v[i]);
		}
	}
	table->recorded = 1;
	strvec_extend(&table->capabilities, capabilities);
	dir = xasprintf("%s/targets/%s/", root, target_dir);
	w.prefix_len = strlen(dir);
	current_walk = &w;
	nftw(dir, serving_entry, 32, FTW_PHYS);
	current_walk = NULL;
	/* nftw's order is the directory's: sort for a stable table. */
	sysroot_serving_sort(table);
	free(w.caps);
	free(dir);
	return 0;
}

/* ---- the tree as extracted ------------------------------------------------------- */

static int file_contains_dir(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int r = file_is_dir(p);

	free(p);
	return r;
}

static int file_exists_in(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int r = file_exists(p);

	free(p);
	return r;
}

int sysroot_check_tree(const char *root, const struct plan *p, struct xcc_error *err)
{
	char *inc = xasprintf("targets/%s/include/cuda_runtime.h", p->target_dir);
	char *targets = xasprintf("%s/targets", root);
	DIR *d;
	struct dirent *e;
	struct strvec dirs = STRVEC_INIT;
	int rc = -1;

	if (!file_exists_in(root, "bin/nvcc")) {
		xcc_fail(err, XCC_EUSAGE, "the sources hold no x86_64 nvcc (bin/nvcc): add the "
			 "host side (cuda_nvcc for linux-x86_64, or Debian's nvidia-cuda-toolkit "
			 "amd64 package)");
		goto out;
	}
	if (!file_exists_in(root, inc)) {
		xcc_fail(err, XCC_EUSAGE, "the sources hold no target headers (%s): add cuda_cudart "
			 "for %s (or the target's nvidia-cuda-dev package)", inc, p->tag);
		goto out;
	}
	d = opendir(targets);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strvec_push(&dirs, e->d_name);
	if (d)
		closedir(d);
	if (dirs.n != 1) {
		char *names = strvec_join(&dirs, ", ");

		xcc_fail(err, XCC_EFAIL, "targets/ holds %s instead of only %s: CMake would pick the "
			 "wrong one", names, p->target_dir);
		free(names);
		goto out;
	}
	rc = 0;
out:
	strvec_free(&dirs);
	free(targets);
	free(inc);
	return rc;
}

/* Remove the symlinks under dir (relative to root, recursively) that lead
 * nowhere: a .deb's development links (libnvToolsExt.so -> .so.1) whose
 * library is in another package that was not given. They would only make
 * a link fail later with a worse message, and verify report them. Every
 * path is opened beneath root, so a link in the tree cannot take the walk
 * (and its unlinks) anywhere else. */
static void remove_dangling_in(int rootfd, const char *dir, struct strvec *removed, int depth)
{
	int fd = unpack_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (depth < 64 && (e = readdir(d))) {
		char *rel;
		struct stat st;
		int target;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rel = xasprintf("%s/%s", dir, e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(st.st_mode)) {
				remove_dangling_in(rootfd, rel, removed, depth + 1);
			} else if (S_ISLNK(st.st_mode)) {
				target = unpack_open_beneath(rootfd, rel, O_PATH);
				if (target >= 0)
					close(target);
				else if (errno == ENOENT &&
					 unlinkat(dirfd(d), e->d_name, 0) == 0)
					strvec_push(removed, rel);
			}
		}
		free(rel);
	}
	closedir(d);
}

static void remove_dangling_links(const char *root, const char *dir, struct strvec *removed)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (rootfd < 0)
		return;
	remove_dangling_in(rootfd, dir, removed, 0);
	close(rootfd);
}

/* Write root/dir/name atomically, dir opened beneath root. */
static int write_beneath(const char *root, const char *dir, const char *name, const char *data,
			 struct xcc_error *err)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), dfd = -1, fd = -1, rc = -1;
	char *tmp = xasprintf(".%s.tmp.%ld", name, (long)getpid());
	size_t len = strlen(data), done = 0;

	if (rootfd < 0 || (dfd = unpack_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY)) < 0) {
		xcc_fail(err, XCC_EFAIL, "cannot open %s/%s: %s", root, dir, strerror(errno));
		goto out;
	}
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			break;
		}
		done += (size_t)n;
	}
	if (fd < 0 || done < len || fsync(fd)) {
		xcc_fail(err, XCC_EFAIL, "cannot write %s/%s/%s: %s", root, dir, tmp,
			 strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (renameat(dfd, tmp, dfd, name)) {
		xcc_fail(err, XCC_EFAIL, "cannot rename %s/%s/%s to %s: %s", root, dir, tmp, name,
			 strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0) {
		close(fd);
		unlinkat(dfd, tmp, 0);
	}
	if (dfd >= 0)
		close(dfd);
	if (rootfd >= 0)
		close(rootfd);
	free(tmp);
	return rc;
}

int sysroot_refuse_escaping_links(const char *root, struct xcc_error *err)
{
	struct strvec problems = STRVEC_INIT;
	char *list;

	if (unpack_check_tree_links(root, &problems, err))
		return -1;
	if (!problems.n)
		return 0;
	list = strvec_join(&problems, "\n  ");
	xcc_fail(err, XCC_EUSAGE, "refused: the archives' symlinks together lead out of the "
		 "sysroot (each archive was harmless alone):\n  %s\nRemove the archive that "
		 "brings the link, or correct its links.", list);
	free(list);
	strvec_free(&problems);
	return -1;
}

/* Remove the dangling links under dir, with a note naming them and why
 * they are not wanted. */
static void remove_dangling_noted(const char *root, const char *dir, const char *why,
				  struct strvec *notes)
{
	struct strvec removed = STRVEC_INIT;

	remove_dangling_links(root, dir, &removed);
	if (removed.n) {
		char *names = strvec_join(&removed, ", ");

		strvec_pushf(notes, "left out, as %s: %s", why, names);
		free(names);
	}
	strvec_free(&removed);
}

void sysroot_remove_dangling_links(const char *root, const char *target_dir,
				   struct strvec *notes)
{
	char *lib = xasprintf("targets/%s/lib", target_dir);

	remove_dangling_noted(root, lib, "the libraries they name are in packages not given",
			      notes);
	free(lib);
	/* A package's tool links may name what a cross toolkit does not
	 * take (Debian 12.4's usr/bin/compute-sanitizer). */
	remove_dangling_noted(root, "bin", "the tools they name are not part of a cross toolkit",
			      notes);
}

/* ---- nvcc.profile ---------------------------------------------------------- */

char *sysroot_nvcc_profile(int with_cccl)
{
	/* PATH comes first and puts this toolkit's own cicc (nvvm/bin) and
	 * ptxas, fatbinary, nvlink, cudafe++ (bin) in front of whatever the
	 * user's PATH holds: nvcc finds its helpers through PATH, and another
	 * CUDA's tools there would otherwise be used silently. Everything is
	 * relative to _HERE_, so the tree can move. lib64 is mapped to lib at
	 * create time, so the directories are named without _TARGET_SIZE_.
	 * INCLUDES and LIBRARIES are each one complete assignment: CMake's
	 * FindCUDAToolkit reads the first one of each from `nvcc -v`. */
	return xasprintf(
		"# Written by cuda-xcc sysroot create: relocatable, and this toolkit's own\n"
		"# tools come before anything on PATH.\n"
		"PATH            += $(_HERE_)/../nvvm/bin:$(_HERE_):\n"
		"TOP              = $(_HERE_)/..\n"
		"CICC_PATH        = $(TOP)/nvvm/bin\n"
		"NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice\n"
		"\n"
		"INCLUDES        +=  \"-I$(TOP)/$(_TARGET_DIR_)/include\" $(_SPACE_)\n"
		"%s"
		"LIBRARIES        =+ $(_SPACE_) \"-L$(TOP)/$(_TARGET_DIR_)/lib/stubs\" "
		"\"-L$(TOP)/$(_TARGET_DIR_)/lib\"\n"
		"\n"
		"CUDAFE_FLAGS    +=\n"
		"PTXAS_FLAGS     +=\n",
		with_cccl ? "SYSTEM_INCLUDES +=  \"-isystem\" \"$(TOP)/$(_TARGET_DIR_)/include/cccl\" "
			    "$(_SPACE_)\n" : "");
}

int sysroot_write_profile(const char *root, const char *target_dir, struct xcc_error *err)
{
	char *cccl = xasprintf("targets/%s/include/cccl", target_dir);
	char *profile = sysroot_nvcc_profile(file_contains_dir(root, cccl));
	int rc = write_beneath(root, "bin", "nvcc.profile", profile, err);

	free(profile);
	free(cccl);
	return rc;
}

/* ---- /usr/local/cuda's top-level links -------------------------------------- */

int sysroot_write_toolkit_links(const char *root, const char *target_dir, struct xcc_error *err)
{
	/* NVIDIA's toolkit has include and lib64 at its top, links into
	 * targets/<dir>: sample Makefiles use $(CUDA_PATH)/include, scripts
	 * $(CUDA_PATH)/lib64. Relative, so the tree can move. */
	static const char *const links[][2] = { { "include", "include" }, { "lib64", "lib" } };
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	struct stat st;

	if (rootfd < 0)
		return xcc_fail(err, XCC_EFAIL, "cannot open %s: %s", root, strerror(errno));
	for (size_t i = 0; i < sizeof links / sizeof links[0] && !rc; i++) {
		char *target = xasprintf("targets/%s/%s", target_dir, links[i][1]);

		if (fstatat(rootfd, target, &st, 0) == 0 && S_ISDIR(st.st_mode) &&
		    fstatat(rootfd, links[i][0], &st, AT_SYMLINK_NOFOLLOW) != 0 &&
		    symlinkat(target, rootfd, links[i][0]))
			rc = xcc_fail(err, XCC_EFAIL, "cannot link %s/%s to %s: %s", root,
				      links[i][0], target, strerror(errno));
		free(target);
	}
	/* nvlink dlopens nvvm/lib64/libnvvm.so; Debian's libnvvm4 has only the
	 * soname link libnvvm.so.4 (its libnvvm.so is in the amd64
	 * nvidia-cuda-dev, which a cross sysroot does not take). */
	if (!rc && fstatat(rootfd, "nvvm/lib64/libnvvm.so.4", &st, 0) == 0 &&
	    fstatat(rootfd, "nvvm/lib64/libnvvm.so", &st, AT_SYMLINK_NOFOLLOW) != 0 &&
	    symlinkat("libnvvm.so.4", rootfd, "nvvm/lib64/libnvvm.so"))
		rc = xcc_fail(err, XCC_EFAIL, "cannot link %s/nvvm/lib64/libnvvm.so to libnvvm.so.4: %s",
			      root, strerror(errno));
	close(rootfd);
	return rc;
}

/* ---- the library flavour ---- */

static const char *const flavour_tags[] = { "linux-aarch64", "linux-sbsa" };

static const char *flavour_name(const char *tag)
{
	return strcmp(tag, "linux-aarch64") == 0 ? "L4T build, for Jetson's integrated GPU" :
						   "SBSA build, for Arm servers with a discrete GPU";
}

/* The flavour a package names itself: the manifest's tag, or the
 * <name>-<tag>-<version>-archive name of a redist archive given alone.
 * .debs and wheels do not say (Debian's arm64 packages are SBSA builds and
 * name no flavour). */
static const char *package_flavour(const struct plan_archive *a)
{
	const char *base;

	if (a->side == PLAN_HOST)
		return NULL;
	for (size_t i = 0; i < 2; i++) {
		char *infix;
		int named;

		if (a->tag) {
			if (strcmp(a->tag, flavour_tags[i]) == 0)
				return flavour_tags[i];
			continue;
		}
		if (a->format != PLAN_FMT_REDIST || !a->source)
			continue;
		base = strrchr(a->source, '/');
		base = base ? base + 1 : a->source;
		infix = xasprintf("-%s-", flavour_tags[i]);
		named = strstr(base, infix) != NULL;
		free(infix);
		if (named)
			return flavour_tags[i];
	}
	return NULL;
}

/* "sm_53 sm_62 sm_72 sm_87": the Jetson GPUs only an L4T build of CUDA v
 * carries SASS for. */
static char *l4t_only_sms(const struct gpudb *db, struct cuda_version v)
{
	struct strvec sms = STRVEC_INIT;
	int tmaj, tmin;
	char *s;

	gpudb_sbsa_threshold(db, v, &tmaj, &tmin);
	for (size_t i = 0; i < db->n_caps; i++) {
		const struct gpu_cap *c = &db->caps[i];

		if (c->jetson && !c->variant && gpu_cap_supported_by(c, v) &&
		    (c->major < tmaj || (c->major == tmaj && c->minor < tmin)))
			strvec_pushf(&sms, "sm_%d%d", c->major, c->minor);
	}
	s = sms.n ? strvec_join(&sms, " ") : xstrdup("none in this release");
	strvec_free(&sms);
	return s;
}

/* At most four items, then how many more. */
static char *short_list(const struct strvec *items)
{
	struct strvec shown = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < items->n && i < 4; i++)
		strvec_push(&shown, items->v[i]);
	if (items->n > 4)
		strvec_pushf(&shown, "and %zu more", items->n - 4);
	s = strvec_join(&shown, ", ");
	strvec_free(&shown);
	return s;
}

/* What the libraries of lib/ carry: those with Jetson SASS ("libx.a
 * (sm_87)") and those with SASS but none for Jetson ("libx.a (sm_80
 * sm_90)"), in name order. */
static void library_evidence(const struct gpudb *db, const char *libdir, struct cuda_version v,
			     struct strvec *l4t, struct strvec *sbsa)
{
	struct fatbin_options sections_only = { 1 };
	struct strvec names = STRVEC_INIT;

	if (file_list_dir(libdir, &names))
		return;
	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", libdir, names.v[i]);
		struct xcc_error e = { 0 };
		struct fatbin_file f;
		struct stat st;
		char **sms = NULL, buf[16];
		unsigned sm;

		/* Links name the same files again. A library whose device code
		 * cannot be read is not ours to judge. */
		if (lstat(path, &st) || !S_ISREG(st.st_mode) || !looks_like_library(path) ||
		    !has_object_magic(path) || fatbin_read_file(path, &sections_only, &f, &e)) {
			free(path);
			continue;
		}
		if ((sm = fatbin_l4t_sass(db, &f, v)) && fatbin_discrete_sass(db, &f)) {
			/* built for every GPU: neither build's mark */
		} else if (sm) {
			strvec_pushf(l4t, "%s (%s)", names.v[i], fatbin_sm_name(sm, 0, buf, sizeof buf));
		} else if (fatbin_sm_set(&f, FATBIN_KIND_SASS, &sms)) {
			struct strvec set = STRVEC_INIT;
			char *joined;

			for (char **s = sms; *s; s++)
				strvec_push(&set, *s);
			joined = strvec_join(&set, " ");
			strvec_pushf(sbsa, "%s (%s)", names.v[i], joined);
			free(joined);
			strvec_free(&set);
		}
		fatbin_names_free(sms);
		fatbin_file_free(&f);
		free(path);
	}
	strvec_free(&names);
}

void sysroot_flavour_free(struct sysroot_flavour *f)
{
	free(f->tag);
	free(f->evidence);
	memset(f, 0, sizeof *f);
}

int sysroot_check_flavour(const struct gpudb *db, const char *root, const struct plan *p,
			  struct sysroot_flavour *out, struct strvec *notes, struct xcc_error *err)
{
	struct strvec l4t = STRVEC_INIT, sbsa = STRVEC_INIT, named[2] = { STRVEC_INIT, STRVEC_INIT };
	char *libdir = xasprintf("%s/targets/%s/lib", root, p->target_dir);
	char *jetson_sms = NULL, *list = NULL, *seen = NULL;
	struct cuda_version v;
	const char *found = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (strcmp(p->tag, flavour_tags[0]) != 0 && strcmp(p->tag, flavour_tags[1]) != 0) {
		rc = 0;
		goto out;
	}
	if (cuda_version_parse(p->cuda, &v)) {
		xcc_fail(err, XCC_EFAIL, "the plan's CUDA release '%s' is no version", p->cuda);
		goto out;
	}
	jetson_sms = l4t_only_sms(db, v);
	library_evidence(db, libdir, v, &l4t, &sbsa);
	for (size_t i = 0; i < p->n_archives; i++) {
		const char *tag = package_flavour(&p->archives[i]);

		if (tag)
			strvec_push(&named[tag == flavour_tags[0] ? 0 : 1], p->archives[i].component);
	}
	if (l4t.n && sbsa.n) {
		char *a = short_list(&l4t), *b = short_list(&sbsa);

		xcc_fail(err, XCC_EUSAGE, "the target libraries mix NVIDIA's two aarch64 builds, "
			 "which cannot work together: %s carry SASS for a Jetson GPU (the L4T "
			 "build), %s carry SASS but none for a Jetson GPU (%s: the SBSA build). "
			 "Take every target package from the same build: linux-aarch64 for "
			 "--target jetson before CUDA 13, linux-sbsa for an Arm server",
			 a, b, jetson_sms);
		free(a);
		free(b);
		goto out;
	}
	if (l4t.n) {
		list = short_list(&l4t);
		found = flavour_tags[0];
		out->evidence = xasprintf("SASS for a Jetson GPU, which only the L4T build "
					  "carries, in %s", list);
	} else if (sbsa.n) {
		list = short_list(&sbsa);
		found = flavour_tags[1];
		out->evidence = xasprintf("SASS but none for a Jetson GPU (%s), which the L4T "
					  "build would carry, in %s", jetson_sms, list);
	} else if (named[0].n && named[1].n) {
		char *a = short_list(&named[0]), *b = short_list(&named[1]);

		xcc_fail(err, XCC_EUSAGE, "the target packages mix NVIDIA's two aarch64 builds, "
			 "which cannot work together: %s from linux-aarch64 (L4T, Jetson), %s "
			 "from linux-sbsa (SBSA, Arm servers). Take every target package from "
			 "the same build", a, b);
		free(a);
		free(b);
		goto out;
	} else if (named[0].n || named[1].n) {
		int i = named[0].n ? 0 : 1;

		list = short_list(&named[i]);
		found = flavour_tags[i];
		out->evidence = xasprintf("no SASS in any target library; the packages name "
					  "%s: %s", found, list);
	}
	if (found && strcmp(found, p->tag) != 0) {
		seen = out->evidence;
		out->evidence = NULL;
		if (strcmp(p->tag, flavour_tags[0]) == 0)
			xcc_fail(err, XCC_EUSAGE, "--target %s with CUDA %s needs NVIDIA's %s "
				 "(linux-aarch64), but these target libraries are the %s "
				 "(linux-sbsa). Evidence: %s. Their kernels do not run on a Jetson "
				 "board. Debian's arm64 CUDA packages are SBSA builds: make the "
				 "sysroot from NVIDIA's linux-aarch64 archives (without --from "
				 "cuda-xcc reads NVIDIA's manifest; or --from a redistrib_%d.%d.x "
				 "manifest) or JetPack's own packages; for an Arm server GPU use "
				 "--target sbsa", p->target, p->cuda, flavour_name(p->tag),
				 flavour_name(found), seen, v.major, v.minor);
		else
			xcc_fail(err, XCC_EUSAGE, "--target %s with CUDA %s needs NVIDIA's %s "
				 "(linux-sbsa), but these target libraries are the %s "
				 "(linux-aarch64). Evidence: %s. Make the sysroot from NVIDIA's "
				 "linux-sbsa archives (without --from cuda-xcc reads NVIDIA's "
				 "manifest); for a Jetson board before CUDA 13 use --target jetson",
				 p->target, p->cuda, flavour_name(p->tag), flavour_name(found), seen);
		goto out;
	}
	if (found)
		out->tag = xstrdup(found);
	else
		strvec_pushf(notes, "cannot tell which build of NVIDIA's aarch64 libraries the "
			     "sysroot holds (%s, or %s): no target library carries SASS and the "
			     "packages do not name their build; sysroot.json records none",
			     flavour_name(flavour_tags[0]), flavour_name(flavour_tags[1]));
	rc = 0;
out:
	if (rc)
		sysroot_flavour_free(out);
	free(seen);
	free(list);
	free(jetson_sms);
	free(libdir);
	strvec_free(&l4t);
	strvec_free(&sbsa);
	strvec_free(&named[0]);
	strvec_free(&named[1]);
	return rc;
}
