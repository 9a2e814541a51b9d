#include <config.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/xalloc.h"
#include "db/request.h"
#include "elf/autopatch.h"
#include "elf/devroot.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch.h"

/* Where an indexed library came from. */
enum origin {
	FROM_TREE,   /* inside the tree: reachable through a $ORIGIN RUNPATH */
	FROM_LIBS,   /* a --libs dir outside the tree: the system provides it */
	FROM_SYSTEM, /* the cross toolchain or --target-fs */
};

/* One ELF file met in the tree. */
struct tree_file {
	char *path;    /* as found */
	char *dir;     /* real path of its directory */
	struct elfinfo info;
	int readable;  /* info is valid */
	const char *skip; /* why it is not patched; NULL: patch it */
	struct strvec rpath_dirs; /* real tree dirs it needs */
	int need_dt_rpath;
	int own_unresolved; /* needs tree dirs its own RUNPATH does not reach */
};

struct lib_entry {
	const char *name;
	char *dir;    /* real path */
	char *path;
	/* The file to read when path is a link of a device root: resolved
	 * inside that root (its absolute links name the build machine's
	 * files); NULL reads path. */
	char *in_root;
	int machine, elfclass, osabi;
	enum origin origin;
	ssize_t file; /* index into files for FROM_TREE entries, else -1 */
	int loaded;   /* machine etc. read; system dirs are read on first use */
	int usable;   /* an ELF shared object */
};

struct state {
	const struct autopatch_opts *o;
	struct autopatch_report *r;
	struct strvec roots; /* real paths of the tree's directories */
	struct tree_file *files;
	size_t nfiles, files_cap;
	struct lib_entry *libs;
	size_t nlibs, libs_cap;
	struct strvec searched; /* for the missing lines */
	/* Capacities of the report's arrays. */
	size_t report_files_cap, missing_cap, provided_cap;
};

static char *real_dir(const char *path)
{
	char buf[PATH_MAX];

	return realpath(path, buf) ? xstrdup(buf) : xstrdup(path);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d, *r;

	if (!slash)
		return real_dir(".");
	d = slash == path ? xstrdup("/") : xasprintf("%.*s", (int)(slash - path), path);
	r = real_dir(d);
	free(d);
	return r;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int inside(const char *dir, const char *root)
{
	size_t n = strlen(root);

	return strncmp(dir, root, n) == 0 && (dir[n] == '\0' || dir[n] == '/' ||
					      (n == 1 && root[0] == '/'));
}

static int in_tree(const struct state *st, const char *realdir)
{
	for (size_t i = 0; i < st->roots.n; i++)
		if (inside(realdir, st->roots.v[i]))
			return 1;
	return 0;
}

/* Names the target's C library provides: never copied, never in RUNPATH. */
static int libc_family(const char *name)
{
	static const char *const names[] = {
		"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
		"libutil.so.1", "libresolv.so.2", "libcrypt.so.1", "libnsl.so.1", "libanl.so.1",
		"libmvec.so.1", "libBrokenLocale.so.1", "libc_malloc_debug.so.0", "libthread_db.so.1",
		NULL
	};

	for (const char *const *n = names; *n; n++)
		if (strcmp(name, *n) == 0)
			return 1;
	return strncmp(name, "ld-linux", 8) == 0 || strncmp(name, "ld64.so.", 8) == 0 ||
	       strncmp(name, "ld.so.", 6) == 0;
}

/* Provided by the NVIDIA driver on the device; link against lib/stubs. */
static int driver_library(const char *name)
{
	return strcmp(name, "libcuda.so.1") == 0 || strcmp(name, "libcuda.so") == 0 ||
	       strcmp(name, "libnvidia-ml.so.1") == 0;
}

int autopatch_is_libc(const char *name)
{
	return libc_family(name);
}

int autopatch_is_driver_library(const char *name)
{
	return driver_library(name);
}

static void add_note(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct state *st, const char *fmt, ...)
{
	va_list ap;
	char buf[PATH_MAX * 2 + 128];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	strvec_push(&st->r->notes, buf);
}

static void report_file(struct state *st, const char *path, enum autopatch_action action,
			const char *reason, const struct elfinfo *info)
{
	struct autopatch_file *f;

	XGROW(st->r->files, st->r->n_files + 1, st->report_files_cap);
	f = &st->r->files[st->r->n_files++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->action = action;
	f->reason = reason ? xstrdup(reason) : NULL;
	if (info)
		f->arch = elfinfo_machine_name(info->machine, info->elfclass);
}

static void add_lib(struct state *st, const char *name, const char *dir, const char *path,
		    const struct elfinfo *info, enum origin origin, ssize_t file)
{
	struct lib_entry *e;

	XGROW(st->libs, st->nlibs + 1, st->libs_cap);
	e = &st->libs[st->nlibs++];
	e->dir = xstrdup(dir);
	e->path = xstrdup(path);
	e->in_root = NULL;
	e->name = base_of(e->path);
	(void)name;
	if (info) {
		e->machine = info->machine;
		e->elfclass = info->elfclass;
		e->osabi = info->osabi;
	}
	e->origin = origin;
	e->file = file;
	e->loaded = info != NULL;
	e->usable = info != NULL;
}

static int is_nvvm(const char *name)
{
	return strncmp(name, "libnvvm.so", 10) == 0;
}

/* Look at one regular file of the tree. */
static void visit_file(struct state *st, const char *path)
{
	unsigned char magic[SELFMAG];
	struct tree_file *tf;
	struct xcc_error err = { 0 };
	FILE *f = fopen(path, "rb");
	size_t got = 0;

	if (f) {
		got = fread(magic, 1, sizeof magic, f);
		fclose(f);
	}
	if (!f) {
		add_note(st, "%s: %s", path, strerror(errno));
		return;
	}
	if (!elfinfo_is_elf(magic, got)) {
		report_file(st, path, AUTOPATCH_SKIPPED, "not ELF", NULL);
		return;
	}
	XGROW(st->files, st->nfiles + 1, st->files_cap);
	tf = &st->files[st->nfiles++];
	memset(tf, 0, sizeof *tf);
	tf->path = xstrdup(path);
	tf->dir = dir_of(path);
	if (elfinfo_read(path, &tf->info, &err)) {
		add_note(st, "%s", err.msg);
		tf->skip = "unreadable ELF";
		return;
	}
	tf->readable = 1;
	if (tf->info.is_debug)
		tf->skip = "separate debug file";
	else if (tf->info.type != ET_EXEC && tf->info.type != ET_DYN)
		tf->skip = "not an executable or shared library";
	else if (tf->info.is_static)
		tf->skip = "static executable";
	else if (!tf->info.has_dynamic)
		tf->skip = "no dynamic section";
	else if (is_nvvm(base_of(path)))
		tf->skip = "libnvvm is relocatable already (patchelf is known to corrupt it)";
	if (tf->info.has_dynamic && !tf->info.is_debug && tf->info.type == ET_DYN)
		add_lib(st, base_of(path), tf->dir, path, &tf->info, FROM_TREE,
			(ssize_t)(st->nfiles - 1));
}

/* Symlinks in the tree give libraries their other names. */
static void visit_symlink(struct state *st, const char *path, struct strvec *links)
{
	struct stat sb;
	char target[PATH_MAX];
	ssize_t n;

	if (stat(path, &sb) == 0) {
		strvec_push(links, path);
		return;
	}
	n = readlink(path, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	add_note(st, "dangling symlink: %s -> %s", path, target);
	report_file(st, path, AUTOPATCH_SKIPPED, "dangling symlink", NULL);
}

static void walk(struct state *st, const char *path, struct strvec *links, int depth)
{
	struct stat sb;
	struct strvec names = STRVEC_INIT;

	if (lstat(path, &sb)) {
		add_note(st, "%s: %s", path, strerror(errno));
		return;
	}
	if (S_ISLNK(sb.st_mode)) {
		visit_symlink(st, path, links);
		return;
	}
	if (S_ISREG(sb.st_mode)) {
		visit_file(st, path);
		return;
	}
	if (!S_ISDIR(sb.st_mode) || depth > 64)
		return;
	if (file_list_dir(path, &names)) {
		add_note(st, "%s: %s", path, strerror(errno));
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		char *child = xasprintf("%s/%s", path, names.v[i]);

		walk(st, child, links, depth + 1);
		free(child);
	}
	strvec_free(&names);
}

/* A symlink's name serves as a library name when its target is an
 * indexed library. */
static void index_links(struct state *st, const struct strvec *links)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i < links->n; i++) {
		const char *link = links->v[i];

		if (!realpath(link, buf))
			continue;
		for (size_t k = 0; k < st->nlibs; k++) {
			char other[PATH_MAX];

			if (st->libs[k].origin != FROM_TREE || !realpath(st->libs[k].path, other) ||
			    strcmp(other, buf))
				continue;
			{
				struct elfinfo info = { .machine = st->libs[k].machine,
							 .elfclass = st->libs[k].elfclass,
							 .osabi = st->libs[k].osabi };
				char *dir = dir_of(link);

				add_lib(st, base_of(link), dir, link, &info, FROM_TREE,
					st->libs[k].file);
				free(dir);
			}
			break;
		}
	}
}

/* Every ELF shared object directly in dir (not recursive: a CUDA lib dir's
 * stubs/ must not satisfy anything). */
/* root: the device root filesystem dir is in (--target-fs), whose links
 * are followed inside it, as the device's loader would; else NULL. */
static void index_dir(struct state *st, const char *dir, enum origin origin, const char *root)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec names = STRVEC_INIT;
	char *rdir;

	if (!d)
		return;
	rdir = real_dir(dir);
	if (!strvec_contains(&st->searched, rdir))
		strvec_push(&st->searched, rdir);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".so"))
			strvec_push(&names, de->d_name);
	closedir(d);
	strvec_sort(&names);
	/* A system lib dir holds hundreds of libraries: only the names a file
	 * asks for are ever read. */
	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", rdir, names.v[i]), *in_root = NULL;

		if (root) {
			char *rel = xasprintf("%s/%s", dir + strlen(root), names.v[i]);

			in_root = devroot_resolve(root, rel);
			free(rel);
		}
		/* A link that names nothing inside the root is nothing on the device. */
		if (!root || in_root) {
			add_lib(st, names.v[i], rdir, path, NULL, origin, -1);
			st->libs[st->nlibs - 1].in_root = in_root;
		}
		free(path);
	}
	free(rdir);
	strvec_free(&names);
}

/* The directories the cross compiler keeps the target's libstdc++ and
 * libgcc_s in (Debian: /usr/aarch64-linux-gnu/lib). */
static int toolchain_dirs(const char *prefix, struct strvec *dirs, struct xcc_error *err)
{
	static const char *const names[] = { "libstdc++.so.6", "libgcc_s.so.1" };
	char *gcc = xasprintf("%sgcc", prefix), *which = proc_which(gcc);

	if (!which) {
		xcc_fail(err, XCC_EUSAGE,
			 "--cross-prefix %s: %s is not on PATH (on Debian: apt-get install "
			 "gcc-%.*s)", prefix, gcc, (int)(strlen(prefix) ? strlen(prefix) - 1 : 0),
			 prefix);
		free(gcc);
		return -1;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *arg = xasprintf("-print-file-name=%s", names[i]), *out = NULL;
		char *argv[] = { gcc, arg, NULL };

		if (proc_capture(argv, &out, NULL) == 0 && out) {
			out[strcspn(out, "\n")] = '\0';
			/* gcc echoes the bare name when it does not have the file. */
			if (out[0] == '/' && access(out, R_OK) == 0) {
				char *d = dir_of(out);

				if (!strvec_contains(dirs, d))
					strvec_push(dirs, d);
				free(d);
			}
		}
		free(out);
		free(arg);
	}
	free(which);
	free(gcc);
	return 0;
}

/* root's dir rel as the device has it: a dir reached through a link that
 * would leave the root on this machine (lib -> /usr/lib) by its in-root
 * path. Nothing when the root has no dir there. */
static void push_root_dir(const char *root, const char *rel, struct strvec *dirs)
{
	struct xcc_error err = { 0 };
	char *host = NULL;

	if (!devroot_escapes(root, rel)) {
		strvec_pushf(dirs, "%s/%s", root, rel);
		return;
	}
	if (devroot_lookup(root, rel, &host, &err) == 0 && file_is_dir(host))
		strvec_push(dirs, host);
	xcc_error_clear(&err);
	free(host);
}

static void target_fs_dirs(const char *root, struct strvec *dirs)
{
	static const char *const sub[] = {
		"lib", "usr/lib", "lib64", "usr/lib64", NULL
	};
	static const char *const triples[] = {
		"aarch64-linux-gnu", "x86_64-linux-gnu", "powerpc64le-linux-gnu",
		"arm-linux-gnueabihf", "i386-linux-gnu", NULL
	};

	/* The multiarch dirs first: that is where Debian-style systems keep them. */
	for (const char *const *t = triples; *t; t++) {
		char *a = xasprintf("lib/%s", *t), *b = xasprintf("usr/lib/%s", *t);

		push_root_dir(root, a, dirs);
		push_root_dir(root, b, dirs);
		free(a);
		free(b);
	}
	for (const char *const *s = sub; *s; s++)
		push_root_dir(root, *s, dirs);
	/* L4T keeps the driver libraries here. */
	push_root_dir(root, "usr/lib/aarch64-linux-gnu/tegra", dirs);
}

static void load_entry(struct lib_entry *e)
{
	struct elfinfo info;
	struct xcc_error err = { 0 };
	struct stat sb;
	const char *file = e->in_root ? e->in_root : e->path;

	e->loaded = 1;
	if (stat(file, &sb) || !S_ISREG(sb.st_mode) || elfinfo_read(file, &info, &err))
		return;
	e->usable = info.type == ET_DYN && !info.is_debug;
	e->machine = info.machine;
	e->elfclass = info.elfclass;
	e->osabi = info.osabi;
	elfinfo_free(&info);
}

static int compatible(struct lib_entry *e, const struct elfinfo *i)
{
	if (!e->loaded)
		load_entry(e);
	if (!e->usable)
		return 0;
	return e->machine == i->machine && e->elfclass == i->elfclass &&
	       (e->osabi == i->osabi || e->osabi == ELFOSABI_SYSV || i->osabi == ELFOSABI_SYSV);
}

/* The library a file gets for name: its own dir first, then the tree, the
 * --libs dirs and the system, in that order. */
static const struct lib_entry *resolve(struct state *st, const struct tree_file *tf,
				       const char *name)
{
	const struct lib_entry *best = NULL;

	for (size_t i = 0; i < st->nlibs; i++) {
		struct lib_entry *e = &st->libs[i];

		if (strcmp(e->name, name) || !compatible(e, &tf->info))
			continue;
		if (e->origin == FROM_TREE && strcmp(e->dir, tf->dir) == 0)
			return e;
		if (!best || e->origin < best->origin)
			best = e;
	}
	return best;
}

/* "$ORIGIN/../lib" for a file in from reaching to. */
static char *origin_path(const char *from, const char *to)
{
	size_t common = 0, i = 0;
	char *out;
	int ups = 0;

	/* The longest common prefix ending at a component boundary. */
	for (; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i;
	if ((from[i] == '\0' || from[i] == '/') && (to[i] == '\0' || to[i] == '/'))
		common = i;
	for (const char *p = from + common; *p; p++)
		if (*p == '/')
			ups++;
	out = xstrdup("$ORIGIN");
	for (int k = 0; k < ups; k++) {
		char *n = xasprintf("%s/..", out);

		free(out);
		out = n;
	}
	if (to[common]) {
		char *n = xasprintf("%s%s", out, to + common);

		free(out);
		out = n;
	}
	return out;
}

static int ignored(const struct autopatch_opts *o, const char *lib)
{
	for (size_t i = 0; i < o->ignore_missing.n; i++)
		if (fnmatch(o->ignore_missing.v[i], lib, 0) == 0)
			return 1;
	return 0;
}

static void add_missing(struct state *st, const struct tree_file *tf, const char *lib)
{
	struct autopatch_missing *m;
	char *searched, *d = dir_of(tf->path);
	struct strvec dirs = STRVEC_INIT;

	strvec_push(&dirs, d);
	for (size_t i = 0; i < st->searched.n; i++)
		if (!strvec_contains(&dirs, st->searched.v[i]))
			strvec_push(&dirs, st->searched.v[i]);
	searched = strvec_join(&dirs, ":");
	XGROW(st->r->missing, st->r->n_missing + 1, st->missing_cap);
	m = &st->r->missing[st->r->n_missing++];
	m->file = xstrdup(tf->path);
	m->library = xstrdup(lib);
	m->arch = elfinfo_machine_name(tf->info.machine, tf->info.elfclass);
	m->searched = searched;
	m->ignored = ignored(st->o, lib);
	if (!m->ignored)
		st->r->n_missing_unignored++;
	strvec_free(&dirs);
	free(d);
}

static void add_provided(struct state *st, const struct tree_file *tf, const char *lib,
			 const char *by)
{
	struct autopatch_provided *p;

	XGROW(st->r->provided, st->r->n_provided + 1, st->provided_cap);
	p = &st->r->provided[st->r->n_provided++];
	p->file = xstrdup(tf->path);
	p->library = xstrdup(lib);
	p->by = xstrdup(by);
}

/* The file's current search path, $ORIGIN expanded, as real dirs. */
static void current_dirs(const struct tree_file *tf, struct strvec *out)
{
	const char *rp = tf->info.runpath ? tf->info.runpath : tf->info.rpath;
	char *list, *save = NULL;

	if (!rp)
		return;
	list = xstrdup(rp);
	for (char *tok = strtok_r(list, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *p;

		if (strncmp(tok, "$ORIGIN", 7) == 0)
			p = xasprintf("%s%s", tf->dir, tok + 7);
		else if (strncmp(tok, "${ORIGIN}", 9) == 0)
			p = xasprintf("%s%s", tf->dir, tok + 9);
		else
			p = xstrdup(tok);
		strvec_push(out, p);
		free(p);
		{
			char *r = real_dir(out->v[out->n - 1]);

			free(out->v[out->n - 1]);
			out->v[out->n - 1] = r;
		}
	}
	free(list);
}

static void resolve_all(struct state *st)
{
	for (size_t i = 0; i < st->nfiles; i++) {
		struct tree_file *tf = &st->files[i];
		struct strvec cur = STRVEC_INIT;

		if (tf->skip && !tf->readable)
			continue;
		current_dirs(tf, &cur);
		for (size_t k = 0; k < tf->info.needed.n; k++) {
			const char *lib = tf->info.needed.v[k];
			const struct lib_entry *e;

			if (strchr(lib, '/'))
				continue;
			if (libc_family(lib)) {
				if (!tf->skip)
					add_provided(st, tf, lib, "target C library");
				continue;
			}
			if (driver_library(lib)) {
				if (!tf->skip)
					add_provided(st, tf, lib, "driver");
				continue;
			}
			e = resolve(st, tf, lib);
			if (!e) {
				if (!tf->skip || strcmp(tf->skip, "unreadable ELF"))
					add_missing(st, tf, lib);
				continue;
			}
			if (e->origin != FROM_TREE) {
				if (!tf->skip)
					add_provided(st, tf, lib, e->path);
				continue;
			}
			if (!strvec_contains(&tf->rpath_dirs, e->dir))
				strvec_push(&tf->rpath_dirs, e->dir);
			if (strcmp(e->dir, tf->dir) && !strvec_contains(&cur, e->dir))
				tf->own_unresolved = 1;
			/* What the loader would do with the file as it is now. */
			if (st->o->dry_run && !tf->skip && !strvec_contains(&cur, e->dir)) {
				add_note(st, "%s needs %s from %s, which its run path does not reach",
					 tf->path, lib, e->dir);
				st->r->n_stale++;
			}
		}
		strvec_free(&cur);
	}
	/* RUNPATH does not reach a library's own dependencies: when a library
	 * we do not patch needs tree dirs its RUNPATH misses, the files that
	 * load it carry those dirs in DT_RPATH, which is inherited. */
	for (size_t i = 0; i < st->nfiles; i++) {
		struct tree_file *tf = &st->files[i];

		if (tf->skip || !tf->readable)
			continue;
		for (size_t k = 0; k < tf->info.needed.n; k++) {
			const struct lib_entry *e = resolve(st, tf, tf->info.needed.v[k]);
			const struct tree_file *dep;

			if (!e || e->origin != FROM_TREE || e->file < 0)
				continue;
			dep = &st->files[e->file];
			if (!dep->skip || !dep->own_unresolved)
				continue;
			tf->need_dt_rpath = 1;
			for (size_t j = 0; j < dep->rpath_dirs.n; j++)
				if (!strvec_contains(&tf->rpath_dirs, dep->rpath_dirs.v[j]))
					strvec_push(&tf->rpath_dirs, dep->rpath_dirs.v[j]);
		}
	}
}

/* The search path to write: found tree dirs, then the $ORIGIN entries the
 * file had (dlopen relies on them), then --append-rpath. */
static char *wanted_rpath(const struct state *st, const struct tree_file *tf)
{
	struct strvec out = STRVEC_INIT;
	const char *old = tf->info.runpath ? tf->info.runpath : tf->info.rpath;
	char *s;

	for (size_t i = 0; i < tf->rpath_dirs.n; i++) {
		char *p = origin_path(tf->dir, tf->rpath_dirs.v[i]);

		if (!strvec_contains(&out, p))
			strvec_push(&out, p);
		free(p);
	}
	if (old) {
		char *list = xstrdup(old), *save = NULL;

		for (char *tok = strtok_r(list, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
			if ((strncmp(tok, "$ORIGIN", 7) == 0 || strncmp(tok, "${ORIGIN}", 9) == 0) &&
			    !strvec_contains(&out, tok))
				strvec_push(&out, tok);
		free(list);
	}
	for (size_t i = 0; i < st->o->append_rpath.n; i++)
		if (!strvec_contains(&out, st->o->append_rpath.v[i]))
			strvec_push(&out, st->o->append_rpath.v[i]);
	s = strvec_join(&out, ":");
	strvec_free(&out);
	return s;
}

static int patch_all(struct state *st, struct xcc_error *err)
{
	int failed = 0;

	for (size_t i = 0; i < st->nfiles; i++) {
		struct tree_file *tf = &st->files[i];
		const char *old = tf->info.runpath ? tf->info.runpath : tf->info.rpath;
		int want_dt_rpath = st->o->force_rpath || tf->need_dt_rpath;
		int has_dt_rpath = !tf->info.runpath && tf->info.rpath;
		struct autopatch_file *rf;
		char *want;

		if (tf->skip) {
			report_file(st, tf->path, AUTOPATCH_SKIPPED, tf->skip,
				    tf->readable ? &tf->info : NULL);
			continue;
		}
		want = wanted_rpath(st, tf);
		if ((!*want && !old) ||
		    (old && strcmp(old, want) == 0 && (!*want || want_dt_rpath == has_dt_rpath))) {
			report_file(st, tf->path, AUTOPATCH_UNCHANGED, NULL, &tf->info);
			free(want);
			continue;
		}
		report_file(st, tf->path, AUTOPATCH_PATCHED, NULL, &tf->info);
		rf = &st->r->files[st->r->n_files - 1];
		rf->old_rpath = old ? xstrdup(old) : NULL;
		rf->new_rpath = xstrdup(want);
		rf->rpath_is_dt_rpath = want_dt_rpath;
		if (!st->o->dry_run) {
			struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
			struct elfpatch_result res = { 0 };
			struct xcc_error perr = { 0 };

			ops.rpath_op = *want ? ELFPATCH_RPATH_SET : ELFPATCH_RPATH_REMOVE;
			ops.rpath = want;
			ops.force_rpath = want_dt_rpath;
			ops.page_size = st->o->page_size;
			if (elfpatch_file(tf->path, &ops, &res, &perr)) {
				add_note(st, "%s", perr.msg);
				rf->action = AUTOPATCH_SKIPPED;
				free(rf->reason);
				rf->reason = xstrdup("patch failed");
				if (!failed)
					*err = perr;
				failed++;
			}
			elfpatch_result_free(&res);
		}
		free(want);
	}
	return failed ? -1 : 0;
}

static void state_free(struct state *st)
{
	for (size_t i = 0; i < st->nfiles; i++) {
		free(st->files[i].path);
		free(st->files[i].dir);
		elfinfo_free(&st->files[i].info);
		strvec_free(&st->files[i].rpath_dirs);
	}
	free(st->files);
	for (size_t i = 0; i < st->nlibs; i++) {
		free(st->libs[i].dir);
		free(st->libs[i].path);
		free(st->libs[i].in_root);
	}
	free(st->libs);
	strvec_free(&st->roots);
	strvec_free(&st->searched);
}

int autopatch_run(const struct autopatch_opts *o, struct autopatch_report *r,
		  struct xcc_error *err)
{
	struct state st = { .o = o, .r = r };
	struct strvec links = STRVEC_INIT, sysdirs = STRVEC_INIT, fsdirs = STRVEC_INIT;
	int rc = -1;

	r->dry_run = o->dry_run;
	if (!o->paths.n)
		return xcc_fail(err, XCC_EUSAGE, "autopatch: no PATH to patch given");
	for (size_t i = 0; i < o->paths.n; i++) {
		struct stat sb;

		if (lstat(o->paths.v[i], &sb)) {
			xcc_fail(err, XCC_EUSAGE, "%s: %s", o->paths.v[i], strerror(errno));
			goto out;
		}
		if (S_ISDIR(sb.st_mode)) {
			char *d = real_dir(o->paths.v[i]);

			strvec_push(&st.roots, d);
			free(d);
		} else {
			char *d = dir_of(o->paths.v[i]);

			strvec_push(&st.roots, d);
			free(d);
		}
	}
	for (size_t i = 0; i < o->libs.n; i++) {
		struct stat sb;

		if (stat(o->libs.v[i], &sb) || !S_ISDIR(sb.st_mode)) {
			xcc_fail(err, XCC_EUSAGE, "--libs %s: not a directory", o->libs.v[i]);
			goto out;
		}
	}
	if (o->target_fs && request_rootfs(o->target_fs, err))
		goto out;
	if (o->cross_prefix && toolchain_dirs(o->cross_prefix, &sysdirs, err))
		goto out;
	if (o->target_fs)
		target_fs_dirs(o->target_fs, &fsdirs);

	for (size_t i = 0; i < st.roots.n; i++)
		if (!strvec_contains(&st.searched, st.roots.v[i]))
			strvec_push(&st.searched, st.roots.v[i]);
	for (size_t i = 0; i < o->paths.n; i++)
		walk(&st, o->paths.v[i], &links, 0);
	index_links(&st, &links);
	for (size_t i = 0; i < o->libs.n; i++) {
		char *d = real_dir(o->libs.v[i]);

		index_dir(&st, o->libs.v[i], in_tree(&st, d) ? FROM_TREE : FROM_LIBS, NULL);
		free(d);
	}
	for (size_t i = 0; i < sysdirs.n; i++)
		index_dir(&st, sysdirs.v[i], FROM_SYSTEM, NULL);
	for (size_t i = 0; i < fsdirs.n; i++)
		index_dir(&st, fsdirs.v[i], FROM_SYSTEM, o->target_fs);

	resolve_all(&st);
	if (patch_all(&st, err))
		goto out;
	if (r->n_missing_unignored) {
		xcc_fail(err, XCC_EFAIL,
			 "%zu dependenc%s did not resolve (listed above); add the directory "
			 "that has %s with --libs, or allow %s with --ignore-missing GLOB",
			 r->n_missing_unignored, r->n_missing_unignored == 1 ? "y" : "ies",
			 r->n_missing_unignored == 1 ? "it" : "them",
			 r->n_missing_unignored == 1 ? "it" : "them");
		goto out;
	}
	if (r->n_stale) {
		xcc_fail(err, XCC_EFAIL,
			 "%zu needed librar%s in the tree but not on the run path of the file "
			 "that needs %s (listed above); run cuda-xcc autopatch on it",
			 r->n_stale, r->n_stale == 1 ? "y is" : "ies are",
			 r->n_stale == 1 ? "it" : "them");
		goto out;
	}
	rc = 0;
out:
	strvec_free(&links);
	strvec_free(&sysdirs);
	strvec_free(&fsdirs);
	state_free(&st);
	return rc;
}

void autopatch_opts_free(struct autopatch_opts *o)
{
	strvec_free(&o->paths);
	strvec_free(&o->libs);
	strvec_free(&o->ignore_missing);
	strvec_free(&o->append_rpath);
	*o = (struct autopatch_opts)AUTOPATCH_OPTS_INIT;
}
