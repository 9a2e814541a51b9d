/* test-tool: the fetch and unpack modules on their own, for the test suite
 * (tests/fetch.bats, tests/unpack.bats, bench/unpack.sh) and for looking
 * into a failing download or archive. Not part of the product: it is built
 * by make check (and by scripts/build-static.sh, so that the static pass
 * runs these modules over the static build's libraries), never installed. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/fetch.h"
#include "pkg/package.h"
#include "pkg/unpack.h"
#include "use/nvcc_options.h"
#include "cli/cmd.h"

static const char debug_usage[] =
	"Usage: test-tool fetch [--cache DIR] [--retries N] [--stall-timeout S] [--progress]\n"
	"                            [--max-size BYTES] SRC [SHA256|-] [SIZE|-]\n"
	"       test-tool text [--retries N] [--stall-timeout S] SRC\n"
	"       test-tool sha256 FILE\n"
	"       test-tool identify ARCHIVE\n"
	"       test-tool unpack [--strip N] [--skip MEMBER]... [--max-bytes N] [--progress]\n"
	"                             ARCHIVE DIR\n"
	"       test-tool nvcc-options\n"
	"\n"
	"Internal commands for tests and troubleshooting; their interface may change.\n";

static void print_fetch_progress(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	fprintf(stderr, "progress %" PRIu64 "/%" PRIu64 "\n", done, total);
}

static void print_unpack_progress(void *arg, uint64_t done)
{
	(void)arg;
	fprintf(stderr, "progress %" PRIu64 "\n", done);
}

static int parse_count(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return *s && !*end && *out >= 0 ? 0 : -1;
}

static int debug_fetch(int argc, char **argv, int text)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "retries", required_argument, NULL, 'r' },
		{ "progress", no_argument, NULL, 'p' },
		{ "stall-timeout", required_argument, NULL, 's' },
		{ "max-size", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct fetch_opts o = { .retries = 3 };
	struct xcc_error err = { 0 };
	const char *sha = NULL;
	int64_t size = -1;
	char *path = NULL, *body = NULL;
	size_t len;
	int i, c;
	long n;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "", opts, "debug")) != -1) {
		switch (c) {
		case 'c': o.cache_dir = optarg; break;
		case 'r':
			if (parse_count(optarg, &n))
				return cmd_usage_error("test-tool", "bad --retries '%s'", optarg);
			o.retries = n ? (int)n : -1;
			break;
		case 'p': o.progress = print_fetch_progress; break;
		case 'm':
			if (parse_count(optarg, &n) || n < 1)
				return cmd_usage_error("test-tool", "bad --max-size '%s'", optarg);
			o.max_size = (uint64_t)n;
			break;
		case 's':
			if (parse_count(optarg, &n) || n < 1 || n > 3600)
				return cmd_usage_error("test-tool", "bad --stall-timeout '%s' (1 to 3600 "
						       "seconds)", optarg);
			o.stall_s = (int)n;
			break;
		default: return XCC_EUSAGE;
		}
	}
	i = optind;
	if (text) {
		if (argc - i != 1)
			return cmd_usage_error("test-tool", "debug text takes one SRC");
		if (fetch_text(&o, argv[i], &body, &len, &err))
			return cmd_report(&err);
		fwrite(body, 1, len, stdout);
		free(body);
		return 0;
	}
	if (argc - i < 1 || argc - i > 3)
		return cmd_usage_error("test-tool", "debug fetch takes SRC [SHA256] [SIZE]");
	if (argc - i >= 2 && strcmp(argv[i + 1], "-") != 0)
		sha = argv[i + 1];
	if (argc - i >= 3 && strcmp(argv[i + 2], "-") != 0) {
		char *end;

		size = strtoll(argv[i + 2], &end, 10);
		if (!*argv[i + 2] || *end || size < 0)
			return cmd_usage_error("test-tool", "bad SIZE '%s'", argv[i + 2]);
	}
	if (fetch_file(&o, argv[i], sha, size, &path, &err))
		return cmd_report(&err);
	printf("%s\n", path);
	free(path);
	return 0;
}

struct debug_map {
	long strip;
	struct strvec skip;
};

static char *debug_map_member(void *arg, const char *member)
{
	struct debug_map *m = arg;
	const char *p = member;

	if (strvec_contains(&m->skip, member))
		return NULL;
	for (long n = 0; n < m->strip; n++) {
		p = strchr(p, '/');
		if (!p)
			return NULL;
		p++;
	}
	return *p ? xstrdup(p) : NULL;
}

static int debug_unpack(int argc, char **argv)
{
	struct debug_map map = { .strip = 0, .skip = STRVEC_INIT };
	struct unpack_opts o = { .map = debug_map_member, .map_arg = &map };
	struct unpack_stats st;
	struct xcc_error err = { 0 };
	static const struct option opts[] = {
		{ "strip", required_argument, NULL, 's' },
		{ "skip", required_argument, NULL, 'k' },
		{ "progress", no_argument, NULL, 'p' },
		{ "max-bytes", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int i, rc, c;
	long n;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "", opts, "debug")) != -1) {
		switch (c) {
		case 's':
			if (parse_count(optarg, &map.strip)) {
				strvec_free(&map.skip);
				return cmd_usage_error("test-tool", "bad --strip '%s'", optarg);
			}
			break;
		case 'k': strvec_push(&map.skip, optarg); break;
		case 'p': o.progress = print_unpack_progress; break;
		case 'm':
			if (parse_count(optarg, &n)) {
				strvec_free(&map.skip);
				return cmd_usage_error("test-tool", "bad --max-bytes '%s'", optarg);
			}
			o.max_bytes = (uint64_t)n;
			o.max_bytes_note = "(test-tool unpack --max-bytes)";
			break;
		default: strvec_free(&map.skip); return XCC_EUSAGE;
		}
	}
	i = optind;
	if (argc - i != 2) {
		strvec_free(&map.skip);
		return cmd_usage_error("test-tool", "debug unpack takes ARCHIVE DIR");
	}
	rc = unpack_archive(argv[i], argv[i + 1], &o, &st, &err);
	strvec_free(&map.skip);
	if (rc)
		return cmd_report(&err);
	printf("files %" PRIu64 " bytes %" PRIu64 " skipped %" PRIu64 "\n", st.files, st.bytes,
	       st.skipped);
	return 0;
}

static int debug_identify(int argc, char **argv)
{
	static const char *const kinds[] = { "redist", "deb", "wheel" };
	struct package_info info;
	struct xcc_error err = { 0 };

	if (argc != 2)
		return cmd_usage_error("test-tool", "debug identify takes ARCHIVE");
	if (package_identify(argv[1], &info, &err))
		return cmd_report(&err);
	printf("kind %s\nname %s\nversion %s\nmachine %s\n", kinds[info.kind], info.name,
	       info.version, info.machine);
	if (info.installed_bytes)
		printf("installed_bytes %" PRIu64 "\n", info.installed_bytes);
	package_info_free(&info);
	return 0;
}

static int debug_sha256(int argc, char **argv)
{
	struct xcc_error err = { 0 };
	char hex[65];
	uint64_t size;

	if (argc != 2)
		return cmd_usage_error("test-tool", "debug sha256 takes FILE");
	if (fetch_sha256_file(argv[1], hex, &size, &err))
		return cmd_report(&err);
	printf("%s %" PRIu64 "\n", hex, size);
	return 0;
}

/* nvcc's option table, one option a line: SHORT LONG value|joined|flag ROLE,
 * then no-link and hidden where they hold ("-" for a missing name). */
static int debug_nvcc_options(void)
{
	size_t n;
	const struct nvcc_option *t = nvcc_option_table(&n);

	for (size_t i = 0; i < n; i++)
		printf("%s %s %s %s%s%s\n", t[i].short_name ? t[i].short_name : "-",
		       t[i].long_name ? t[i].long_name : "-",
		       t[i].flags & NVCC_ATTACHED ? "joined" : t[i].flags & NVCC_VALUE ? "value" : "flag",
		       nvcc_role_name(t[i].role), t[i].flags & NVCC_NO_LINK ? " no-link" : "",
		       t[i].flags & NVCC_HIDDEN ? " hidden" : "");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0) {
		fputs(debug_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? XCC_EUSAGE : 0;
	}
	if (strcmp(argv[1], "fetch") == 0)
		return debug_fetch(argc - 1, argv + 1, 0);
	if (strcmp(argv[1], "text") == 0)
		return debug_fetch(argc - 1, argv + 1, 1);
	if (strcmp(argv[1], "sha256") == 0)
		return debug_sha256(argc - 1, argv + 1);
	if (strcmp(argv[1], "identify") == 0)
		return debug_identify(argc - 1, argv + 1);
	if (strcmp(argv[1], "unpack") == 0)
		return debug_unpack(argc - 1, argv + 1);
	if (strcmp(argv[1], "nvcc-options") == 0)
		return debug_nvcc_options();
	return cmd_usage_error("test-tool", "no command '%s'", argv[1]);
}
