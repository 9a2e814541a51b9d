#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "pkg/fetch.h"
#include "use/linkdirs.h"

int stub_libcuda_dir(const char *sysroot, const char *target_dir, char **dir,
		     struct xcc_error *err)
{
	char *stub = xasprintf("%s/targets/%s/lib/stubs/libcuda.so", sysroot, target_dir);
	char *abs = file_absolute(stub), *cache = fetch_default_cache_dir(), *link = NULL,
	     *old = NULL, hex[65];
	int rc = -1;

	*dir = NULL;
	if (access(stub, R_OK)) {
		xcc_fail(err, XCC_EUSAGE, "the sysroot has no %s to stand in for the driver's "
			 "libcuda.so.1", stub);
		goto out;
	}
	/* One directory per stub: sysroots at other paths do not share one. */
	xcc_sha256_buffer(abs, strlen(abs), hex);
	hex[16] = '\0';
	*dir = xasprintf("%s/stub-libcuda/%s", cache, hex);
	link = xasprintf("%s/libcuda.so.1", *dir);
	if (file_mkdir_p(*dir, err))
		goto out;
	old = realpath(link, NULL);
	if (!old || strcmp(old, abs) != 0) {
		/* Replaced by a rename: a link or run meanwhile sees one whole link. */
		char *tmp = xasprintf("%s.tmp.%ld", link, (long)getpid());

		unlink(tmp);
		if (symlink(abs, tmp) || rename(tmp, link)) {
			xcc_fail(err, XCC_EFAIL, "cannot link %s to %s: %s", link, abs,
				 strerror(errno));
			unlink(tmp);
			free(tmp);
			goto out;
		}
		free(tmp);
	}
	rc = 0;
out:
	if (rc) {
		free(*dir);
		*dir = NULL;
	}
	free(stub);
	free(abs);
	free(cache);
	free(link);
	free(old);
	return rc;
}

int link_rpath_dirs(const char *sysroot, const char *target_dir, struct strvec *dirs,
		    struct xcc_error *err)
{
	char *lib = xasprintf("%s/targets/%s/lib", sysroot, target_dir);
	char *stub = xasprintf("%s/stubs/libcuda.so", lib), *abs = file_absolute(lib);
	char *stubs = NULL;
	int rc = 0;

	strvec_push(dirs, abs);
	if (access(stub, R_OK) == 0) {
		rc = stub_libcuda_dir(sysroot, target_dir, &stubs, err);
		if (rc == 0)
			strvec_push(dirs, stubs);
		else
			xcc_error_prefix(err, "the stub libcuda.so.1 for the links");
	}
	free(stubs);
	free(abs);
	free(lib);
	free(stub);
	return rc;
}

void link_rpath_nvcc_args(const char *sysroot, const char *target_dir, struct strvec *argv,
			  struct strvec *warnings)
{
	struct strvec dirs = STRVEC_INIT;
	struct xcc_error err = { 0 };

	/* A link that needs no libcuda.so.1 should not fail for want of it. */
	if (link_rpath_dirs(sysroot, target_dir, &dirs, &err))
		strvec_pushf(warnings, "%s: a library that NEEDs libcuda.so.1 is not followed; "
			     "set XDG_CACHE_HOME to a directory this user can write", err.msg);
	for (size_t i = 0; i < dirs.n; i++)
		if (strchr(dirs.v[i], ','))
			strvec_pushf(warnings, "%s has a comma, which nvcc splits, so it is not on "
				     "the link's -rpath-link: a library that NEEDs the sysroot's "
				     "libraries is not followed; move it to a path without one",
				     dirs.v[i]);
		else
			strvec_pushf(argv, "-Xlinker=-rpath-link=%s", dirs.v[i]);
	strvec_free(&dirs);
}
