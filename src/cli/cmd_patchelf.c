/* cuda-xcc patchelf (also installed as cuda-xcc-patchelf): NixOS patchelf's
 * command line and output, so it can stand in wherever patchelf is run. */
#include <config.h>

#include <errno.h>
#include <stddef.h>
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

/* What the command line asks: the edits, the prints, the files. */
struct patchelf_args {
	struct elfpatch_ops ops;
	struct prints pr;
	struct strvec files;
	struct strvec from_files; /* @FILE contents, which ops point into */
	int debug;
};

/* One option of patchelf's command line: its value (0, 1 or 2 words; -1: one
 * word taken as it is, without @FILE) and what it sets. val2 is the second
 * word of a two-word option. A handler returns 0, -1 with err set, or a
 * usage error's exit status (2, already printed). */
struct patchelf_option {
	const char *name;
	int nargs;
	int (*set)(struct patchelf_args *a, const char *opt, const char *val, const char *val2,
		   struct xcc_error *err);
};

static int set_interp(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		      struct xcc_error *err)
{
	(void)o, (void)v2, (void)err;
	a->ops.set_interp = v;
	return 0;
}

static int set_page_size(struct patchelf_args *a, const char *o, const char *v, const char *v2,
			 struct xcc_error *err)
{
	(void)o, (void)v2, (void)err;
	return cmd_parse_page_size("patchelf", v, &a->ops.page_size);
}

static int set_os_abi(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		      struct xcc_error *err)
{
	(void)o, (void)v2, (void)err;
	a->ops.set_os_abi = elfinfo_osabi_parse(v);
	if (a->ops.set_os_abi < 0)
		return cmd_usage_error("patchelf", "unrecognized OS ABI '%s' (try none, linux, "
				       "freebsd, ...)", v);
	return 0;
}

static int set_soname(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		      struct xcc_error *err)
{
	(void)o, (void)v2, (void)err;
	a->ops.set_soname = v;
	return 0;
}

/* --set-rpath, --add-rpath, --remove-rpath, --shrink-rpath: one rpath edit. */
static int set_rpath(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		     struct xcc_error *err)
{
	(void)v2, (void)err;
	a->ops.rpath = v;
	a->ops.rpath_op = strcmp(o, "--set-rpath") == 0	   ? ELFPATCH_RPATH_SET
			  : strcmp(o, "--add-rpath") == 0    ? ELFPATCH_RPATH_ADD
			  : strcmp(o, "--remove-rpath") == 0 ? ELFPATCH_RPATH_REMOVE
							     : ELFPATCH_RPATH_SHRINK;
	return 0;
}

static int set_allowed_prefixes(struct patchelf_args *a, const char *o, const char *v,
				const char *v2, struct xcc_error *err)
{
	(void)o, (void)v2, (void)err;
	a->ops.allowed_rpath_prefixes = v;
	return 0;
}

/* The options that collect a list: --add-needed, --remove-needed,
 * --clear-symbol-version and --replace-needed's pairs. */
static int push_value(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		      struct xcc_error *err)
{
	(void)err;
	if (strcmp(o, "--add-needed") == 0)
		strvec_push(&a->ops.add_needed, v);
	else if (strcmp(o, "--remove-needed") == 0)
		strvec_push(&a->ops.remove_needed, v);
	else if (strcmp(o, "--clear-symbol-version") == 0)
		strvec_push(&a->ops.clear_symbol_version, v);
	else
		strvec_pushl(&a->ops.replace_needed, v, v2, NULL);
	return 0;
}

static int set_output(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		      struct xcc_error *err)
{
	(void)o, (void)v2, (void)err;
	a->ops.output = v;
	return 0;
}

static int set_rename_map(struct patchelf_args *a, const char *o, const char *v, const char *v2,
			  struct xcc_error *err)
{
	(void)o, (void)v2;
	return read_rename_map(v, &a->ops.rename_symbols, err);
}

/* The switches: each sets one flag. */
static int set_flag(struct patchelf_args *a, const char *o, const char *v, const char *v2,
		    struct xcc_error *err)
{
	static const struct {
		const char *name;
		size_t off; /* of an int in struct patchelf_args */
		int value;
	} flags[] = {
		{ "--force-rpath", offsetof(struct patchelf_args, ops.force_rpath), 1 },
		{ "--no-default-lib", offsetof(struct patchelf_args, ops.no_default_lib), 1 },
		{ "--add-debug-tag", offsetof(struct patchelf_args, ops.add_debug_tag), 1 },
		{ "--set-execstack", offsetof(struct patchelf_args, ops.execstack), 1 },
		{ "--clear-execstack", offsetof(struct patchelf_args, ops.execstack), 0 },
		{ "--print-execstack", offsetof(struct patchelf_args, pr.execstack), 1 },
		{ "--print-interpreter", offsetof(struct patchelf_args, pr.interp), 1 },
		{ "--print-os-abi", offsetof(struct patchelf_args, pr.os_abi), 1 },
		{ "--print-soname", offsetof(struct patchelf_args, pr.soname), 1 },
		{ "--print-rpath", offsetof(struct patchelf_args, pr.rpath), 1 },
		{ "--print-needed", offsetof(struct patchelf_args, pr.needed), 1 },
		{ "--debug", offsetof(struct patchelf_args, debug), 1 },
		{ "--no-sort", (size_t)-1, 0 }, /* patchelf's; nothing here is sorted */
	};

	(void)v, (void)v2, (void)err;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (strcmp(o, flags[i].name) == 0 && flags[i].off != (size_t)-1)
			*(int *)((char *)a + flags[i].off) = flags[i].value;
	return 0;
}

static const struct patchelf_option patchelf_options[] = {
	{ "--set-interpreter", 1, set_interp },
	{ "--interpreter", 1, set_interp },
	{ "--page-size", 1, set_page_size },
	{ "--set-os-abi", 1, set_os_abi },
	{ "--set-soname", 1, set_soname },
	{ "--set-rpath", 1, set_rpath },
	{ "--add-rpath", 1, set_rpath },
	{ "--remove-rpath", 0, set_rpath },
	{ "--shrink-rpath", 0, set_rpath },
	{ "--allowed-rpath-prefixes", 1, set_allowed_prefixes },
	{ "--add-needed", 1, push_value },
	{ "--remove-needed", 1, push_value },
	{ "--clear-symbol-version", 1, push_value },
	{ "--replace-needed", 2, push_value },
	{ "--output", 1, set_output },
	/* A file name, never @FILE-expanded: patchelf reads it itself. */
	{ "--rename-dynamic-symbols", -1, set_rename_map },
	{ "--force-rpath", 0, set_flag },
	{ "--no-default-lib", 0, set_flag },
	{ "--add-debug-tag", 0, set_flag },
	{ "--set-execstack", 0, set_flag },
	{ "--clear-execstack", 0, set_flag },
	{ "--print-execstack", 0, set_flag },
	{ "--print-interpreter", 0, set_flag },
	{ "--print-os-abi", 0, set_flag },
	{ "--print-soname", 0, set_flag },
	{ "--print-rpath", 0, set_flag },
	{ "--print-needed", 0, set_flag },
	{ "--debug", 0, set_flag },
	{ "--no-sort", 0, set_flag },
	{ NULL, 0, NULL },
};

/* patchelf's @FILE: a value that starts with @ is the named file's contents. */
static int expand_at_file(struct patchelf_args *a, const char *opt, const char **val,
			  struct xcc_error *err)
{
	char *text;

	if ((*val)[0] != '@')
		return 0;
	if (!(text = file_read_text(*val + 1, NULL)))
		return xcc_fail(err, XCC_EFAIL, "%s: getting info about '%s': %s", opt, *val + 1,
				strerror(errno));
	strvec_push(&a->from_files, text);
	free(text);
	*val = a->from_files.v[a->from_files.n - 1];
	return 0;
}

/* Apply the option at argv[*i] (advancing *i past its values). Returns 0,
 * -1 with err set, or a usage error's status. */
static int parse_option(struct patchelf_args *a, int argc, char **argv, int *i,
			struct xcc_error *err)
{
	const char *opt = argv[*i], *val = NULL, *val2 = NULL;
	const struct patchelf_option *po = patchelf_options;
	int words;

	while (po->name && strcmp(po->name, opt) != 0)
		po++;
	if (!po->name)
		return cmd_usage_error("patchelf", "unknown option '%s'", opt);
	words = po->nargs < 0 ? -po->nargs : po->nargs;
	if (*i + words >= argc)
		return words == 2 ? cmd_usage_error("patchelf", "%s needs two arguments", opt)
				  : cmd_usage_error("patchelf", "%s needs an argument", opt);
	if (words >= 1)
		val = argv[++*i];
	if (words == 2)
		val2 = argv[++*i];
	if (po->nargs == 1 && expand_at_file(a, opt, &val, err))
		return -1;
	return po->set(a, opt, val, val2, err);
}

/* Print what was asked and make the edits, file by file; the first error
 * stops. */
static int patch_files(const struct patchelf_args *a, struct xcc_error *err)
{
	for (size_t f = 0; f < a->files.n; f++) {
		const char *file = a->files.v[f];
		struct elfpatch_result res = { 0 };

		if (print_file(file, &a->pr, err))
			return -1;
		if (!modifies(&a->ops) && !a->ops.output)
			continue;
		if (elfpatch_file(file, &a->ops, &res, err)) {
			elfpatch_result_free(&res);
			return -1;
		}
		for (size_t i = 0; i < res.warnings.n; i++)
			fprintf(stderr, "cuda-xcc: warning: %s\n", res.warnings.v[i]);
		if (a->debug) {
			for (size_t i = 0; i < res.log.n; i++)
				fprintf(stderr, "%s\n", res.log.v[i]);
			fprintf(stderr, "%s: %s, %llu -> %llu bytes\n", file,
				res.changed ? (res.grew ? "patched, grown" : "patched in place")
					    : "unchanged",
				res.old_size, res.new_size);
		}
		elfpatch_result_free(&res);
	}
	return 0;
}

int cmd_patchelf(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct patchelf_args a = { .ops = ELFPATCH_OPS_INIT, .files = STRVEC_INIT,
				   .from_files = STRVEC_INIT };
	struct xcc_error err = { 0 };
	int rc = 0, no_more_opts = 0;

	(void)ctx;
	for (int i = 1; i < argc && rc == 0; i++) {
		const char *arg = argv[i];

		if (no_more_opts || arg[0] != '-' || strcmp(arg, "-") == 0) {
			strvec_push(&a.files, arg);
		} else if (strcmp(arg, "--") == 0) {
			no_more_opts = 1;
		} else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			usage(stdout);
			goto out;
		} else if (strcmp(arg, "--version") == 0) {
			printf("patchelf %s (%s)\n", PATCHELF_COMPAT_VERSION, PACKAGE_STRING);
			goto out;
		} else if ((rc = parse_option(&a, argc, argv, &i, &err)) < 0) {
			rc = cmd_report(&err);
		}
	}
	if (rc)
		goto out;
	if (!a.files.n) {
		usage(stderr);
		rc = XCC_EUSAGE;
	} else if (a.ops.output && a.files.n != 1) {
		rc = cmd_usage_error("patchelf", "--output takes exactly one input file");
	} else if (patch_files(&a, &err)) {
		rc = cmd_report(&err);
	}
out:
	fflush(stdout);
	elfpatch_ops_free(&a.ops);
	strvec_free(&a.files);
	strvec_free(&a.from_files);
	return rc;
}
