/* Driver mode without running nvcc: argument splitting and driver_plan's
 * command line. */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/proc.h"
#include "use/driver.h"
#include "tap.h"

static struct gpudb db;

#define PARSE(o, err, ...) \
	driver_parse_args(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *), \
			  (char *[]){ __VA_ARGS__ }, (o), (err))

static int has_arg(const struct strvec *sv, const char *a)
{
	return strvec_contains(sv, a);
}

static size_t count_prefix(const struct strvec *sv, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < sv->n; i++)
		n += strncmp(sv->v[i], prefix, strlen(prefix)) == 0;
	return n;
}

static void test_parse_splits_own_and_nvcc_arguments(void)
{
	struct driver_opts o;
	struct xcc_error err = { 0 };
	char *line;

	ok(PARSE(&o, &err, "--target", "jetson", "-arch", "sm_87", "-o", "--cuda", "foo.cu",
		 "--cuda=12.6", "-Xcompiler", "--target", "-###") == 0,
	   "parse: accepted (%s)", err.msg);
	is_str(o.target, "jetson", "parse: --target");
	is_str(o.cuda, "12.6", "parse: --cuda=V");
	ok(o.arch.n == 1 && strcmp(o.arch.v[0], "sm_87") == 0, "parse: -arch is cuda-xcc's");
	ok(o.dry_run, "parse: -### is a dry run");
	line = strvec_join(&o.nvcc_args, " ");
	is_str(line, "-o --cuda foo.cu -Xcompiler --target",
	       "parse: nvcc's arguments in order, values of nvcc's options untouched");
	free(line);
	driver_opts_free(&o);
}

/* nvcc's reading of one argument: the form, the option and its value. */
static void check_read(const char *const words[], int n, enum nvcc_form form,
		       const char *opt, const char *value, int used)
{
	struct nvcc_arg a;
	int got = nvcc_arg_read(n, (char *const *)words, 0, &a);
	const char *name = !a.opt ? NULL : a.long_spelling ? a.opt->long_name : a.opt->short_name;

	ok(got == used && a.form == form && (opt ? name && strcmp(name, opt) == 0 : !name) &&
		   (value ? a.value && strcmp(a.value, value) == 0 : !a.value),
	   "nvcc_arg_read: %s%s%s: %d words, form %d, option %s, value %s", words[0],
	   n > 1 ? " " : "", n > 1 ? words[1] : "", got, (int)a.form, name ? name : "none",
	   a.value ? a.value : "none");
}

static void test_nvcc_arg_read(void)
{
	struct nvcc_args args;
	struct nvcc_line line;

	check_read((const char *[]){ "-ccbin", "g++" }, 2, NVCC_SEPARATE, "-ccbin", "g++", 2);
	check_read((const char *[]){ "-ccbin=g++", "x.cu" }, 2, NVCC_EQUALS, "-ccbin", "g++", 1);
	check_read((const char *[]){ "--compiler-bindir", "g++" }, 2, NVCC_SEPARATE,
		   "--compiler-bindir", "g++", 2);
	check_read((const char *[]){ "-O3" }, 1, NVCC_JOINED, "-O", "3", 1);
	check_read((const char *[]){ "-lib" }, 1, NVCC_FLAG, "-lib", NULL, 1);
	check_read((const char *[]){ "-lcudart" }, 1, NVCC_JOINED, "-l", "cudart", 1);
	check_read((const char *[]){ "-ofile" }, 1, NVCC_UNKNOWN, NULL, NULL, 1);
	check_read((const char *[]){ "--ccbin", "g++" }, 2, NVCC_UNKNOWN, NULL, NULL, 1);
	check_read((const char *[]){ "-c=1" }, 1, NVCC_UNKNOWN, NULL, NULL, 1);
	check_read((const char *[]){ "-o" }, 1, NVCC_SEPARATE, "-o", NULL, 1);
	check_read((const char *[]){ "k.o" }, 1, NVCC_OPERAND, NULL, NULL, 1);

	nvcc_args_read(7, (char *[]){ "-gencode", "arch=compute_90,code=sm_90", "-dlto", "a.o",
				      "--output-file", "app", "-lib" }, &args);
	nvcc_line_read(&args, &line);
	ok(args.n == 5 && line.has_gencode && line.specs.n > 0 && line.dlto && !line.sources &&
		   !line.links && line.output && strcmp(line.output, "app") == 0,
	   "nvcc_line_read: -gencode's GPU, -dlto, no source, -lib links nothing, the output");
	nvcc_line_free(&line);
	nvcc_args_free(&args);
}

static void test_parse_missing_value(void)
{
	struct driver_opts o;
	struct xcc_error err = { 0 };

	ok(PARSE(&o, &err, "foo.cu", "--cuda") == -1 && err.status == XCC_EUSAGE &&
		   strstr(err.msg, "--cuda needs a value"),
	   "parse: an option without its value is a usage error: %s", err.msg);
	driver_opts_free(&o);
}

/* A dry run needs no sysroot; -ccbin given, so no search for one. */
static void test_plan_dry_run(void)
{
	struct driver_opts o;
	struct driver_plan plan;
	struct xcc_error err = { 0 };
	char *gxx = proc_which("aarch64-linux-gnu-g++");
	size_t n0;

	if (!gxx) {
		ok(1, "plan: # SKIP aarch64-linux-gnu-g++ is not installed");
		return;
	}
	PARSE(&o, &err, "--target", "jetson", "--cuda", "12.6", "-arch", "sm_87", "--dry-run",
	      "-ccbin", gxx, "-c", "foo.cu");
	ok(driver_plan(&db, &o, &plan, &err) == 0, "plan: made (%s)", err.msg);
	n0 = strlen(plan.argv.v[0]);
	ok(n0 >= 9 && strcmp(plan.argv.v[0] + n0 - 9, "/bin/nvcc") == 0,
	   "plan: the sysroot's nvcc (%s)", plan.argv.v[0]);
	ok(has_arg(&plan.argv, "-gencode=arch=compute_87,code=sm_87"), "plan: sm_87's -gencode");
	ok(has_arg(&plan.argv, "-target-dir=aarch64-linux"), "plan: -target-dir=aarch64-linux, one word");
	ok(has_arg(&plan.argv, "-arbin=aarch64-linux-gnu-ar"), "plan: the target's ar");
	ok(count_prefix(&plan.argv, "-ccbin") == 1 && has_arg(&plan.argv, gxx),
	   "plan: the user's -ccbin is kept, no other added");
	/* The user's arguments come last but for the flags that make the
	 * object independent of where it is built (use/prefix_map.c), which
	 * follow them so that their maps win. */
	{
		size_t last = plan.argv.n - 1;

		while (last > 0 && (strcmp(plan.argv.v[last], "-objtemp") == 0 ||
				    strncmp(plan.argv.v[last], "-Xcompiler=-ffile-prefix-map=", 29) == 0 ||
				    strncmp(plan.argv.v[last], "-Xcudafe=", 9) == 0))
			last--;
		is_str(plan.argv.v[last], "foo.cu", "plan: nvcc's arguments last, then the prefix maps");
	}
	driver_plan_free(&plan);
	driver_opts_free(&o);

	/* The user's own -gencode wins: it is checked, not doubled. */
	PARSE(&o, &err, "--target", "jetson", "--cuda", "12.6", "--dry-run", "-ccbin", gxx,
	      "-gencode=arch=compute_72,code=sm_72", "foo.cu");
	ok(driver_plan(&db, &o, &plan, &err) == 0, "plan with -gencode: made (%s)", err.msg);
	ok(plan.arch.n == 1 && plan.arch.entries[0].cap->major == 7 &&
		   plan.arch.entries[0].cap->minor == 2,
	   "plan with -gencode: the user's capability is the one checked");
	ok(count_prefix(&plan.argv, "-gencode") == 1,
	   "plan with -gencode: no -gencode of cuda-xcc's added");
	driver_plan_free(&plan);
	driver_opts_free(&o);
	free(gxx);
}

static void test_plan_refusals(void)
{
	struct driver_opts o;
	struct driver_plan plan;
	struct xcc_error err = { 0 };

	PARSE(&o, &err, "--target", "mars", "--cuda", "12.6", "--dry-run", "foo.cu");
	ok(driver_plan(&db, &o, &plan, &err) == -1 && err.status == XCC_EUSAGE &&
		   strstr(err.msg, "unknown target 'mars'"),
	   "plan: an unknown target: %s", err.msg);
	driver_plan_free(&plan);
	driver_opts_free(&o);

	PARSE(&o, &err, "--sysroot", "/nonexistent/sr", "--dry-run", "foo.cu");
	ok(driver_plan(&db, &o, &plan, &err) == -1 && err.status == XCC_EUSAGE &&
		   strstr(err.msg, "no sysroot at /nonexistent/sr (no such directory)"),
	   "plan: a --sysroot that does not exist: %s", err.msg);
	driver_plan_free(&plan);
	driver_opts_free(&o);

	PARSE(&o, &err, "--target", "jetson", "--cuda", "12.6", "-arch", "sm_87", "--target-fs",
	      "/nonexistent", "--dry-run", "-ccbin", "aarch64-linux-gnu-g++", "foo.cu");
	ok(driver_plan(&db, &o, &plan, &err) == -1 && err.status == XCC_EUSAGE &&
		   strstr(err.msg, "--target-fs /nonexistent is not a directory"),
	   "plan: a --target-fs that is no directory: %s", err.msg);
	driver_plan_free(&plan);
	driver_opts_free(&o);
}

int main(void)
{
	struct xcc_error err = { 0 };
	char dir[] = "/tmp/test_driver.XXXXXX";

	/* No sysroot store of the user's is looked at. */
	unsetenv("CUDA_XCC_SYSROOT");
	setenv("XDG_DATA_HOME", mkdtemp(dir), 1);
	if (gpudb_load(&db, &err)) {
		ok(0, "the database loads: %s", err.msg);
		return done_testing();
	}
	test_parse_splits_own_and_nvcc_arguments();
	test_parse_missing_value();
	test_nvcc_arg_read();
	test_plan_dry_run();
	test_plan_refusals();
	gpudb_free(&db);
	rmdir(dir);
	return done_testing();
}
