/* Capability parsing, validation rules, tag choice and the flag strings. */
#include <config.h>

#include <stdlib.h>

#include "base/xalloc.h"
#include "db/flags.h"
#include "tap.h"

static struct gpudb db;

/* Resolve and return the nvcc flags, or "ERR: message". */
static char *resolve(const char *target, const char *cuda, const char *arch, enum ptx_policy ptx,
		     char **cmake, const char **tag)
{
	struct strvec specs = STRVEC_INIT, out = STRVEC_INIT;
	struct arch_choice c;
	struct xcc_error err = { 0 };
	struct cuda_version v;
	char *s;

	cuda_version_parse(cuda, &v);
	if (arch)
		strvec_push(&specs, arch);
	if (flags_resolve(&db, gpudb_target(&db, target), v, &specs, ptx, &c, &err)) {
		strvec_free(&specs);
		return xasprintf("ERR(%d): %s", err.status, err.msg);
	}
	arch_choice_gencode(&c, &out);
	s = strvec_join(&out, " ");
	if (cmake)
		*cmake = arch_choice_cmake(&c);
	if (tag)
		*tag = c.tag;
	arch_choice_free(&c);
	strvec_free(&out);
	strvec_free(&specs);
	return s;
}

static void expect(const char *target, const char *cuda, const char *arch, const char *want)
{
	char *got = resolve(target, cuda, arch, PTX_DEFAULT, NULL, NULL);

	is_str(got, want, "%s %s -arch %s", target, cuda, arch);
	free(got);
}

static void refuse(const char *target, const char *cuda, const char *arch, const char *needle)
{
	char *got = resolve(target, cuda, arch, PTX_DEFAULT, NULL, NULL);

	ok(strncmp(got, "ERR(2)", 6) == 0 && strstr(got, needle), "%s %s -arch %s is refused with '%s'",
	   target, cuda, arch, needle);
	if (!strstr(got, needle))
		printf("#   got: %s\n", got);
	free(got);
}

static void tag_is(const char *target, const char *cuda, const char *arch, const char *want)
{
	const char *tag = NULL;
	char *got = resolve(target, cuda, arch, PTX_DEFAULT, NULL, &tag);

	is_str(tag, want, "tag for %s %s -arch %s (%s)", target, cuda, arch, got);
	free(got);
}

static void test_the_issues_must_holds(void)
{
	char *cmake = NULL, *s;

	expect("jetson", "12.6", "sm_87", "-gencode=arch=compute_87,code=sm_87");
	s = resolve("sbsa", "12.6", "7.5,8.6", PTX_DEFAULT, &cmake, NULL);
	is_str(s, "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_86,code=sm_86 "
		  "-gencode=arch=compute_86,code=compute_86", "sbsa 12.6 7.5,8.6");
	is_str(cmake, "75-real;86", "CMake value for 7.5,8.6");
	free(s);
	free(cmake);
	expect("jetson", "11.8", "6.2,7.2",
	       "-gencode=arch=compute_62,code=sm_62 -gencode=arch=compute_72,code=sm_72");
	refuse("jetson", "11.8", "7.2,7.5", "not a Jetson GPU");
	refuse("sbsa", "11.8", "7.2,7.5", "cannot be mixed");
	tag_is("jetson", "12.6", "8.7", "linux-aarch64");
	tag_is("jetson", "13.0", "11.0", "linux-sbsa");
	tag_is("sbsa", "13.0", "11.0", "linux-sbsa");
	tag_is("sbsa", "12.6", "8.0,8.9", "linux-sbsa");
	tag_is("jetson", "13.2", "8.7", "linux-sbsa");
	tag_is("sbsa", "13.2", "8.7", "linux-sbsa");
	tag_is("jetson", "12.8", "10.1", "linux-sbsa");
	tag_is("x86_64", "12.6", "8.6", "linux-x86_64");
}

static void test_spellings(void)
{
	expect("sbsa", "12.6", "86", "-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_86,code=compute_86");
	expect("sbsa", "12.6", "8.6", "-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_86,code=compute_86");
	expect("jetson", "12.6", "compute_87",
	       "-gencode=arch=compute_87,code=sm_87 -gencode=arch=compute_87,code=compute_87");
	expect("sbsa", "12.6", "sm_90a", "-gencode=arch=compute_90a,code=sm_90a");
	expect("sbsa", "12.9", "100f", "-gencode=arch=compute_100f,code=sm_100f");
	expect("sbsa", "12.9", "SM_100F", "-gencode=arch=compute_100f,code=sm_100f");
	expect("sbsa", "12.6", "sm_90a,9.0",
	       "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 "
	       "-gencode=arch=compute_90a,code=sm_90a");
	expect("sbsa", "12.6", "8.6,8.6,86", "-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_86,code=compute_86");
	refuse("sbsa", "12.6", "sm_99", "'sm_99' is not a known GPU capability");
	refuse("sbsa", "12.6", "banana", "'banana' is not a known");
	refuse("sbsa", "12.6", "8.", "not a known");
	refuse("sbsa", "12.6", "sm_86b", "not a known");
}

static void test_version_limits(void)
{
	refuse("sbsa", "13.0", "sm_72", "removed in CUDA 13.0, last supported by 12.9");
	refuse("jetson", "13.0", "sm_72", "removed in CUDA 13.0, last supported by 12.9");
	refuse("sbsa", "12.0", "3.5", "removed in CUDA 12.0, last supported by 11.8");
	refuse("sbsa", "12.6", "sm_100", "needs CUDA 12.8 or newer");
	refuse("sbsa", "12.7", "8.6", "never released");
}

static void test_jetson_rules(void)
{
	refuse("x86_64", "12.6", "sm_87", "Jetson GPU");
	refuse("x86_64", "13.0", "sm_110", "Jetson GPU");
	refuse("jetson", "13.0", "sm_87", "--cuda 12.9 or older, or --cuda 13.2 or newer");
	refuse("jetson", "13.1", "sm_87", "13.2");
	refuse("jetson", "12.3", "sm_87", "no linux-aarch64 libraries for CUDA 12.3");
	refuse("jetson", "12.3.2", "sm_87", "11.8-12.2, 12.4-12.9");
	refuse("jetson", "11.4", "sm_87", "no linux-aarch64");
	refuse("sbsa", "12.6", "sm_87", "--target jetson");
	refuse("jetson", "12.6", "default", "the board decides");
	refuse("jetson", "12.6", "default", "Orin");
	refuse("jetson", "12.6", "all-major", "the board decides");
	refuse("jetson", "12.6", "8.7,8.6", "not a Jetson GPU");
	/* PTX by GPU: Thor (Tegra) gets SASS only, PTX goes to 9.0. */
	expect("sbsa", "13.0", "11.0,9.0",
	       "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 "
	       "-gencode=arch=compute_110,code=sm_110");
	expect("jetson", "12.6", "all",
	       "-gencode=arch=compute_53,code=sm_53 -gencode=arch=compute_62,code=sm_62 "
	       "-gencode=arch=compute_72,code=sm_72 -gencode=arch=compute_87,code=sm_87");
	expect("jetson", "13.0", "all", "-gencode=arch=compute_110,code=sm_110");
	tag_is("jetson", "13.2", "all", "linux-sbsa");
}

static void test_arch_and_family_specific_rules(void)
{
	char *cmake = NULL, *s;

	refuse("sbsa", "13.0", "11.0f,11.0", "baseline");
	refuse("sbsa", "13.0", "compute_90a", "PTX asked for an arch-specific capability");
	s = resolve("sbsa", "12.6", "9.0a", PTX_HIGHEST, &cmake, NULL);
	is_str(s, "-gencode=arch=compute_90a,code=sm_90a", "--ptx highest skips a/f capabilities");
	is_str(cmake, "90a-real", "CMake value of 9.0a alone");
	free(s);
	free(cmake);
}

static void test_keywords(void)
{
	char *cmake = NULL, *s;

	expect("sbsa", "12.6", "default",
	       "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 "
	       "-gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_89,code=sm_89 "
	       "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90");
	s = resolve("x86_64", "11.8", NULL, PTX_NONE, &cmake, NULL);
	is_str(cmake, "60-real;61-real;70-real;75-real;80-real;86-real;89-real;90-real", "11.8 default set");
	free(s);
	free(cmake);
	s = resolve("x86_64", "12.4", "default", PTX_NONE, &cmake, NULL);
	is_str(cmake, "70-real;75-real;80-real;86-real;89-real;90-real", "12.4 default set");
	free(s);
	free(cmake);
	s = resolve("x86_64", "12.8", "default", PTX_NONE, &cmake, NULL);
	is_str(cmake, "75-real;80-real;86-real;89-real;90-real;100-real;120-real", "12.8 default set");
	free(s);
	free(cmake);
	s = resolve("x86_64", "13.0", "default", PTX_HIGHEST, &cmake, NULL);
	is_str(cmake, "75-real;80-real;86-real;89-real;90-real;100-real;103-real;120-real;121", "13.0 default set");
	free(s);
	free(cmake);
	s = resolve("x86_64", "12.6", "all-major", PTX_NONE, &cmake, NULL);
	is_str(cmake, "50-real;60-real;70-real;80-real;90-real", "12.6 all-major");
	free(s);
	free(cmake);
	s = resolve("sbsa", "12.6", "all", PTX_ALL, &cmake, NULL);
	is_str(cmake, "50;52;60;61;70;75;80;86;89;90", "--ptx all on 12.6 all");
	free(s);
	free(cmake);
	refuse("sbsa", "12.6", "native", "build machine's GPU");
}

static void test_nvcc_code_values(void)
{
	struct strvec specs = STRVEC_INIT;

	flags_specs_from_nvcc_value(&specs, "[sm_80,compute_80]");
	ok(specs.n == 2 && strcmp(specs.v[0], "sm_80") == 0 && strcmp(specs.v[1], "compute_80") == 0,
	   "bracketed code lists split");
	strvec_free(&specs);
}

int main(void)
{
	struct xcc_error err = { 0 };

	if (gpudb_load(&db, &err)) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	test_the_issues_must_holds();
	test_spellings();
	test_version_limits();
	test_jetson_rules();
	test_arch_and_family_specific_rules();
	test_keywords();
	test_nvcc_code_values();
	gpudb_free(&db);
	return done_testing();
}
