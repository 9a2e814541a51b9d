#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/glibc.h"
#include "use/link_check.h"

/*
 * The runtime floor rules after a link, shared by driver mode (after nvcc
 * links) and `cuda-xcc check-link` (after any link: the CMake toolchain
 * file's C, C++ and CUDA linker launcher). Nothing here prints: each check
 * that could not run is a finding of its own, so that no caller can take
 * it for a pass.
 */

static struct link_finding *add_finding(struct link_check_report *r, enum link_floor floor,
					const char *file)
{
	struct link_finding *f;

	XGROW(r->v, r->n + 1, r->cap);
	f = &r->v[r->n++];
	memset(f, 0, sizeof *f);
	f->floor = floor;
	f->file = xstrdup(file);
	f->needs = (struct strvec)STRVEC_INIT;
	return f;
}

static void add_unchecked(struct link_check_report *r, enum link_floor floor, const char *file,
			  const struct xcc_error *err)
{
	add_finding(r, floor, file)->why = xstrdup(err->msg);
}

/* A GLIBC_ need above the root's libc: the program does not start on that
 * device, whatever made the need (the root may lack the development files
 * that would explain it). */
static void check_root_libc(const struct linked_program *prog, struct link_check_report *r)
{
	struct xcc_error err = { 0 };
	struct glibc_report g;
	struct link_finding *f;

	if (glibc_check(prog->file, prog->target_libc, &g, &err)) {
		add_unchecked(r, LINK_FLOOR_ROOT_LIBC, prog->file, &err);
		goto out;
	}
	if (!g.missing.n)
		goto out;
	f = add_finding(r, LINK_FLOOR_ROOT_LIBC, prog->file);
	f->above = 1;
	strvec_free(&f->needs);
	f->needs = g.missing;
	g.missing = (struct strvec)STRVEC_INIT;
	f->needed_max = g.needed_max;
	f->provided_max = g.provided_max;
	g.needed_max = g.provided_max = NULL;
out:
	glibc_report_free(&g);
	xcc_error_clear(&err);
}

/* The program and the libraries it needs that the sysroot provides (they
 * go to the device with it): the files whose version needs count. */
static void program_files(const struct linked_program *prog, struct strvec *files)
{
	struct xcc_error err = { 0 };
	struct elfinfo info;

	strvec_push(files, prog->file);
	if (!prog->sysroot || !prog->target_dir || elfinfo_read(prog->file, &info, &err))
		return;
	for (size_t i = 0; i < info.needed.n; i++) {
		char *lib = xasprintf("%s/targets/%s/lib/%s", prog->sysroot, prog->target_dir,
				      info.needed.v[i]);

		if (access(lib, R_OK) == 0)
			strvec_push(files, lib);
		free(lib);
	}
	elfinfo_free(&info);
}

/* The needs of prog's files above floor, as one finding of kind which:
 * the first file with a need above it (the fix is the same for the
 * others), after a finding for each file that could not be read. Returns
 * that finding, or NULL when every file is within the floor. */
static struct link_finding *check_files(const struct linked_program *prog,
					const struct runtime_floor *floor, enum link_floor which,
					struct link_check_report *r)
{
	struct strvec files = STRVEC_INIT, above = STRVEC_INIT;
	struct link_finding *f = NULL;

	program_files(prog, &files);
	for (size_t i = 0; i < files.n && !f; i++) {
		struct xcc_error err = { 0 };

		if (runtime_floor_check(files.v[i], floor, &above, &err)) {
			add_unchecked(r, which, files.v[i], &err);
			xcc_error_clear(&err);
			continue;
		}
		if (!above.n)
			continue;
		f = add_finding(r, which, files.v[i]);
		f->above = 1;
		strvec_free(&f->needs);
		f->needs = above;
		above = (struct strvec)STRVEC_INIT;
	}
	strvec_free(&above);
	strvec_free(&files);
	return f;
}

/*
 * The C++ runtime's floor on a --target-fs root is that root's own
 * libstdc++ and libgcc_s, whatever the JetPack tables say. Debian's cross
 * g++ links its own (newer) libstdc++ when the root has no development
 * link, so a program may need a GLIBCXX_, CXXABI_ or GCC_ version the
 * device does not define.
 */
static void check_root_cxx(const struct linked_program *prog, struct link_check_report *r)
{
	struct runtime_floor floor = { NULL, NULL, NULL, NULL };
	struct link_finding *f;
	struct xcc_error err = { 0 };
	char *dev;

	r->root_glibcxx = glibc_version_defs_newest(prog->target_libstdcxx, "GLIBCXX_");
	r->root_cxxabi = glibc_version_defs_newest(prog->target_libstdcxx, "CXXABI_");
	r->root_gcc_s = glibc_version_defs_newest(prog->target_libgcc_s, "GCC_");
	if (!r->root_glibcxx && !r->root_cxxabi && !r->root_gcc_s)
		return;
	floor.glibcxx = r->root_glibcxx;
	floor.cxxabi = r->root_cxxabi;
	floor.gcc_s = r->root_gcc_s;
	if (!(f = check_files(prog, &floor, LINK_FLOOR_ROOT_CXX, r)))
		return;
	dev = glibc_version_defs_max(prog->target_libc, "GLIBC_", &err);
	f->fix = glibc_cxx_runtime_fix(prog->triple, dev);
	free(dev);
	xcc_error_clear(&err);
}

/*
 * After any link for a Jetson: will the program start on the JetPack it is
 * for (--jetpack, the sysroot's, else the oldest one that runs these GPUs
 * with this CUDA)? The program's version needs, and those of the libraries
 * it takes from the sysroot, are compared with that JetPack's glibc,
 * libstdc++ and libgcc_s.
 */
static void check_jetpack(const struct linked_program *prog, const struct jetpack_release *jp,
			  struct link_check_report *r)
{
	struct runtime_floor floor = { jp->glibc, jp->glibcxx, jp->cxxabi, jp->gcc_s };
	struct link_finding *f = check_files(prog, &floor, LINK_FLOOR_JETPACK, r);
	char *floor_glibc;

	if (!f)
		return;
	floor_glibc = xasprintf("GLIBC_%s", jp->glibc);
	f->fix = glibc_cxx_runtime_fix(prog->triple, floor_glibc);
	free(floor_glibc);
}

void link_check(const struct linked_program *prog, const struct jetpack_release *jp,
		struct link_check_report *r)
{
	enum elfinfo_kind kind;

	memset(r, 0, sizeof *r);
	/* The file itself first: one that is missing, unreadable or no ELF
	 * file is checked against no floor at all. */
	if (elfinfo_classify(prog->file, &kind, &r->file_error)) {
		r->status = LINK_CHECK_UNCHECKED;
		return;
	}
	if (kind == ELFINFO_KIND_AR) {
		r->status = LINK_CHECK_EXEMPT;
		return;
	}
	if (!prog->target_libc && !jp) {
		r->status = LINK_CHECK_NO_FLOOR;
		return;
	}
	if (prog->target_libc) {
		check_root_libc(prog, r);
		check_root_cxx(prog, r);
	}
	if (jp)
		check_jetpack(prog, jp, r);
	r->status = LINK_CHECK_PASS;
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].above)
			r->status = LINK_CHECK_ABOVE;
		else if (r->status == LINK_CHECK_PASS)
			r->status = LINK_CHECK_UNCHECKED;
	}
}

void link_check_report_free(struct link_check_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].file);
		free(r->v[i].why);
		strvec_free(&r->v[i].needs);
		free(r->v[i].needed_max);
		free(r->v[i].provided_max);
		free(r->v[i].fix);
	}
	free(r->v);
	xcc_error_clear(&r->file_error);
	free(r->root_glibcxx);
	free(r->root_cxxabi);
	free(r->root_gcc_s);
	memset(r, 0, sizeof *r);
}
