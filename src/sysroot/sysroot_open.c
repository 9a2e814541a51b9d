#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/glibc.h"
#include "sysroot/sysroot_open.h"

int sysroot_cuda_matches(const char *asked, const char *have)
{
	struct cuda_version a, h;

	if (cuda_version_parse(asked, &a) || cuda_version_parse(have, &h))
		return strcmp(asked, have) == 0;
	return cuda_version_cmp(a, h) == 0 && (a.patch < 0 || a.patch == h.patch);
}

int sysroot_meta_check(const struct gpudb *db, const struct sysroot_meta *m,
		       const struct target_profile **target, struct cuda_version *cuda,
		       struct xcc_error *err)
{
	if (!(*target = gpudb_target(db, m->target))) {
		char *names = gpudb_target_names(db);

		xcc_fail(err, XCC_EFAIL, "%s/%s names the unknown target '%s' (this cuda-xcc "
			 "knows %s): recreate the sysroot, or use the cuda-xcc that made it",
			 m->dir, SYSROOT_META_FILE, m->target, names);
		free(names);
		return -1;
	}
	if (cuda_version_parse(m->cuda, cuda))
		return xcc_fail(err, XCC_EFAIL, "%s/%s names the CUDA release '%s', which does "
				"not parse: recreate the sysroot", m->dir, SYSROOT_META_FILE, m->cuda);
	return 0;
}

int sysroot_check_want(const struct sysroot *s, const struct sysroot_want *want,
		       struct xcc_error *err)
{
	const struct sysroot_meta *m = &s->meta;

	if (want->target && strcmp(want->target, m->target) != 0)
		return xcc_fail(err, XCC_EUSAGE, "sysroot %s was made for --target %s, not %s: "
				"drop --target, or pass a sysroot made for %s", m->dir, m->target,
				want->target, want->target);
	if (want->cuda && !sysroot_cuda_matches(want->cuda, m->cuda))
		return xcc_fail(err, XCC_EUSAGE, "sysroot %s holds CUDA %s, not %s: drop --cuda, "
				"or pass a sysroot made for CUDA %s", m->dir, m->cuda, want->cuda,
				want->cuda);
	if (want->jetpack && m->jetpack && strcmp(want->jetpack, m->jetpack) != 0)
		return xcc_fail(err, XCC_EUSAGE, "sysroot %s was made for JetPack %s, not %s: "
				"drop --jetpack, or pass a sysroot made for JetPack %s", m->dir,
				m->jetpack, want->jetpack, want->jetpack);
	return 0;
}

/* The device root in force: --target-fs wins over the recorded one. */
static int open_device_root(struct sysroot *s, const struct sysroot_want *want,
			    struct xcc_error *err)
{
	const char *given = want->target_fs, *root = given ? given : s->meta.target_fs;

	if (!root)
		return 0;
	if (!given && !file_is_dir(root))
		return xcc_fail(err, XCC_EUSAGE, "sysroot %s was made for the device root "
				"filesystem %s, which is no longer a directory: mount it again, "
				"pass --target-fs DIR, or recreate the sysroot", s->meta.dir, root);
	if (glibc_check_rootfs(root, s->target->triple, &s->target_libc, err))
		return given ? -1 : xcc_error_prefix(err, "sysroot %s records a device root "
						     "filesystem that is not one", s->meta.dir);
	s->target_fs = file_absolute(root);
	s->target_fs_recorded = !given;
	return 0;
}

int sysroot_open(const struct gpudb *db, const char *dir, const struct sysroot_want *want,
		 struct sysroot *s, struct xcc_error *err)
{
	static const struct sysroot_want none;
	char *abs = NULL;

	memset(s, 0, sizeof *s);
	if (!want)
		want = &none;
	if (!file_is_dir(dir))
		return xcc_fail(err, XCC_EUSAGE, "no sysroot at %s (no such directory): make "
				"one there with 'cuda-xcc sysroot create --dest %s' and the --target, "
				"--cuda and -arch it is for", dir, dir);
	abs = file_absolute(dir);
	if (sysroot_meta_load(abs, &s->meta, err))
		goto fail;
	if (sysroot_meta_check(db, &s->meta, &s->target, &s->cuda, err) ||
	    sysroot_check_want(s, want, err))
		goto fail;
	if (open_device_root(s, want, err)) {
		if (!want->inspect)
			goto fail;
		s->target_fs_problem = xstrdup(err->msg);
	}
	free(abs);
	return 0;
fail:
	free(abs);
	sysroot_close(s);
	return -1;
}

void sysroot_close(struct sysroot *s)
{
	sysroot_meta_free(&s->meta);
	free(s->target_fs);
	free(s->target_libc);
	free(s->target_fs_problem);
	memset(s, 0, sizeof *s);
}
