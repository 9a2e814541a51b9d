/* The cross toolchain table and the choice for a board's userland: the
 * newest toolchain no newer than the board, within the gcc range nvcc takes. */
#include <config.h>

#include <string.h>

#include "db/crosstc.h"
#include "db/devroots.h"
#include "tap.h"

static const char *pick(const struct cross_toolchains *t, const char *glibc, const char *glibcxx,
			int gcc_min, int gcc_max)
{
	const struct cross_toolchain *c = cross_toolchain_match(t, glibc, glibcxx, gcc_min, gcc_max);

	return c ? c->debian : "(none)";
}

/* The device root's Debian release for a JetPack version, "(none)" or "(unknown)". */
static const char *root_of(const struct device_roots *r, const char *jetpack)
{
	const struct device_root_line *l = device_root_for_jetpack(r, jetpack);

	return !l ? "(unknown)" : l->release ? l->release->debian : "(none)";
}

/* The device roots (device-roots.json): one Debian release per JetPack line,
 * the major version naming it, the toolchain table's glibc beside it. */
static void device_roots(const struct cross_toolchains *t)
{
	struct device_roots r;
	struct xcc_error err = { 0 };

	if (device_roots_load(&r, &err)) {
		ok(0, "the device root table loads (%s)", err.msg);
		return;
	}
	is_str(root_of(&r, "5.1.2"), "bullseye", "JetPack 5.1.2: bullseye");
	is_str(root_of(&r, "6"), "bullseye", "JetPack 6: bullseye");
	is_str(root_of(&r, "7.0"), "bookworm", "JetPack 7.0: bookworm");
	is_str(root_of(&r, "4.6"), "(none)", "JetPack 4.6: none fits");
	is_str(root_of(&r, "50.1"), "(unknown)", "50.1 is not JetPack 5");
	is_str(root_of(&r, ""), "(unknown)", "an empty version names no line");
	/* A root and a toolchain of one release have one glibc. */
	for (size_t i = 0; i < r.n_releases; i++)
		for (size_t j = 0; j < t->n; j++)
			if (strcmp(r.releases[i].debian, t->v[j].debian) == 0)
				is_str(r.releases[i].glibc, t->v[j].glibc, "%s: one glibc in both tables",
				       t->v[j].debian);
	device_roots_free(&r);
	ok(r.n_lines == 0 && r.lines == NULL, "free leaves the roots empty");
}

int main(void)
{
	struct cross_toolchains t;
	struct xcc_error err = { 0 };

	ok(crosstc_version_cmp("2.31", "2.35") < 0, "2.31 < 2.35");
	ok(crosstc_version_cmp("2.35", "2.35.1") < 0, "2.35 < 2.35.1");
	ok(crosstc_version_cmp("3.4.30", "3.4.4") > 0, "3.4.30 > 3.4.4: numbers, not text");
	ok(crosstc_version_cmp("2.36", "2.36") == 0, "2.36 == 2.36");
	if (cross_toolchains_load(&t, &err)) {
		ok(0, "the toolchain table loads (%s)", err.msg);
		return done_testing();
	}
	ok(t.n >= 2, "the table has bullseye and bookworm at least");
	/* JetPack 5 (Ubuntu 20.04), as sysroots/jetpack.json states its floors. */
	is_str(pick(&t, "2.31", "3.4.28", 6, 11), "bullseye", "JetPack 5: bullseye, exactly");
	/* A root read from its libc: glibc 2.31 defines up to GLIBC_2.30. */
	is_str(pick(&t, "2.30", "3.4.28", 6, 11), "bullseye", "a Debian 11 root: bullseye");
	is_str(pick(&t, "2.35", "3.4.30", 6, 13), "bullseye", "JetPack 6: bullseye, not above");
	is_str(pick(&t, "2.39", "3.4.33", 6, 14), "bookworm", "JetPack 7: bookworm, not trixie");
	is_str(pick(&t, "2.39", "3.4.33", 6, 11), "bullseye", "a CUDA that takes gcc 11 at most");
	is_str(pick(&t, "2.27", "3.4.25", 6, 11), "(none)", "JetPack 4 (glibc 2.27): none fits");
	is_str(pick(&t, NULL, NULL, 0, 0), "trixie", "nothing known: the newest");
	device_roots(&t);
	cross_toolchains_free(&t);
	ok(t.n == 0 && t.v == NULL, "free leaves it empty");
	return done_testing();
}
