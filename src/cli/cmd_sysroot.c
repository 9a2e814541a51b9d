#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysroot/sysroot.h"
#include "use/device_pull.h"
#include "cli/cmd.h"

static const char sysroot_usage[] =
	"Usage: cuda-xcc sysroot create --target T --cuda V [-arch LIST] [--from SRC]...\n"
	"                               [--mirror URL] [--components LIST] [--dest DIR]\n"
	"                               [--jobs N] [--progress auto|always|never]\n"
	"                               [--target-fs ROOTFS] [--jetpack J] [--allow-unserved]\n"
	"                               [--max-expand SIZE] [--max-download SIZE]\n"
	"                               [--no-sync] [--cache DIR] [--no-file-store]\n"
	"                               [--host-compiler CXX]\n"
	"                               [--dry-run | --print-fingerprint]\n"
	"       cuda-xcc sysroot create --from-device ssh://[user@]board[:port]\n"
	"                               [--device-root DIR] [--ssh-config FILE] [--from SRC]...\n"
	"                               [other create options]\n"
	"       cuda-xcc sysroot info DIR [--json | --fingerprint | --tree-digest]\n"
	"       cuda-xcc sysroot list [--json]\n"
	"       cuda-xcc sysroot verify DIR [--metadata-only | --expect DIGEST]\n"
	"       cuda-xcc sysroot gc [--cache DIR]\n"
	"\n"
	"Make a CUDA toolkit root for cross compiling: x86_64 nvcc and tools in DIR/bin and\n"
	"DIR/nvvm, the target's headers and libraries in DIR/targets/<dir>/{include,lib}.\n"
	"\n"
	"create options:\n"
	"  --target T         jetson, sbsa or x86_64\n"
	"  --cuda V           CUDA release, e.g. 12.6.3 (12.6: the latest the mirror lists)\n"
	"  -arch LIST         the GPUs (they choose linux-aarch64 or linux-sbsa); repeatable\n"
	"  --from SRC         a redistrib_<V>.json (path or URL; archives beside it, as on\n"
	"                     NVIDIA's server), a single archive: redist *-archive.tar.xz,\n"
	"                     .deb or .whl; or an apt repository, as a sources.list line\n"
	"                     'deb [signed-by=KEYRING] URL SUITE [COMPONENT...]' (its\n"
	"                     Release.gpg checked by gpgv; or [sha256=HEX]: the Release's\n"
	"                     sha256; [trusted=yes]: unchecked) or its URL ending in '/';\n"
	"                     the request's packages are chosen from it by NVIDIA's names\n"
	"                     (doc/sysroots.md); repeatable\n"
	"  --mirror URL       where redistrib_<V>.json is when no --from is given\n"
	"                     (default " SYSROOT_DEFAULT_MIRROR ")\n"
	"  --components LIST  more target components, e.g. libcublas,libcufft (also which\n"
	"                     libraries are taken from .debs and wheels; from apt\n"
	"                     repositories also tensorrt, cudnn, vpi, l4t_multimedia)\n"
	"  --dest DIR         where to put it (default: the store, see 'sysroot list')\n"
	"  --from-device URL  copy what a cross build needs from a running board over ssh\n"
	"                     (its /usr/local/cuda-X.Y/targets/<dir>, the JetPack's\n"
	"                     libraries, /usr/include, the C and C++ runtime,\n"
	"                     /etc/nv_tegra_release; only what changed since the last\n"
	"                     pull): they are the target side and the device root, and\n"
	"                     --target and --cuda default to the board's; the host side\n"
	"                     (x86_64 nvcc of the same CUDA) comes from --from or the mirror\n"
	"  --device-root DIR  the board's root directory there (default /)\n"
	"  --ssh-config FILE  ssh -F FILE for --from-device\n"
	"  --target-fs ROOTFS the device's root filesystem: the target libraries' libstdc++\n"
	"                     and libgcc_s are looked up there, and the driver builds against\n"
	"                     it when its own command line gives no --target-fs\n"
	"  --jetpack J        the board's JetPack release: boards and CUDA are checked\n"
	"                     against it, and it is recorded for the driver's runtime check;\n"
	"                     with no --target-fs, the root fetch-target-root.sh --jetpack\n"
	"                     made for it in the cache is recorded as the target fs\n"
	"  --host-compiler CXX  the cross g++ to record for nvcc (default: one on PATH that\n"
	"                     CUDA accepts; with --jetpack or --target-fs, one no newer than\n"
	"                     the board's glibc and libstdc++, from fetch-cross-toolchain.sh)\n"
	"  --jobs N           archives extracted at once (default: the number of CPUs)\n"
	"  --progress P       auto (a bar on a terminal), always or never\n"
	"  --allow-unserved   make it even when a library has no code for a requested GPU\n"
	"  --max-expand SIZE  what each archive may unpack to, e.g. 40G (default: a .deb's\n"
	"                     Installed-Size, else 100 times its size, 64M to 16G)\n"
	"  --max-download SIZE  the most an archive given by URL with no promised size\n"
	"                     may download, e.g. 40G (default 16G)\n"
	"  --no-sync          do not sync the tree to disk before putting it in place\n"
	"                     (faster; a power cut may then leave empty files)\n"
	"  --cache DIR        the download cache, which runners may share (default\n"
	"                     $XDG_CACHE_HOME/cuda-xcc or ~/.cache/cuda-xcc), and its file\n"
	"                     store (DIR/files): the sysroots' files by sha256, so that the\n"
	"                     same request made again is hard links to them\n"
	"  --no-file-store    neither make the sysroot from the file store nor add its\n"
	"                     files to it\n"
	"  --dry-run          print the plan, change nothing\n"
	"  --print-fingerprint  print only the fingerprint the sysroot would record (what\n"
	"                     'sysroot info DIR --fingerprint' prints once it is made),\n"
	"                     change nothing: a CI cache key\n"
	"\n"
	"info options:\n"
	"  --json             the description as JSON\n"
	"  --fingerprint      only the fingerprint of the inputs (a CI cache key)\n"
	"  --tree-digest      only the tree digest: the sha256 of the sysroot's records\n"
	"                     (sysroot.json, which covers sysroot.files, which covers every\n"
	"                     file); keep it outside the tree for 'verify --expect'\n"
	"\n"
	"verify options:\n"
	"  --metadata-only    check each file's type, mode, size and link target, not its\n"
	"                     contents (faster; by default every file's sha256 is checked)\n"
	"  --expect DIGEST    also require this tree digest ('info --tree-digest'): catches\n"
	"                     a tree rewritten together with its records\n"
	"\n"
	"gc options:\n"
	"  --cache DIR        whose file store to clean (default as for create): the files\n"
	"                     no sysroot links any more, and the records that name them\n";

/* 1000, 900K, 900M, 40G, 1T: powers of 1024, as du and df speak. */
static int parse_byte_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	char *end;
	unsigned long long n;
	const char *u;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || n == 0)
		return -1;
	if (*end) {
		if (end[1] || !(u = strchr(units, *end)))
			return -1;
		shift = 10u * (unsigned)(u - units + 1);
	}
	if (n > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)n << shift;
	return 0;
}

/* One option of create into o: 0, or the usage status. */
static int create_option(int c, const char *arg, struct sysroot_create_opts *o)
{
	char *end;
	long n;

	switch (c) {
	case 't': o->target = arg; break;
	case 'c': o->cuda = arg; break;
	case 'a': strvec_push(&o->arch, arg); break;
	case 'f': strvec_push(&o->from, arg); break;
	case 'm': o->mirror = arg; break;
	case 'C': strvec_push(&o->components, arg); break;
	case 'F': o->target_fs = arg; break;
	case 'J': o->jetpack = arg; break;
	case 'H': o->host_compiler = arg; break;
	case 'd': o->dest = arg; break;
	case 'j':
		n = strtol(arg, &end, 10);
		if (*end || n < 1 || n > 256)
			return cmd_usage_error("sysroot create", "--jobs takes a number from 1 to "
					       "256, not '%s'", arg);
		o->jobs = (int)n;
		break;
	case 'p':
		if (progress_mode_parse(arg, &o->progress))
			return cmd_usage_error("sysroot create", "--progress takes auto, always or "
					       "never, not '%s'", arg);
		break;
	case 'U': o->allow_unserved = 1; break;
	case 'n': o->dry_run = 1; break;
	case 'S': o->no_sync = 1; break;
	case 'K': o->cache_dir = arg; break;
	case 'P': o->print_fingerprint = 1; break;
	case 'N': o->no_file_store = 1; break;
	case 'X':
		if (parse_byte_size(arg, &o->max_expand))
			return cmd_usage_error("sysroot create", "--max-expand takes a size such as "
					       "900M or 40G, not '%s'", arg);
		break;
	case 'W':
		if (parse_byte_size(arg, &o->max_download) || !o->max_download)
			return cmd_usage_error("sysroot create", "--max-download takes a size such "
					       "as 900M or 40G, not '%s'", arg);
		break;
	default:
		return XCC_EUSAGE;
	}
	return 0;
}

static int create(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "cuda", required_argument, NULL, 'c' },
		{ "arch", required_argument, NULL, 'a' },
		{ "from", required_argument, NULL, 'f' },
		{ "mirror", required_argument, NULL, 'm' },
		{ "components", required_argument, NULL, 'C' },
		{ "target-fs", required_argument, NULL, 'F' },
		{ "jetpack", required_argument, NULL, 'J' },
		{ "host-compiler", required_argument, NULL, 'H' },
		{ "dest", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "progress", required_argument, NULL, 'p' },
		{ "allow-unserved", no_argument, NULL, 'U' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "max-expand", required_argument, NULL, 'X' },
		{ "max-download", required_argument, NULL, 'W' },
		{ "no-sync", no_argument, NULL, 'S' },
		{ "cache", required_argument, NULL, 'K' },
		{ "no-file-store", no_argument, NULL, 'N' },
		{ "print-fingerprint", no_argument, NULL, 'P' },
		{ "from-device", required_argument, NULL, 'D' },
		{ "device-root", required_argument, NULL, 'R' },
		{ "ssh-config", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sysroot_create_opts o = { .log = stderr };
	struct device_pull_opts po = { .log = stderr };
	struct device_pull pull = { 0 };
	struct sysroot_create_result r = { 0 };
	struct xcc_error err = { 0 };
	const struct gpudb *db;
	int c, rc = 0;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, "sysroot create")) != -1) {
		if (c == 'h') {
			fputs(sysroot_usage, stdout);
			goto out;
		}
		if (c == 'D' || c == 'R' || c == 'E') {
			*(c == 'D' ? &po.device : c == 'R' ? &po.device_root : &po.ssh_config) =
				optarg;
			continue;
		}
		if ((rc = create_option(c, optarg, &o)))
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error("sysroot create", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (o.dry_run && o.print_fingerprint) {
		rc = cmd_usage_error("sysroot create", "--dry-run or --print-fingerprint, not both");
		goto out;
	}
	if (o.cache_dir && !*o.cache_dir) {
		rc = cmd_usage_error("sysroot create", "--cache takes a directory, not ''");
		goto out;
	}
	if (!po.device && (po.device_root || po.ssh_config)) {
		rc = cmd_usage_error("sysroot create", "--device-root and --ssh-config go with "
				     "--from-device");
		goto out;
	}
	if (po.device && o.target_fs) {
		rc = cmd_usage_error("sysroot create", "--from-device or --target-fs, not both: "
				     "the board's own files are the device root");
		goto out;
	}
	if (!po.device && (!o.target || !o.cuda)) {
		rc = cmd_usage_error("sysroot create", "--target and --cuda are required");
		goto out;
	}
	if (!(db = cmd_gpudb(ctx, &err))) {
		rc = cmd_report(&err);
		goto out;
	}
	if (po.device) {
		po.cuda = o.cuda;
		po.cache_dir = o.cache_dir;
		rc = device_pull(db, &po, &pull, &err);
		for (size_t i = 0; i < pull.notes.n; i++)
			fprintf(stderr, "cuda-xcc: note: %s\n", pull.notes.v[i]);
		if (rc || device_pull_apply(&pull, &o, &err)) {
			rc = cmd_report(&err);
			goto out;
		}
	}
	rc = sysroot_create(db, &o, &r, &err);
	/* Notes are warnings, not progress: --progress never keeps them. */
	for (size_t i = 0; i < r.notes.n; i++)
		fprintf(stderr, "cuda-xcc: note: %s\n", r.notes.v[i]);
	for (size_t i = 0; i < r.warnings.n; i++)
		fprintf(stderr, "cuda-xcc: warning: %s\n", r.warnings.v[i]);
	if (rc) {
		rc = cmd_report(&err);
	} else if (r.plan_text) {
		fputs(r.plan_text, stdout);
	} else if (r.up_to_date) {
		printf("%s is up to date: same archives, same GPUs, nothing to do\n", r.dir);
	} else {
		printf("sysroot ready: %s%s\n", r.dir, r.from_store ? " (made from the file store: "
			"links to files already on the disk)" : "");
	}
out:
	sysroot_create_result_free(&r);
	sysroot_create_opts_free(&o);
	device_pull_free(&pull);
	return rc;
}

/* The options of info, list and verify: --help (and --json or
 * --fingerprint for info).
 * Returns 0 to go on with the operands at argv[optind...], else 1 with
 * *rc set. */
static int read_options(int argc, char **argv, const char *verb, const struct option *opts,
			enum sysroot_info_form *form, int *rc)
{
	int c;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, verb)) != -1) {
		switch (c) {
		case 'j':
		case 'f':
		case 't': {
			enum sysroot_info_form f = c == 'j'   ? SYSROOT_INFO_JSON
						   : c == 'f' ? SYSROOT_INFO_FINGERPRINT
							      : SYSROOT_INFO_TREE_DIGEST;

			if (*form != SYSROOT_INFO_TEXT && *form != f) {
				*rc = cmd_usage_error(verb, "one of --json, --fingerprint and "
						      "--tree-digest, not two");
				return 1;
			}
			*form = f;
			break;
		}
		case 'h': fputs(sysroot_usage, stdout); *rc = 0; return 1;
		default: *rc = XCC_EUSAGE; return 1;
		}
	}
	return 0;
}

static int info(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "fingerprint", no_argument, NULL, 'f' },
		{ "tree-digest", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	const struct gpudb *db;
	const char *dir;
	char *out = NULL;
	enum sysroot_info_form form = SYSROOT_INFO_TEXT;
	int rc;

	if (read_options(argc, argv, "sysroot info", opts, &form, &rc))
		return rc;
	if (optind == argc)
		return cmd_usage_error("sysroot info", "which sysroot? (sysroot info DIR)");
	if (argc - optind > 1)
		return cmd_usage_error("sysroot info", "unexpected argument '%s'", argv[optind + 1]);
	dir = argv[optind];
	if (!(db = cmd_gpudb(ctx, &err)) || sysroot_info(db, dir, form, &out, &err))
		return cmd_report(&err);
	fputs(out, stdout);
	if (form == SYSROOT_INFO_JSON)
		putchar('\n');
	free(out);
	return 0;
}

static int list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	enum sysroot_info_form form = SYSROOT_INFO_TEXT;
	char *out = NULL;
	int rc;

	if (read_options(argc, argv, "sysroot list", opts, &form, &rc))
		return rc;
	if (optind < argc)
		return cmd_usage_error("sysroot list", "unexpected argument '%s'", argv[optind]);
	if (sysroot_list(form == SYSROOT_INFO_JSON, &out, &err))
		return cmd_report(&err);
	fputs(out, stdout);
	free(out);
	return 0;
}

static int verify(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "metadata-only", no_argument, NULL, 'm' },
		{ "expect", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	struct strvec problems = STRVEC_INIT;
	enum sysroot_verify_depth depth;
	const struct gpudb *db;
	const char *dir, *expect = NULL;
	int metadata_only = 0, rc;

	cmd_getopt_begin();
	while ((rc = cmd_getopt(argc, argv, "h", opts, "sysroot verify")) != -1) {
		switch (rc) {
		case 'm': metadata_only = 1; break;
		case 'e': expect = optarg; break;
		case 'h': fputs(sysroot_usage, stdout); return 0;
		default: return XCC_EUSAGE;
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("sysroot verify", "which sysroot? (sysroot verify DIR)");
	if (expect && (strlen(expect) != 64 || expect[strspn(expect, "0123456789abcdef")]))
		return cmd_usage_error("sysroot verify", "--expect %s is not a tree digest: 64 "
				       "lowercase hex digits, as 'sysroot info DIR --tree-digest' "
				       "prints them", expect);
	if (expect && metadata_only)
		return cmd_usage_error("sysroot verify", "--expect needs every file's contents "
				       "checked: not with --metadata-only");
	dir = argv[optind];
	if (!(db = cmd_gpudb(ctx, &err)))
		return cmd_report(&err);
	rc = sysroot_verify_expect(db, dir, metadata_only, expect, &problems, &depth, &err);
	for (size_t i = 0; i < problems.n; i++)
		printf("%s\n", problems.v[i]);
	if (rc)
		rc = cmd_report(&err);
	else
		printf("%s: %s: %s\n", dir, sysroot_verify_depth_ok(depth) ? "OK" : "NOT VERIFIED",
		       sysroot_verify_depth_text(depth));
	strvec_free(&problems);
	return rc;
}

static int gc(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcc_error err = { 0 };
	const char *cache = NULL;
	char *out = NULL;
	int c;

	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "h", opts, "sysroot gc")) != -1) {
		switch (c) {
		case 'K': cache = optarg; break;
		case 'h': fputs(sysroot_usage, stdout); return 0;
		default: return XCC_EUSAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("sysroot gc", "unexpected argument '%s'", argv[optind]);
	if (cache && !*cache)
		return cmd_usage_error("sysroot gc", "--cache takes a directory, not ''");
	if (sysroot_gc(cache, &out, &err))
		return cmd_report(&err);
	fputs(out, stdout);
	free(out);
	return 0;
}

int cmd_sysroot(int argc, char **argv, struct cmd_ctx *ctx)
{
	if (argc < 2)
		return cmd_usage_error("sysroot", "which action? create, info, list, verify or gc");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(sysroot_usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "create") == 0)
		return create(argc - 1, argv + 1, ctx);
	if (strcmp(argv[1], "info") == 0)
		return info(argc - 1, argv + 1, ctx);
	if (strcmp(argv[1], "list") == 0)
		return list(argc - 1, argv + 1);
	if (strcmp(argv[1], "verify") == 0)
		return verify(argc - 1, argv + 1, ctx);
	if (strcmp(argv[1], "gc") == 0)
		return gc(argc - 1, argv + 1);
	return cmd_usage_error("sysroot", "no action '%s'; use create, info, list, verify or gc",
			       argv[1]);
}
