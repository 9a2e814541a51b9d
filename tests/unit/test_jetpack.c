/* The JetPack table's loader: the embedded table loads, and what a typo or
 * a board that is no Jetson GPU would do to it is refused, not ignored. */
#include <config.h>

#include <string.h>

#include "db/gpus.h"
#include "db/jetpack.h"
#include "tap.h"

#define RELEASE(extra, boards)                                                              \
	"{\"releases\": [{\"jetpack\": \"5.1\", \"l4t\": [\"35.2.1\"], \"ubuntu\": \"20.04\", " \
	"\"glibc\": \"2.31\", \"glibcxx\": \"3.4.28\", \"cxxabi\": \"1.3.12\", "             \
	"\"gcc_s\": \"7.0.0\", \"cuda\": \"11.4\", \"cuda_reachable\": null, "               \
	"\"boards\": " boards ", \"source\": \"x\"" extra "}]}"

static void refused(const struct gpudb *gdb, const char *text, const char *want, const char *what)
{
	struct jetpack_db jdb;
	struct xcc_error err = { 0 };

	ok(jetpack_db_parse(&jdb, text, gdb, &err) != 0 && strstr(err.msg, want) != NULL,
	   "%s is refused: %s", what, err.msg);
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
	gpudb_free(&gdb);
	return done_testing();
}
