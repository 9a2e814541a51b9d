#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "db/flags.h"
#include "use/nvcc_options.h"

#define V NVCC_VALUE
#define J (NVCC_VALUE | NVCC_ATTACHED)
#define NL NVCC_NO_LINK

/*
 * Every option of nvcc 11.8, 12.4 and 13.0, from their --help (the union: an
 * option one release lacks is still read right where another has it), in
 * --help's order. nvcc spells the short names with one dash and the long
 * ones with two, never the other way ("--ccbin" and "-compiler-bindir" are
 * unknown options to it), and takes a value as the next word or after '='
 * alike; only the short names flagged J also take it joined (-O3, -Idir,
 * -lm: nvcc 13.0 refuses -ofile, -xcu, -mavx, -efoo). Where --help shows no
 * value but nvcc takes one (-MF, -qpp-config), nvcc 13.0 itself says so
 * ("-MF=x" is no "no argument expected"): tests/nvcc-options.bats holds the
 * table against both.
 */
static const struct nvcc_option nvcc_options[] = {
	/* The compilation phase: the ones that end before the host link. */
	{ "-cuda", "--cuda", NL, NVCC_PASS },
	{ "-cubin", "--cubin", NL, NVCC_PASS },
	{ "-fatbin", "--fatbin", NL, NVCC_PASS },
	{ "-ptx", "--ptx", NL, NVCC_PASS },
	{ "-optix-ir", "--optix-ir", NL, NVCC_PASS },
	{ "-ltoir", "--ltoir", NL, NVCC_PASS },
	{ "-lto-ir", NULL, NL | NVCC_HIDDEN, NVCC_PASS },
	{ "-E", "--preprocess", NL, NVCC_PASS },
	{ "-M", "--generate-dependencies", NL, NVCC_PASS },
	{ "-MM", "--generate-nonsystem-dependencies", NL, NVCC_PASS },
	{ "-MD", "--generate-dependencies-with-compile", 0, NVCC_PASS },
	{ "-MMD", "--generate-nonsystem-dependencies-with-compile", 0, NVCC_PASS },
	{ "-MF", "--dependency-output", V, NVCC_PASS },
	{ "-MP", "--generate-dependency-targets", 0, NVCC_PASS },
	{ "-c", "--compile", NL, NVCC_PASS },
	{ "-dc", "--device-c", NL, NVCC_DEVICE_C },
	{ "-dw", "--device-w", NL, NVCC_PASS },
	{ "-dlink", "--device-link", NL, NVCC_DLINK },
	{ "-link", "--link", 0, NVCC_PASS },
	{ "-lib", "--lib", NL, NVCC_LIB },
	{ "-run", "--run", NL, NVCC_PASS },
	/* Files and paths. */
	{ "-o", "--output-file", V, NVCC_OUTPUT },
	{ "-include", "--pre-include", V, NVCC_PASS },
	{ "-objtemp", "--objdir-as-tempdir", 0, NVCC_PASS },
	{ "-l", "--library", J, NVCC_PASS },
	{ "-D", "--define-macro", J, NVCC_PASS },
	{ "-U", "--undefine-macro", J, NVCC_PASS },
	{ "-I", "--include-path", J, NVCC_PASS },
	{ "-isystem", "--system-include", V, NVCC_PASS },
	{ "-L", "--library-path", J, NVCC_PASS },
	{ "-odir", "--output-directory", V, NVCC_PASS },
	{ "-ccbin", "--compiler-bindir", V, NVCC_CCBIN },
	{ "-allow-unsupported-compiler", "--allow-unsupported-compiler", 0,
	  NVCC_ALLOW_UNSUPPORTED },
	{ "-arbin", "--archiver-binary", V, NVCC_ARBIN },
	{ "-cudart", "--cudart", V, NVCC_CUDART },
	{ "-cudadevrt", "--cudadevrt", V, NVCC_PASS },
	{ "-ldir", "--libdevice-directory", V, NVCC_PASS },
	{ "-target-dir", "--target-directory", V, NVCC_TARGET_DIR },
	{ "-use-local-env", "--use-local-env", 0, NVCC_PASS },
	{ "-force-cl-env-setup", "--force-cl-env-setup", 0, NVCC_PASS },
	/* Steering the compilation. */
	{ "-pg", "--profile", 0, NVCC_PASS },
	{ "-g", "--debug", 0, NVCC_PASS },
	{ "-G", "--device-debug", 0, NVCC_PASS },
	{ "-lineinfo", "--generate-line-info", 0, NVCC_PASS },
	{ "-opt-info", "--optimization-info", V, NVCC_PASS },
	{ "-O", "--optimize", J, NVCC_PASS },
	{ "-Ofc", "--Ofast-compile", V, NVCC_PASS },
	{ "-dopt", "--dopt", V, NVCC_PASS },
	{ "-dlto", "--dlink-time-opt", 0, NVCC_DLTO },
	{ "-lto", "--lto", 0, NVCC_DLTO },
	{ "-gen-opt-lto", "--gen-opt-lto", 0, NVCC_PASS },
	{ "-ftemplate-backtrace-limit", "--ftemplate-backtrace-limit", V, NVCC_PASS },
	{ "-ftemplate-depth", "--ftemplate-depth", V, NVCC_PASS },
	{ "-noeh", "--no-exceptions", 0, NVCC_PASS },
	{ "-shared", "--shared", 0, NVCC_PASS },
	{ "-x", "--x", V, NVCC_PASS },
	{ "-std", "--std", V, NVCC_PASS },
	{ "-nohdinitlist", "--no-host-device-initializer-list", 0, NVCC_PASS },
	{ "-nohdmoveforward", "--no-host-device-move-forward", 0, NVCC_PASS },
	{ "-expt-relaxed-constexpr", "--expt-relaxed-constexpr", 0, NVCC_PASS },
	{ "-extended-lambda", "--extended-lambda", 0, NVCC_PASS },
	{ "-expt-extended-lambda", "--expt-extended-lambda", 0, NVCC_PASS },
	{ "-m", "--machine", V, NVCC_PASS },
	{ "-m32", "--m32", 0, NVCC_PASS },
	{ "-m64", "--m64", 0, NVCC_PASS },
	/* Options for the tools under nvcc. */
	{ "-Xcompiler", "--compiler-options", V, NVCC_PASS },
	{ "-Xlinker", "--linker-options", V, NVCC_PASS },
	{ "-Xarchive", "--archive-options", V, NVCC_PASS },
	{ "-Xptxas", "--ptxas-options", V, NVCC_PASS },
	{ "-Xnvlink", "--nvlink-options", V, NVCC_PASS },
	{ "-Xfatbin", "--fatbin-options", V | NVCC_HIDDEN, NVCC_PASS },
	{ "-static-global-template-stub", "--static-global-template-stub", V, NVCC_PASS },
	{ "-device-entity-has-hidden-visibility", "--device-entity-has-hidden-visibility", V,
	  NVCC_PASS },
	{ "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", 0,
	  NVCC_PASS },
	{ "-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker", 0, NVCC_PASS },
	{ "-forward-unknown-opts", "--forward-unknown-opts", 0, NVCC_PASS },
	{ "-noprof", "--dont-use-profile", 0, NVCC_PASS },
	/* nvcc's own behaviour. -dryrun and -clean write nothing. */
	{ "-dryrun", "--dryrun", NL, NVCC_PASS },
	{ "-v", "--verbose", 0, NVCC_PASS },
	{ "-t", "--threads", J, NVCC_PASS },
	{ "-split-compile", "--split-compile", V, NVCC_PASS },
	{ "-split-compile-extended", "--split-compile-extended", V, NVCC_PASS },
	{ "-fdevice-syntax-only", "--fdevice-syntax-only", 0, NVCC_PASS },
	{ "-fdevice-time-trace", "--fdevice-time-trace", V, NVCC_PASS },
	{ "-keep", "--keep", 0, NVCC_PASS },
	{ "-keep-dir", "--keep-dir", V, NVCC_PASS },
	{ "-save-temps", "--save-temps", 0, NVCC_PASS },
	{ "-clean", "--clean-targets", NL, NVCC_PASS },
	{ "-time", "--time", V, NVCC_PASS },
	{ "-run-args", "--run-args", V, NVCC_PASS },
	{ "-idp", "--input-drive-prefix", V, NVCC_PASS },
	{ "-ddp", "--dependency-drive-prefix", V, NVCC_PASS },
	{ "-dp", "--drive-prefix", V, NVCC_PASS },
	{ "-MT", "--dependency-target-name", V, NVCC_PASS },
	{ NULL, "--no-align-double", 0, NVCC_PASS },
	{ "-nodlink", "--no-device-link", 0, NVCC_PASS },
	/* GPU code generation. */
	{ "-arch", "--gpu-architecture", V, NVCC_ARCH },
	{ "-code", "--gpu-code", V, NVCC_CODE },
	{ "-gencode", "--generate-code", V, NVCC_GENCODE },
	{ "-rdc", "--relocatable-device-code", V, NVCC_RDC },
	{ "-e", "--entries", V, NVCC_PASS },
	{ "-maxrregcount", "--maxrregcount", V, NVCC_PASS },
	{ "-use_fast_math", "--use_fast_math", 0, NVCC_PASS },
	{ "-ftz", "--ftz", V, NVCC_PASS },
	{ "-prec-div", "--prec-div", V, NVCC_PASS },
	{ "-prec-sqrt", "--prec-sqrt", V, NVCC_PASS },
	{ "-fmad", "--fmad", V, NVCC_PASS },
	{ "-extra-device-vectorization", "--extra-device-vectorization", 0, NVCC_PASS },
	{ "-default-stream", "--default-stream", V, NVCC_PASS },
	{ "-w", "--disable-warnings", 0, NVCC_PASS },
	{ "-keep-device-functions", "--keep-device-functions", 0, NVCC_PASS },
	{ "-src-in-ptx", "--source-in-ptx", 0, NVCC_PASS },
	{ "-restrict", "--restrict", 0, NVCC_PASS },
	{ "-Wreorder", "--Wreorder", 0, NVCC_PASS },
	{ "-Wdefault-stream-launch", "--Wdefault-stream-launch", 0, NVCC_PASS },
	{ "-Wmissing-launch-bounds", "--Wmissing-launch-bounds", 0, NVCC_PASS },
	{ "-Wext-lambda-captures-this", "--Wext-lambda-captures-this", 0, NVCC_PASS },
	{ "-Wno-deprecated-declarations", "--Wno-deprecated-declarations", 0, NVCC_PASS },
	{ "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", 0, NVCC_PASS },
	{ "-Werror", "--Werror", V, NVCC_PASS },
	{ "-res-usage", "--resource-usage", 0, NVCC_PASS },
	{ "-ewp", "--extensible-whole-program", 0, NVCC_PASS },
	{ "-no-compress", "--no-compress", 0, NVCC_PASS },
	{ "-qpp-config", "--qpp-config", V, NVCC_PASS },
	{ "-astoolspatch", "--compile-as-tools-patch", 0, NVCC_PASS },
	{ "-code-ls", "--list-gpu-code", NL, NVCC_PASS },
	{ "-arch-ls", "--list-gpu-arch", NL, NVCC_PASS },
	{ "-err-no", "--display-error-number", 0, NVCC_PASS },
	{ "-no-err-no", "--no-display-error-number", 0, NVCC_PASS },
	{ "-diag-error", "--diag-error", V, NVCC_PASS },
	{ "-diag-suppress", "--diag-suppress", V, NVCC_PASS },
	{ "-diag-warn", "--diag-warn", V, NVCC_PASS },
	{ "-hls", "--host-linker-script", V, NVCC_PASS },
	{ "-aug-hls", "--augment-host-linker-script", 0, NVCC_PASS },
	/* A relocatable link writes an object, no program (11.8 and 12.4 call
	 * it --host-relocatable-link). */
	{ "-r", "--relocatable-link", NL, NVCC_PASS },
	{ "-r", "--host-relocatable-link", NL, NVCC_PASS },
	{ "-brief-diag", "--brief-diagnostics", V, NVCC_PASS },
	{ "-jtd", "--jump-table-density", V, NVCC_PASS },
	{ "-reloc-ptx", "--relocatable-ptx", 0, NVCC_PASS },
	{ "-device-stack-protector", "--device-stack-protector", V, NVCC_PASS },
	{ "-compress-mode", "--compress-mode", V, NVCC_PASS },
	{ "-frandom-seed", "--frandom-seed", V, NVCC_PASS },
	{ "-sanitize", "--sanitize", V, NVCC_PASS },
	{ "-jobserver", "--jobserver", 0, NVCC_PASS },
	{ "-dQ", "--version-ident", V, NVCC_PASS },
	{ "-h", "--help", NL, NVCC_PASS },
	{ "-V", "--version", NL, NVCC_PASS },
	{ "-optf", "--options-file", V, NVCC_OPTIONS_FILE },
};

#undef V
#undef J
#undef NL

const struct nvcc_option *nvcc_option_table(size_t *n)
{
	*n = sizeof nvcc_options / sizeof nvcc_options[0];
	return nvcc_options;
}

const char *nvcc_role_name(enum nvcc_role role)
{
	static const char *const names[] = {
		[NVCC_PASS] = "pass",          [NVCC_OUTPUT] = "output",
		[NVCC_CCBIN] = "ccbin",        [NVCC_ALLOW_UNSUPPORTED] = "allow-unsupported",
		[NVCC_ARCH] = "arch",          [NVCC_CODE] = "code",
		[NVCC_GENCODE] = "gencode",    [NVCC_DLTO] = "dlto",
		[NVCC_RDC] = "rdc",            [NVCC_DEVICE_C] = "device-c",
		[NVCC_DLINK] = "dlink",        [NVCC_LIB] = "lib",
		[NVCC_CUDART] = "cudart",      [NVCC_TARGET_DIR] = "target-dir",
		[NVCC_ARBIN] = "arbin",        [NVCC_OPTIONS_FILE] = "options-file",
	};

	return (size_t)role < sizeof names / sizeof names[0] && names[role] ? names[role] : "?";
}

/* Whether word is name, alone (1) or with "=VALUE" (2). */
static int name_match(const char *word, const char *name)
{
	size_t n;

	if (!name)
		return 0;
	n = strlen(name);
	if (strncmp(word, name, n) != 0)
		return 0;
	return !word[n] ? 1 : word[n] == '=' ? 2 : 0;
}

/* The option word names exactly (alone or with "=VALUE"), by the spelling
 * of its dashes, or NULL. *eq is set when "=VALUE" follows. */
static const struct nvcc_option *find_exact(const char *word, int *eq, int *long_spelling)
{
	int two = word[1] == '-';

	for (size_t i = 0; i < sizeof nvcc_options / sizeof nvcc_options[0]; i++) {
		const struct nvcc_option *o = &nvcc_options[i];
		int m = name_match(word, two ? o->long_name : o->short_name);

		if (m) {
			*eq = m == 2;
			*long_spelling = two;
			return o;
		}
	}
	return NULL;
}

/* The short option whose name word starts with and that takes its value
 * joined (-O3, -I/usr/include): the longest such name. */
static const struct nvcc_option *find_joined(const char *word)
{
	const struct nvcc_option *best = NULL;
	size_t best_n = 0;

	for (size_t i = 0; i < sizeof nvcc_options / sizeof nvcc_options[0]; i++) {
		const struct nvcc_option *o = &nvcc_options[i];
		size_t n;

		if (!(o->flags & NVCC_ATTACHED) || !o->short_name)
			continue;
		n = strlen(o->short_name);
		if (n > best_n && strncmp(word, o->short_name, n) == 0 && word[n]) {
			best = o;
			best_n = n;
		}
	}
	return best;
}

int nvcc_arg_read(int argc, char *const argv[], int i, struct nvcc_arg *arg)
{
	const char *w = argv[i];
	const struct nvcc_option *o;
	int eq = 0, long_spelling = 0;

	memset(arg, 0, sizeof *arg);
	arg->word = w;
	arg->words = 1;
	if (w[0] != '-' || !w[1]) {
		arg->form = NVCC_OPERAND;
		return 1;
	}
	o = find_exact(w, &eq, &long_spelling);
	if (o && eq && !(o->flags & NVCC_VALUE))
		o = NULL; /* "-c=1": nvcc refuses it ("no argument expected") */
	if (o) {
		arg->opt = o;
		arg->long_spelling = long_spelling;
		if (!(o->flags & NVCC_VALUE)) {
			arg->form = NVCC_FLAG;
		} else if (eq) {
			arg->form = NVCC_EQUALS;
			arg->value = strchr(w, '=') + 1;
		} else {
			arg->form = NVCC_SEPARATE;
			if (i + 1 < argc) {
				arg->value = argv[i + 1];
				arg->words = 2;
			}
		}
		return arg->words;
	}
	if (w[1] != '-' && (o = find_joined(w))) {
		arg->opt = o;
		arg->form = NVCC_JOINED;
		arg->value = w + strlen(o->short_name);
		return 1;
	}
	arg->form = NVCC_UNKNOWN;
	return 1;
}

void nvcc_args_push(struct nvcc_args *args, const struct nvcc_arg *arg)
{
	XGROW(args->v, args->n + 1, args->cap);
	args->v[args->n++] = *arg;
}

void nvcc_args_read(int argc, char *const argv[], struct nvcc_args *args)
{
	struct nvcc_arg a;

	memset(args, 0, sizeof *args);
	for (int i = 0; i < argc;) {
		i += nvcc_arg_read(argc, argv, i, &a);
		nvcc_args_push(args, &a);
	}
}

void nvcc_args_free(struct nvcc_args *args)
{
	free(args->v);
	memset(args, 0, sizeof *args);
}

int nvcc_input_links_only(const char *path)
{
	static const char *const exts[] = { ".o", ".a", ".so", ".obj", ".lib", NULL };
	const char *dot = strrchr(path, '.');

	if (strstr(path, ".so."))
		return 1;
	for (size_t k = 0; dot && exts[k]; k++)
		if (strcmp(dot, exts[k]) == 0)
			return 1;
	return 0;
}

/* arch=compute_87,code=[sm_87,compute_87]: the capabilities named. */
static void gencode_specs(struct strvec *specs, const char *value)
{
	char *copy = xstrdup(value), *save = NULL;

	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(p, '=');

		flags_specs_from_nvcc_value(specs, eq ? eq + 1 : p);
	}
	free(copy);
}

/* One option's part of what the line decides. */
static void line_option(const struct nvcc_arg *a, struct nvcc_line *l)
{
	const char *v = a->value;

	if (a->opt->flags & NVCC_NO_LINK)
		l->links = 0;
	switch (a->opt->role) {
	case NVCC_OUTPUT: l->output = v; break;
	case NVCC_CCBIN: l->ccbin = v; break;
	case NVCC_ALLOW_UNSUPPORTED: l->allow_unsupported = 1; break;
	case NVCC_GENCODE:
		l->has_gencode = 1;
		if (v)
			gencode_specs(&l->specs, v);
		break;
	case NVCC_CODE:
		l->has_gencode = 1;
		if (v)
			flags_specs_from_nvcc_value(&l->specs, v);
		break;
	case NVCC_DLTO: l->dlto = 1; break;
	case NVCC_RDC: l->rdc = v && strcmp(v, "true") == 0; break;
	case NVCC_DEVICE_C: l->rdc = 1; break;
	case NVCC_DLINK: l->dlink = 1; break;
	case NVCC_CUDART: l->cudart_shared = v && strcmp(v, "shared") == 0; break;
	case NVCC_TARGET_DIR: l->has_target_dir = 1; break;
	case NVCC_ARBIN: l->has_arbin = 1; break;
	case NVCC_PASS: case NVCC_ARCH: case NVCC_LIB: case NVCC_OPTIONS_FILE: break;
	}
}

void nvcc_line_read(const struct nvcc_args *args, struct nvcc_line *line)
{
	memset(line, 0, sizeof *line);
	line->links = 1;
	for (size_t i = 0; i < args->n; i++) {
		const struct nvcc_arg *a = &args->v[i];

		if (a->opt)
			line_option(a, line);
		else if (a->form == NVCC_OPERAND)
			line->sources |= !nvcc_input_links_only(a->word);
	}
}

void nvcc_line_free(struct nvcc_line *line)
{
	strvec_free(&line->specs);
	memset(line, 0, sizeof *line);
}

const char *nvcc_command_output(int argc, char *const argv[])
{
	struct nvcc_args args;
	struct nvcc_line line;
	const char *out;

	nvcc_args_read(argc - 1, argv + 1, &args);
	nvcc_line_read(&args, &line);
	out = line.links ? line.output : NULL;
	nvcc_line_free(&line);
	nvcc_args_free(&args);
	return out;
}
