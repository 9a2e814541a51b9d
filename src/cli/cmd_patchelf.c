/* cuda-xcc patchelf (also installed as cuda-xcc-patchelf): NixOS patchelf's
 * command line and output, so it can stand in wherever patchelf is run. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch.h"
#include "cli/cmd.h"

/* The patchelf release whose interface this follows (for tools that parse
 * `patchelf --version`). */
#define PATCHELF_COMPAT_VERSION "0.18.0"

static void usage(FILE *f)
{
	fputs("syntax: patchelf\n"
	      "  [--set-interpreter FILENAME]\n"
	      "  [--page-size SIZE]\n"
	      "  [--print-interpreter]\n"
	      "  [--print-os-abi]\t\tPrints 'EI_OSABI' field of ELF header\n"
	      "  [--set-os-abi ABI]\t\tSets 'EI_OSABI' field of ELF header to ABI.\n"
	      "  [--print-soname]\t\tPrints 'DT_SONAME' entry of .dynamic section.\n"
	      "  [--set-soname SONAME]\t\tSets 'DT_SONAME' entry to SONAME.\n"
	      "  [--set-rpath RPATH]\n"
	      "  [--add-rpath RPATH]\n"
	      "  [--remove-rpath]\n"
	      "  [--shrink-rpath]\n"
	      "  [--allowed-rpath-prefixes PREFIXES]\t\tWith '--shrink-rpath', reject rpath entries "
	      "not starting with the allowed prefix\n"
	      "  [--print-rpath]\n"
	      "  [--force-rpath]\n"
	      "  [--add-needed LIBRARY]\n"
	      "  [--remove-needed LIBRARY]\n"
	      "  [--replace-needed LIBRARY NEW_LIBRARY]\n"
	      "  [--print-needed]\n"
	      "  [--no-default-lib]\n"
	      "  [--no-sort]\t\tAccepted; this patchelf never sorts headers.\n"
	      "  [--clear-symbol-version SYMBOL]\n"
	      "  [--rename-dynamic-symbols NAME_MAP_FILE]\tRenames dynamic symbols. The map "
	      "file should contain two symbols (old_name new_name) per line\n"
	      "  [--add-debug-tag]\n"
	      "  [--print-execstack]\t\tPrints whether the object requests an executable stack\n"
	      "  [--clear-execstack]\n"
	      "  [--set-execstack]\n"
	      "  [--output FILE]\n"
	      "  [--debug]\n"
	      "  [--version]\n"
	      "  FILENAME...\n"
	      "\n"
	      "An option's argument written @FILE is read from FILE, all of it.\n"
	      "cuda-xcc's patchelf: strings that fit are patched in place; otherwise one new\n"
	      "segment is appended (64 KiB aligned on aarch64 and ppc64, see --page-size) and no\n"
	      "other section moves. A failed patch leaves the file as it was.\n", f);
}

/* patchelf's map file: "OLD NEW" per line, separated by blanks; reading
 * stops at a blank line, as patchelf's does. */
static int read_rename_map(const char *path, struct strvec *pairs, struct xcc_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!f)
		return xcc_fail(err, XCC_EUSAGE, "--rename-dynamic-symbols: cannot open map file "
				"'%s': %s", path, strerror(errno));
	for (size_t lineno = 1; getline(&line, &cap, f) >= 0; lineno++) {
		char *save = NULL;
		char *from = strtok_r(line, " \t\r\n\v\f", &save);
		char *to = from ? strtok_r(NULL, " \t\r\n\v\f", &save) : NULL;

		if (!from)
			break;
		if (!to) {
			rc = xcc_fail(err, XCC_EUSAGE, "%s:%zu: the line names '%s' but no new name "
				      "for it (each line is: OLD NEW)", path, lineno, from);
			break;
		}
		if (strchr(from, '@') || strchr(to, '@')) {
			rc = xcc_fail(err, XCC_EUSAGE, "%s:%zu: '%s %s' has a version tag (@): "
				      "name the symbols without their versions, which stay as "
				      "they are", path, lineno, from, to);
			break;
		}
		for (size_t i = 0; i < pairs->n; i += 2)
			if (strcmp(pairs->v[i], from) == 0) {
				rc = xcc_fail(err, XCC_EUSAGE, "%s:%zu: '%s' appears twice in the "
					      "map file", path, lineno, from);
				break;
			}
		if (rc)
			break;
		strvec_push(pairs, from);
		strvec_push(pairs, to);
	}
	if (!rc && ferror(f))
		rc = xcc_fail(err, XCC_EFAIL, "%s: reading: %s", path, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

struct prints {
	int interp, os_abi, soname, rpath, needed, execstack;
};

static int print_file(const char *path, const struct prints *p, struct xcc_error *err)
{
	struct elfinfo info;

	if (p->execstack) {
		char state;

		if (elfpatch_execstack(path, &state, err))
			return -1;
		printf("execstack: %c\n", state);
	}
	if (!p->interp && !p->os_abi && !p->soname && !p->rpath && !p->needed)
		return 0;
	if (elfinfo_read(path, &info, err))
		return -1;
	if (p->interp) {
		if (!info.interp) {
			elfinfo_free(&info);
			return xcc_fail(err, XCC_EFAIL,
					"%s: cannot find section '.interp'. The input file is most "
					"likely statically linked", path);
		}
		printf("%s\n", info.interp);
	}
	if (p->os_abi) {
		const char *name = elfinfo_osabi_name(info.osabi);

		if (name)
			printf("%s\n", name);
		else
			printf("0x%02X\n", info.osabi);
	}
	/* A separate debug file's run path is empty, as patchelf says. */
	if (((p->rpath && !info.is_debug) || p->needed) && !info.has_dynamic &&
	    !info.dynamic_section_only) {
		elfinfo_free(&info);
		return xcc_fail(err, XCC_EFAIL,
				"%s: cannot find section '.dynamic'. The input file is most likely "
				"statically linked", path);
	}
	if (p->soname && info.soname)
		printf("%s\n", info.soname);
	if (p->rpath && (info.has_dynamic || info.dynamic_section_only))
		printf("%s\n", info.runpath ? info.runpath : info.rpath ? info.rpath : "");
	if (p->needed)
		for (size_t i = 0; i < info.needed.n; i++)
			printf("%s\n", info.needed.v[i]);
	elfinfo_free(&info);
	return 0;
}

static int modifies(const struct elfpatch_ops *o)
{
	return o->set_os_abi >= 0 || o->set_soname || o->set_interp ||
	       o->rpath_op != ELFPATCH_RPATH_KEEP || o->remove_needed.n || o->replace_needed.n ||
	       o->add_needed.n || o->no_default_lib || o->add_debug_tag || o->execstack >= 0 ||
	       o->clear_symbol_version.n || o->rename_symbols.n;
}

int cmd_patchelf(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct elfpatch_ops ops = ELFPATCH_OPS_INIT;
	struct prints pr = { 0 };
	struct strvec files = STRVEC_INIT, from_files = STRVEC_INIT;
	struct xcc_error err = { 0 };
	int debug = 0, rc = 0, no_more_opts = 0;

	(void)ctx;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		/* Every option that takes a value. */
		static const char *const with_value[] = {
			"--set-interpreter", "--interpreter", "--page-size", "--set-os-abi",
			"--set-soname", "--set-rpath", "--add-rpath", "--allowed-rpath-prefixes",
			"--add-needed", "--remove-needed", "--output", "--clear-symbol-version", NULL
		};
		const char *val = NULL;

		if (no_more_opts || a[0] != '-' || strcmp(a, "-") == 0) {
			strvec_push(&files, a);
			continue;
		}
		if (strcmp(a, "--") == 0) {
			no_more_opts = 1;
			continue;
		}
		for (const char *const *w = with_value; *w; w++)
			if (strcmp(a, *w) == 0) {
				if (i + 1 >= argc) {
					rc = cmd_usage_error("patchelf", "%s needs an argument", a);
					goto out;
				}
				val = argv[++i];
				/* patchelf's @FILE: the argument is the file's contents. */
				if (val[0] == '@') {
					char *text = file_read_text(val + 1, NULL);

					if (!text) {
						xcc_fail(&err, XCC_EFAIL, "%s: getting info about '%s': "
							 "%s", a, val + 1, strerror(errno));
						rc = cmd_report(&err);
						goto out;
					}
					strvec_push(&from_files, text);
					free(text);
					val = from_files.v[from_files.n - 1];
				}
			}
		if (strcmp(a, "--set-interpreter") == 0 || strcmp(a, "--interpreter") == 0) {
			ops.set_interp = val;
		} else if (strcmp(a, "--page-size") == 0) {
			char *end;

			ops.page_size = strtoul(val, &end, 0);
			if (*end || !ops.page_size || (ops.page_size & (ops.page_size - 1))) {
				rc = cmd_usage_error("patchelf", "--page-size '%s' is not a power of two",
						     val);
				goto out;
			}
		} else if (strcmp(a, "--set-os-abi") == 0) {
			ops.set_os_abi = elfinfo_osabi_parse(val);
			if (ops.set_os_abi < 0) {
				rc = cmd_usage_error("patchelf", "unrecognized OS ABI '%s' (try none, "
						     "linux, freebsd, ...)", val);
				goto out;
			}
		} else if (strcmp(a, "--set-soname") == 0) {
			ops.set_soname = val;
		} else if (strcmp(a, "--set-rpath") == 0) {
			ops.rpath_op = ELFPATCH_RPATH_SET;
			ops.rpath = val;
		} else if (strcmp(a, "--add-rpath") == 0) {
			ops.rpath_op = ELFPATCH_RPATH_ADD;
			ops.rpath = val;
		} else if (strcmp(a, "--allowed-rpath-prefixes") == 0) {
			ops.allowed_rpath_prefixes = val;
		} else if (strcmp(a, "--add-needed") == 0) {
			strvec_push(&ops.add_needed, val);
		} else if (strcmp(a, "--remove-needed") == 0) {
			strvec_push(&ops.remove_needed, val);
		} else if (strcmp(a, "--output") == 0) {
			ops.output = val;
		} else if (strcmp(a, "--replace-needed") == 0) {
			if (i + 2 >= argc) {
				rc = cmd_usage_error("patchelf", "--replace-needed needs two arguments");
				goto out;
			}
			strvec_push(&ops.replace_needed, argv[i + 1]);
			strvec_push(&ops.replace_needed, argv[i + 2]);
			i += 2;
		} else if (strcmp(a, "--remove-rpath") == 0) {
			ops.rpath_op = ELFPATCH_RPATH_REMOVE;
		} else if (strcmp(a, "--shrink-rpath") == 0) {
			ops.rpath_op = ELFPATCH_RPATH_SHRINK;
		} else if (strcmp(a, "--force-rpath") == 0) {
			ops.force_rpath = 1;
		} else if (strcmp(a, "--no-default-lib") == 0) {
			ops.no_default_lib = 1;
		} else if (strcmp(a, "--clear-symbol-version") == 0) {
			strvec_push(&ops.clear_symbol_version, val);
		} else if (strcmp(a, "--rename-dynamic-symbols") == 0) {
			/* A file name, never @FILE-expanded: patchelf reads it itself. */
			if (i + 1 >= argc) {
				rc = cmd_usage_error("patchelf", "%s needs an argument", a);
				goto out;
			}
			if (read_rename_map(argv[++i], &ops.rename_symbols, &err)) {
				rc = cmd_report(&err);
				goto out;
			}
		} else if (strcmp(a, "--no-sort") == 0) {
			continue;
		} else if (strcmp(a, "--add-debug-tag") == 0) {
			ops.add_debug_tag = 1;
		} else if (strcmp(a, "--set-execstack") == 0) {
			ops.execstack = 1;
		} else if (strcmp(a, "--clear-execstack") == 0) {
			ops.execstack = 0;
		} else if (strcmp(a, "--print-execstack") == 0) {
			pr.execstack = 1;
		} else if (strcmp(a, "--print-interpreter") == 0) {
			pr.interp = 1;
		} else if (strcmp(a, "--print-os-abi") == 0) {
			pr.os_abi = 1;
		} else if (strcmp(a, "--print-soname") == 0) {
			pr.soname = 1;
		} else if (strcmp(a, "--print-rpath") == 0) {
			pr.rpath = 1;
		} else if (strcmp(a, "--print-needed") == 0) {
			pr.needed = 1;
		} else if (strcmp(a, "--debug") == 0) {
			debug = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			goto out;
		} else if (strcmp(a, "--version") == 0) {
			printf("patchelf %s (%s)\n", PATCHELF_COMPAT_VERSION, PACKAGE_STRING);
			goto out;
		} else if (!val) {
			rc = cmd_usage_error("patchelf", "unknown option '%s'", a);
			goto out;
		}
	}
	if (!files.n) {
		usage(stderr);
		rc = XCC_EUSAGE;
		goto out;
	}
	if (ops.output && files.n != 1) {
		rc = cmd_usage_error("patchelf", "--output takes exactly one input file");
		goto out;
	}
	for (size_t f = 0; f < files.n; f++) {
		struct elfpatch_result res = { 0 };

		if (print_file(files.v[f], &pr, &err)) {
			rc = cmd_report(&err);
			break;
		}
		if (!modifies(&ops) && !ops.output)
			continue;
		if (elfpatch_file(files.v[f], &ops, &res, &err)) {
			rc = cmd_report(&err);
			elfpatch_result_free(&res);
			break;
		}
		for (size_t i = 0; i < res.warnings.n; i++)
			fprintf(stderr, "cuda-xcc: warning: %s\n", res.warnings.v[i]);
		if (debug) {
			for (size_t i = 0; i < res.log.n; i++)
				fprintf(stderr, "%s\n", res.log.v[i]);
			fprintf(stderr, "%s: %s, %llu -> %llu bytes\n", files.v[f],
				res.changed ? (res.grew ? "patched, grown" : "patched in place")
					    : "unchanged",
				res.old_size, res.new_size);
		}
		elfpatch_result_free(&res);
	}
out:
	fflush(stdout);
	elfpatch_ops_free(&ops);
	strvec_free(&files);
	strvec_free(&from_files);
	return rc;
}
