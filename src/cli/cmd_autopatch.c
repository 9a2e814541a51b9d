/* cuda-xcc autopatch: resolve every DT_NEEDED of a tree against libraries
 * of the same architecture and write $ORIGIN-relative search paths. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/autopatch.h"
#include "cli/cmd.h"

static void usage(FILE *f)
{
	fputs("Usage: cuda-xcc autopatch PATH... --libs DIR... [--cross-prefix TRIPLE-]\n"
	      "         [--target-fs ROOTFS] [--ignore-missing GLOB]... [--append-rpath P]...\n"
	      "         [--force-rpath] [--page-size N] [--dry-run] [--verbose] [--json]\n"
	      "\n"
	      "Resolve the DT_NEEDED libraries of every ELF file under PATH against libraries\n"
	      "of the same machine, class and OS ABI: first the file's own directory, then the\n"
	      "PATHs, then the --libs dirs, then the target system (the cross compiler's\n"
	      "libstdc++/libgcc_s, --target-fs). Directories inside the PATHs are written to\n"
	      "RUNPATH relative to $ORIGIN; existing $ORIGIN entries are kept. Libraries found\n"
	      "outside the PATHs are provided by the target system and never written. The C\n"
	      "library's names and libcuda.so.1 (the driver's) are always provided.\n"
	      "Static executables, debug files, symlinks, non-ELF files and libnvvm are left\n"
	      "alone.\n"
	      "\n"
	      "  --libs DIR...           more library directories (not searched recursively)\n"
	      "  --cross-prefix T-       ask T-gcc where the target's libstdc++ and libgcc_s are\n"
	      "  --target-fs ROOTFS      the device's root file system\n"
	      "  --ignore-missing GLOB   a library name that may stay unresolved\n"
	      "  --append-rpath P        appended to every search path written\n"
	      "  --force-rpath           write DT_RPATH (inherited by dependencies)\n"
	      "  --page-size N           alignment of segments added when a file grows\n"
	      "  --dry-run               resolve and report only (what sysroot verify does)\n"
	      "  --verbose               list every file and every provided library\n"
	      "  --json                  the report as JSON on stdout\n"
	      "\n"
	      "Each unresolved dependency is one line: the file, the library, its\n"
	      "architecture and the directories searched. Exit status 1 unless every\n"
	      "unresolved one matches --ignore-missing.\n", f);
}

int cmd_autopatch(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct autopatch_opts o = AUTOPATCH_OPTS_INIT;
	struct autopatch_report r = { 0 };
	struct xcc_error err = { 0 };
	static const struct option opts[] = {
		{ "libs", optional_argument, NULL, 'L' },
		{ "cross-prefix", required_argument, NULL, 'x' },
		{ "target-fs", required_argument, NULL, 'F' },
		{ "ignore-missing", required_argument, NULL, 'i' },
		{ "append-rpath", required_argument, NULL, 'r' },
		{ "page-size", required_argument, NULL, 'P' },
		{ "force-rpath", no_argument, NULL, 'R' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, verbose = 0, in_libs = 0, rc = 0, run_rc, c;

	(void)ctx;
	/* In order ('-'): operands after --libs are library dirs, before it
	 * PATHs to patch. */
	cmd_getopt_begin();
	while ((c = cmd_getopt(argc, argv, "-hv", opts, "autopatch")) != -1) {
		switch (c) {
		case 1: strvec_push(in_libs ? &o.libs : &o.paths, optarg); break;
		case 'L':
			if (optarg)
				strvec_push(&o.libs, optarg);
			else
				in_libs = 1;
			break;
		case 'x': o.cross_prefix = optarg; break;
		case 'F': o.target_fs = optarg; break;
		case 'i': strvec_push(&o.ignore_missing, optarg); break;
		case 'r': strvec_push(&o.append_rpath, optarg); break;
		case 'P':
			if ((rc = cmd_parse_page_size("autopatch", optarg, &o.page_size)))
				goto out;
			break;
		case 'R': o.force_rpath = 1; break;
		case 'n': o.dry_run = 1; break;
		case 'v': verbose = 1; break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); goto out;
		default: rc = XCC_EUSAGE; goto out;
		}
	}
	/* After "--" getopt returns the rest as operands. */
	for (; optind < argc; optind++)
		strvec_push(in_libs ? &o.libs : &o.paths, argv[optind]);
	if (!o.paths.n) {
		rc = cmd_usage_error("autopatch", "no PATH to patch given");
		goto out;
	}
	run_rc = autopatch_run(&o, &r, &err);
	if (json) {
		char *s = autopatch_report_json(&r);

		puts(s);
		free(s);
	} else {
		autopatch_report_print(&r, stdout, verbose);
	}
	fflush(stdout);
	if (run_rc)
		rc = cmd_report(&err);
out:
	autopatch_report_free(&r);
	autopatch_opts_free(&o);
	return rc;
}
