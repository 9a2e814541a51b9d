#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "db/request.h"

int request_target(const struct gpudb *db, const char *name, const struct target_profile **out,
		   struct xcc_error *err)
{
	char *names;

	if ((*out = gpudb_target(db, name)))
		return 0;
	names = gpudb_target_names(db);
	xcc_fail(err, XCC_EUSAGE, "unknown target '%s'; known targets: %s", name, names);
	free(names);
	return -1;
}

int request_cuda(const char *s, struct cuda_version *out, struct xcc_error *err)
{
	if (cuda_version_parse(s, out))
		return xcc_fail(err, XCC_EUSAGE, "'%s' is not a CUDA version (e.g. 12.6 or 12.6.3)",
				s);
	return 0;
}

int request_jetpack(const struct jetpack_db *db, const char *version,
		    const struct jetpack_release **out, struct xcc_error *err)
{
	const struct jetpack_release *line;
	char *known;

	if ((*out = jetpack_find(db, version)))
		return 0;
	/* A point release the table does not list: its L4T and CUDA are not
	 * known, so it is not taken for another of its line. */
	if ((line = jetpack_find_line(db, version))) {
		known = jetpack_point_versions(line);
		xcc_fail(err, XCC_EUSAGE, "--jetpack %s is not a JetPack release cuda-xcc knows; "
			 "the point releases of JetPack %s it knows: %s (or --jetpack %s for any "
			 "of them)", version, line->version, known, line->version);
		free(known);
		return -1;
	}
	known = jetpack_versions(db);
	xcc_fail(err, XCC_EUSAGE, "--jetpack %s is not a JetPack release cuda-xcc knows; known: %s",
		 version, known);
	free(known);
	return -1;
}

int request_rootfs(const char *rootfs, struct xcc_error *err)
{
	if (!file_is_dir(rootfs))
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s is not a directory: pass the "
				"device's root filesystem (a copy or a mount of it)", rootfs);
	return 0;
}

int request_rootfs_for_nvcc(const char *rootfs, char **abs, struct xcc_error *err)
{
	*abs = NULL;
	if (request_rootfs(rootfs, err))
		return -1;
	/* nvcc splits its -Xcompiler and -Xlinker values at commas. */
	if (strchr(rootfs, ','))
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s: nvcc splits its -Xcompiler and "
				"-Xlinker values at commas; use a path without ','", rootfs);
	if (!(*abs = realpath(rootfs, NULL)))
		return xcc_fail(err, XCC_EFAIL, "--target-fs %s: %s", rootfs, strerror(errno));
	return 0;
}
