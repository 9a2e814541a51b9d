/* doctor's checks of the device's runtime floor: glibc-floor and
 * target-fs-links. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/proc.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "db/hostcc.h"
#include "db/jetpack.h"
#include "elf/devroot.h"
#include "elf/glibc.h"
#include "use/doctor.h"
#include "use/doctor_int.h"

/* The newest GLIBC_ version of the cross toolchain's libc and GLIBCXX_ of
 * the libstdc++ its g++ links with: what programs built here may need. */
static void toolchain_versions(struct doctor_ctx *c, char **glibc, char **glibcxx,
			       struct xcc_error *err)
{
	/* Debian's cross toolchain keeps the target's glibc in /usr/<triple>/lib, and
	 * libstdc++ next to the g++ that links it. */
	char *libc = xasprintf("/usr/%s/lib/libc.so.6", c->target->triple);
	char *cxx = NULL;

	*glibc = *glibcxx = NULL;
	if (access(libc, R_OK) == 0)
		*glibc = glibc_version_defs_max(libc, "GLIBC_", err);
	free(libc);
	if (!c->host_compiler)
		return;
	{
		char *argv[] = { c->host_compiler, "-print-file-name=libstdc++.so.6", NULL };
		char *out = NULL;

		if (proc_capture(argv, &out, err) == 0 && out) {
			out[strcspn(out, "\n")] = '\0';
			if (strchr(out, '/') && access(out, R_OK) == 0)
				cxx = xstrdup(out);
		}
		free(out);
	}
	if (cxx)
		*glibcxx = glibc_version_defs_max(cxx, "GLIBCXX_", err);
	free(cxx);
}

/* With a JetPack release and no device root: its floors against the cross
 * toolchain. The profile's versions are those of the Ubuntu the release is
 * built on, so newer ones in the toolchain mean programs may need what the
 * board lacks; only the board's own libraries (--target-fs) remove that. */
static void check_floor_jetpack(struct doctor_ctx *c, struct doctor_report *r)
{
	const struct jetpack_release *jp = c->jp;
	char *tc_glibc, *tc_glibcxx;
	char *floor_glibc = xasprintf("GLIBC_%s", jp->glibc);
	char *floor_glibcxx = xasprintf("GLIBCXX_%s", jp->glibcxx);
	struct xcc_error err = { 0 };
	struct strvec bad = STRVEC_INIT, fixes = STRVEC_INIT;

	toolchain_versions(c, &tc_glibc, &tc_glibcxx, &err);
	if (tc_glibc && glibc_version_cmp(tc_glibc, floor_glibc) > 0) {
		strvec_pushf(&bad, "JetPack %s (Ubuntu %s) has up to %s, the cross toolchain's "
			     "libc up to %s", jp->version, jp->ubuntu, floor_glibc, tc_glibc);
		strvec_pushf(&fixes, "build against the board's own libraries: --target-fs a copy "
			     "of JetPack %s's root filesystem (Linux_for_Tegra/rootfs, or the "
			     "board's / over sshfs); without it the driver checks every link's "
			     "version needs against GLIBC_%s and --strict refuses what is above",
			     jp->version, jp->glibc);
	}
	if (tc_glibcxx && glibc_version_cmp(tc_glibcxx, floor_glibcxx) > 0) {
		strvec_pushf(&bad, "its libstdc++ up to %s, %s's up to %s", floor_glibcxx,
			     c->host_compiler, tc_glibcxx);
		char *fix = glibc_cxx_runtime_fix(c->target->triple, floor_glibc);

		strvec_push(&fixes, fix);
		free(fix);
	}
	if (bad.n) {
		char *b = strvec_join(&bad, "; "), *f = strvec_join(&fixes, "; ");

		doctor_add(r, "glibc-floor", DOCTOR_FAIL,
		    xasprintf("%s: programs may need versions the board lacks and not start there",
			      b), f);
		free(b);
	} else if (!tc_glibc) {
		doctor_add(r, "glibc-floor", DOCTOR_SKIP,
		    xasprintf("cannot compare with JetPack %s's glibc %s: %s", jp->version,
			      jp->glibc, err.msg[0] ? err.msg
				      : "the cross toolchain's C library was not found"), NULL);
	} else {
		doctor_add(r, "glibc-floor", DOCTOR_OK,
		    xasprintf("JetPack %s: glibc %s, libstdc++ %s; cross toolchain %s%s%s", jp->version,
			      jp->glibc, jp->glibcxx, tc_glibc, tc_glibcxx ? ", libstdc++ " : "",
			      tc_glibcxx ? tc_glibcxx : ""), NULL);
	}
	strvec_free(&bad);
	strvec_free(&fixes);
	free(tc_glibc);
	free(tc_glibcxx);
	free(floor_glibc);
	free(floor_glibcxx);
}

/* The device's glibc and libstdc++ against what the cross toolchain links
 * programs with: a program needing newer versions than the device defines
 * does not start there. */
void doctor_check_floor(struct doctor_ctx *c, struct doctor_report *r)
{
	const char *rootfs = c->o->target_fs;
	char *dev_libc = NULL, *dev_cxx = NULL;
	char *dev_glibc = NULL, *dev_glibcxx = NULL, *tc_glibc = NULL, *tc_glibcxx = NULL;
	struct xcc_error err = { 0 };
	struct strvec bad = STRVEC_INIT, fixes = STRVEC_INIT;
	int links_against_rootfs;

	if (!rootfs && c->have_meta)
		rootfs = c->sr.meta.target_fs;
	if (!rootfs && !c->jp) {
		doctor_add(r, "glibc-floor", DOCTOR_SKIP,
		    xstrdup("no device root filesystem to compare with: give --target-fs ROOTFS "
			    "(a copy or mount of the device's /) or --jetpack V"), NULL);
		return;
	}
	if (!c->target) {
		doctor_add(r, "glibc-floor", DOCTOR_SKIP,
		    xstrdup("no target given: the cross toolchain to compare with is unknown"), NULL);
		return;
	}
	if (!rootfs) {
		check_floor_jetpack(c, r);
		return;
	}
	if (glibc_check_rootfs(rootfs, c->target->triple, &dev_libc, &err)) {
		doctor_add(r, "glibc-floor", DOCTOR_FAIL, xstrdup(err.msg),
		    xstrdup("give --target-fs the device's root filesystem"));
		return;
	}
	/* The driver links against the rootfs's libc when it is given or recorded. */
	links_against_rootfs = c->have_meta && c->sr.meta.target_fs && !c->o->target_fs;
	if (glibc_find_in_root(rootfs, c->target->triple, "libstdc++.so.6", &dev_cxx, &err)) {
		doctor_add(r, "glibc-floor", DOCTOR_FAIL, xstrdup(err.msg),
		    xstrdup("make the root's links resolve inside it, as on the device"));
		goto out;
	}
	dev_glibc = glibc_version_defs_max(dev_libc, "GLIBC_", &err);
	if (dev_cxx)
		dev_glibcxx = glibc_version_defs_max(dev_cxx, "GLIBCXX_", &err);
	toolchain_versions(c, &tc_glibc, &tc_glibcxx, &err);
	if (dev_glibc && tc_glibc && glibc_version_cmp(tc_glibc, dev_glibc) > 0 &&
	    !links_against_rootfs) {
		strvec_pushf(&bad, "the device's glibc is %s, the cross toolchain's %s", dev_glibc,
			     tc_glibc);
		strvec_pushf(&fixes, "build with --target-fs %s (or make the sysroot with it): "
			     "programs then link against the device's libc", rootfs);
	}
	if (dev_glibcxx && tc_glibcxx && glibc_version_cmp(tc_glibcxx, dev_glibcxx) > 0) {
		strvec_pushf(&bad, "the device's libstdc++ defines up to %s, %s's up to %s",
			     dev_glibcxx, c->host_compiler, tc_glibcxx);
		char *fix = glibc_cxx_runtime_fix(c->target->triple, dev_glibc);

		strvec_push(&fixes, fix);
		free(fix);
	}
	if (bad.n) {
		char *b = strvec_join(&bad, "; "), *f = strvec_join(&fixes, "; ");

		doctor_add(r, "glibc-floor", DOCTOR_FAIL,
		    xasprintf("%s: programs may need versions the device lacks and not start there",
			      b), f);
		free(b);
	} else if (!dev_glibc || !tc_glibc || (dev_cxx && !tc_glibcxx && c->host_compiler)) {
		doctor_add(r, "glibc-floor", DOCTOR_SKIP,
		    xasprintf("cannot compare: %s", err.msg[0] ? err.msg
				    : "the cross toolchain's C library was not found"), NULL);
	} else {
		doctor_add(r, "glibc-floor", DOCTOR_OK,
		    xasprintf("device glibc %s%s%s, cross toolchain %s%s%s%s", dev_glibc,
			      dev_glibcxx ? ", libstdc++ " : "", dev_glibcxx ? dev_glibcxx : "",
			      tc_glibc, tc_glibcxx ? ", libstdc++ " : "", tc_glibcxx ? tc_glibcxx : "",
			      links_against_rootfs && glibc_version_cmp(tc_glibc, dev_glibc) > 0
				      ? " (programs link against the device's libc: the sysroot "
					"records it)" : ""),
		    NULL);
	}
out:
	strvec_free(&bad);
	strvec_free(&fixes);
	free(dev_libc);
	free(dev_cxx);
	free(dev_glibc);
	free(dev_glibcxx);
	free(tc_glibc);
	free(tc_glibcxx);
}

/* A root taken as it is (Debian 11, Ubuntu 20.04, L4T) links its
 * development files absolutely (libpthread.so -> /lib/.../libpthread.so.0).
 * The driver and the toolchain files read those inside the root (an
 * overlay, devroot.h); a link that names no file there too is skipped by
 * ld, which may then take the static library of the same name. */
void doctor_check_target_fs_links(struct doctor_ctx *c, struct doctor_report *r)
{
	const char *rootfs = c->o->target_fs;
	struct devroot_links links;
	struct xcc_error err = { 0 };
	struct strvec ok = STRVEC_INIT, broken = STRVEC_INIT;
	const char *kind = "absolute";

	if (!rootfs && c->have_meta)
		rootfs = c->sr.meta.target_fs;
	if (!rootfs || !c->target) {
		doctor_add(r, "target-fs-links", DOCTOR_SKIP,
		    xstrdup(rootfs ? "no target given: the root's library directories are unknown"
				   : "no device root filesystem: give --target-fs ROOTFS"), NULL);
		return;
	}
	if (!file_is_dir(rootfs)) {
		doctor_add(r, "target-fs-links", DOCTOR_SKIP,
		    xasprintf("%s is not a directory", rootfs), NULL);
		return;
	}
	if (devroot_absolute_links(rootfs, c->target->triple, &links, &err)) {
		doctor_add(r, "target-fs-links", DOCTOR_FAIL, xstrdup(err.msg),
		    xstrdup("make the root's links resolve inside it, as on the device"));
		return;
	}
	for (size_t i = 0; i < links.n; i++) {
		strvec_pushf(links.v[i].resolved ? &ok : &broken, "%s -> %s", links.v[i].path,
			     links.v[i].target);
		/* A relative link with more .. than its depth leaves the root here too. */
		if (links.v[i].target[0] != '/')
			kind = "absolute or escaping";
	}
	if (broken.n) {
		char *b = strvec_join(&broken, ", ");

		doctor_add(r, "target-fs-links", DOCTOR_FAIL,
		    xasprintf("%zu %s link%s in %s name%s no file in that root: %s", broken.n,
			      kind, broken.n == 1 ? "" : "s", rootfs, broken.n == 1 ? "s" : "", b),
		    xstrdup("copy the files they name from the device into the root (the linker "
			    "skips such a link and may take a static library instead)"));
		free(b);
	} else if (ok.n) {
		doctor_add(r, "target-fs-links", DOCTOR_OK,
		    xasprintf("%zu %s link%s among the linker's files (first: %s): read "
			      "inside the root through an overlay, the root stays as it is", ok.n,
			      kind, ok.n == 1 ? "" : "s", ok.v[0]), NULL);
	} else {
		doctor_add(r, "target-fs-links", DOCTOR_OK,
		    xstrdup("no absolute links among the linker's files"), NULL);
	}
	strvec_free(&ok);
	strvec_free(&broken);
	devroot_links_free(&links);
}

