/* The JetPack table's loader: the embedded table loads, and what a typo or
 * a board that is no Jetson GPU would do to it is refused, not ignored. */
#include <config.h>

#include <string.h>

#include "db/board.h"
#include "db/gpus.h"
#include "db/jetpack.h"
#include "tap.h"

#define POINT(extra)                                                                         \
	"{\"jetpack\": \"5.1.2\", \"l4t\": [\"35.4.1\"], \"cuda\": \"11.4\", "                   \
	"\"ubuntu\": \"20.04\", \"unverified\": [], \"source\": \"x\"" extra "}"
#define RELEASE_P(extra, boards, points)                                                     \
	"{\"releases\": [{\"jetpack\": \"5.1\", \"ubuntu\": \"20.04\", "                         \
	"\"glibc\": \"2.31\", \"glibcxx\": \"3.4.28\", \"cxxabi\": \"1.3.12\", "             \
	"\"gcc_s\": \"7.0.0\", \"cuda\": \"11.4\", \"cuda_reachable\": null, "               \
	"\"boards\": " boards ", \"unverified\": [], \"source\": \"x\", "                       \
	"\"points\": [" points "]" extra "}]}"
#define RELEASE(extra, boards) RELEASE_P(extra, boards, POINT(""))

static void refused(const struct gpudb *gdb, const char *text, const char *want, const char *what)
{
	struct jetpack_db jdb;
	struct xcc_error err = { 0 };

	ok(jetpack_db_parse(&jdb, text, gdb, &err) != 0 && strstr(err.msg, want) != NULL,
	   "%s is refused: %s", what, err.msg);
}

/* Point releases (issue 30): each its own L4T and CUDA, the line as before. */
static void point_releases(const struct gpudb *gdb)
{
	struct jetpack_db jdb;
	struct xcc_error err = { 0 };
	const struct jetpack_release *r;

	if (jetpack_db_load(&jdb, gdb, &err)) {
		ok(0, "the JetPack table loads (%s)", err.msg);
		return;
	}
	r = jetpack_find(&jdb, "5.0.2");
	ok(r && strcmp(r->version, "5.0.2") == 0 && r->n_l4t == 1 && strcmp(r->l4t[0], "35.1") == 0 &&
	   r->cuda.major == 11 && r->cuda.minor == 4 && strcmp(r->ubuntu, "20.04") == 0,
	   "5.0.2 is L4T 35.1, CUDA 11.4, Ubuntu 20.04");
	ok(r && !jetpack_unverified(r, "l4t"), "5.0.2's L4T is verified");
	r = jetpack_find(&jdb, "5.1.2");
	ok(r && strcmp(r->version, "5.1.2") == 0 && strcmp(r->l4t[0], "35.4.1") == 0,
	   "5.1.2 is L4T 35.4.1 (%s)", r && r->n_l4t ? r->l4t[0] : "?");
	ok(r && jetpack_line(r) == jetpack_find(&jdb, "5.1"), "5.1.2 belongs to the 5.1 line");
	r = jetpack_find(&jdb, "5.1.3");
	ok(r && strcmp(r->l4t[0], "35.5.0") == 0 && !jetpack_unverified(r, "l4t"),
	   "5.1.3 is L4T 35.5.0 (meta-tegra's release notes)");
	r = jetpack_find(&jdb, "5.1");
	ok(r && strcmp(r->version, "5.1") == 0 && !r->line && r->n_points == 7,
	   "--jetpack 5.1 is still the line, with its 7 point releases");
	ok(jetpack_find(&jdb, "5.1.0") == &jetpack_find(&jdb, "5.1")->points[0],
	   "5.1.0 is the point release 5.1");
	ok(jetpack_find(&jdb, "5.1.9") == NULL && jetpack_find_line(&jdb, "5.1.9") != NULL,
	   "an unlisted point release is not taken for another");
	ok(jetpack_find(&jdb, "5.0.1") == NULL, "the 5.0.1 Developer Preview is no release");
	r = jetpack_find(&jdb, "6.2.1");
	ok(r && strcmp(r->l4t[0], "36.4.4") == 0 && !jetpack_unverified(r, "cuda"),
	   "6.2.1 is L4T 36.4.4, CUDA 12.6 (meta-tegra's release notes)");
	jetpack_db_free(&jdb);
}

/* cuda_compat_from (issue 30 §3): a point release has its line's. */
static void compat_from(const struct gpudb *gdb)
{
	struct jetpack_db jdb;
	struct xcc_error err = { 0 };
	const struct jetpack_release *jp, *j6, *j50, *j512;
	struct cuda_version v114 = { 11, 4, 0 }, v118 = { 11, 8, 0 }, v122 = { 12, 2, 0 },
			    v126 = { 12, 6, 0 }, v128 = { 12, 8, 0 };

	if (jetpack_db_load(&jdb, gdb, &err)) {
		ok(0, "the JetPack table loads (%s)", err.msg);
		return;
	}
	jp = jetpack_find(&jdb, "5.1");
	j6 = jetpack_find(&jdb, "6.1");
	j50 = jetpack_find(&jdb, "5.0");
	j512 = jetpack_find(&jdb, "5.1.2");
	ok(jp && !jetpack_needs_compat(jp, v114) && jetpack_needs_compat(jp, v118) &&
	   jetpack_needs_compat(jp, v122) && !jetpack_needs_compat(jp, v126),
	   "JetPack 5.1 runs 11.8-12.2 through cuda-compat, 11.4 as shipped");
	ok(j6 && !jetpack_needs_compat(j6, v126) && jetpack_needs_compat(j6, v128),
	   "JetPack 6.1 runs 12.6 as shipped, 12.8 through cuda-compat");
	ok(j50 && !jetpack_needs_compat(j50, v114) && jetpack_needs_compat(j50, v118) &&
	   jetpack_needs_compat(j50, v122), "JetPack 5.0 runs 11.8-12.2 through cuda-compat");
	ok(j512 && j512->line && !jetpack_needs_compat(j512, v114) &&
	   jetpack_needs_compat(j512, v122), "the point release 5.1.2 has its line's cuda_compat_from");
	jetpack_db_free(&jdb);
}

/* What a board's /etc/nv_tegra_release and device tree name: a JetPack point
 * release by its L4T, a GPU by its SoC (sysroot create --from-device). */
static void board_identity(const struct gpudb *gdb)
{
	struct jetpack_db jdb;
	struct board_db bdb;
	struct xcc_error err = { 0 };
	const struct jetpack_release *r;
	const struct board_soc *soc;

	if (jetpack_db_load(&jdb, gdb, &err) || board_db_load(&bdb, &err)) {
		ok(0, "the tables load (%s)", err.msg);
		return;
	}
	r = jetpack_find_l4t(&jdb, "36.4.3");
	ok(r && strcmp(r->version, "6.2") == 0, "L4T 36.4.3 is JetPack 6.2 (%s)",
	   r ? r->version : "none");
	r = jetpack_find_l4t(&jdb, "38.2.0");
	ok(r && strcmp(r->version, "7.0") == 0, "L4T 38.2.0 is JetPack 7.0 (%s)",
	   r ? r->version : "none");
	r = jetpack_find_l4t(&jdb, "35.1.0");
	ok(r && strcmp(r->version, "5.0.2") == 0, "L4T 35.1.0 is the table's 35.1: JetPack 5.0.2");
	ok(!jetpack_find_l4t(&jdb, "99.1.0"), "an L4T no JetPack lists is none");
	ok(!jetpack_find_l4t(&jdb, "36.x") && !jetpack_find_l4t(&jdb, ""),
	   "a string that is no L4T release is none");
	soc = board_soc_find(&bdb, "nvidia,p3737-0000+p3701-0000 nvidia,p3701-0000 nvidia,tegra234");
	ok(soc && strcmp(soc->gpu, "8.7") == 0 && !soc->unverified,
	   "an AGX Orin's compatible strings are tegra234's: 8.7");
	soc = board_soc_find(&bdb, "nvidia,tegra2340");
	ok(!soc, "a string that only starts like a SoC's is none");
	ok(bdb.pull.n_paths > 10 && bdb.pull.n_links && bdb.pull.n_l4t_dirs && bdb.pull.source,
	   "board.json's device_pull loads");
	board_db_free(&bdb);
	jetpack_db_free(&jdb);
}

int main(void)
{
	struct gpudb gdb;
	struct jetpack_db jdb;
	struct xcc_error err = { 0 };

	ok(gpudb_load(&gdb, &err) == 0, "the GPU table loads (%s)", err.msg);
	ok(jetpack_db_load(&jdb, &gdb, &err) == 0 && jdb.n >= 6,
	   "the embedded JetPack table loads and is checked against it (%s)", err.msg);
	jetpack_db_free(&jdb);
	ok(jetpack_db_parse(&jdb, RELEASE("", "[\"8.7\"]"), &gdb, &err) == 0 && jdb.n == 1,
	   "a well-formed release loads (%s)", err.msg);
	jetpack_db_free(&jdb);
	refused(&gdb, RELEASE(", \"bords\": [\"8.7\"]", "[\"8.7\"]"), "unknown key \"bords\"",
		"a misspelt key in a release");
	refused(&gdb, "{\"releses\": []}", "unknown key \"releses\"", "a misspelt top-level key");
	refused(&gdb, RELEASE("", "[\"8.0\"]"), "board 8.0 is no Jetson GPU",
		"a board that is a GPU but no Jetson");
	refused(&gdb, RELEASE("", "[\"9.9\"]"), "board 9.9 is no Jetson GPU",
		"a board that is no GPU of the table");
	refused(&gdb, "{\"releases\": [3]}", "each release is an object", "a release that is no object");
	refused(&gdb, RELEASE_P("", "[\"8.7\"]", POINT(", \"l4tt\": []")), "unknown key \"l4tt\"",
		"a misspelt key in a point release");
	refused(&gdb, RELEASE_P("", "[\"8.7\"]",
				"{\"jetpack\": \"5.2.1\", \"l4t\": [], \"cuda\": \"11.4\", "
				"\"ubuntu\": \"20.04\", \"unverified\": [], \"source\": \"x\"}"),
		"point release 5.2.1 is not of that line", "a point release of another line");
	refused(&gdb, RELEASE_P("", "[\"8.7\"]",
				"{\"jetpack\": \"5.1.2\", \"l4t\": [], \"cuda\": \"11.4\", "
				"\"ubuntu\": \"22.04\", \"unverified\": [], \"source\": \"x\"}"),
		"but its line's floors are Ubuntu 20.04's", "a point release of another Ubuntu");
	refused(&gdb, RELEASE_P("", "[\"8.7\"]",
				"{\"jetpack\": \"5.1.2\", \"l4t\": [], \"cuda\": \"11.4\", "
				"\"ubuntu\": \"20.04\", \"unverified\": [\"l4\"], \"source\": \"x\"}"),
		"unverified names no field of the entry: \"l4\"", "an unverified field that is none");
	point_releases(&gdb);
	board_identity(&gdb);
	/* RELEASE ships 11.4 and reaches nothing newer. */
	refused(&gdb, RELEASE(", \"cuda_compat_from\": \"11.8\"", "[\"8.7\"]"),
		"cuda_compat_from 11.8 must be above the CUDA it ships and not above cuda_reachable",
		"cuda-compat for a CUDA the release never reaches");
	refused(&gdb, RELEASE(", \"cuda_compat_from\": 11.8", "[\"8.7\"]"),
		"cuda_compat_from must be a CUDA version or null", "a cuda_compat_from that is no string");
	compat_from(&gdb);
	gpudb_free(&gdb);
	return done_testing();
}
