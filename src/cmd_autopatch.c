/* cuda-xcc autopatch: resolve every DT_NEEDED of a tree against libraries
 * of the same architecture and write $ORIGIN-relative search paths. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autopatch.h"
#include "cmd.h"

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
	int json = 0, verbose = 0, in_libs = 0, rc = 0, run_rc;

	(void)ctx;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		size_t namelen = eq && a[0] == '-' ? (size_t)(eq - a) : strlen(a);
		const char *val = NULL;
		static const char *const with_value[] = {
			"--cross-prefix", "--target-fs", "--ignore-missing", "--append-rpath",
			"--page-size", NULL
		};

		for (const char *const *w = with_value; *w; w++)
			if (strlen(*w) == namelen && strncmp(a, *w, namelen) == 0) {
				if (eq) {
					val = eq + 1;
				} else if (i + 1 < argc) {
					val = argv[++i];
				} else {
					rc = cmd_usage_error("autopatch", "%s needs an argument", a);
					goto out;
				}
			}
		if (val) {
			if (strncmp(a, "--cross-prefix", namelen) == 0)
				o.cross_prefix = val;
			else if (strncmp(a, "--target-fs", namelen) == 0)
				o.target_fs = val;
			else if (strncmp(a, "--ignore-missing", namelen) == 0)
				strvec_push(&o.ignore_missing, val);
			else if (strncmp(a, "--append-rpath", namelen) == 0)
				strvec_push(&o.append_rpath, val);
			else {
				char *end;

				o.page_size = strtoul(val, &end, 0);
				if (*end || !o.page_size || (o.page_size & (o.page_size - 1))) {
					rc = cmd_usage_error("autopatch",
							     "--page-size '%s' is not a power of two",
							     val);
					goto out;
				}
			}
		} else if (strcmp(a, "--libs") == 0) {
			in_libs = 1;
		} else if (strncmp(a, "--libs=", 7) == 0) {
			strvec_push(&o.libs, a + 7);
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
			verbose = 1;
		} else if (strcmp(a, "--dry-run") == 0) {
			o.dry_run = 1;
		} else if (strcmp(a, "--force-rpath") == 0) {
			o.force_rpath = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			goto out;
		} else if (a[0] == '-' && a[1]) {
			rc = cmd_usage_error("autopatch", "unknown option '%s'", a);
			goto out;
		} else if (in_libs) {
			strvec_push(&o.libs, a);
		} else {
			strvec_push(&o.paths, a);
		}
	}
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
