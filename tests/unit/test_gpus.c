/* The embedded capability database and its queries. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "db/gpus.h"
#include "tap.h"

static struct cuda_version V(const char *s)
{
	struct cuda_version v = { -1, -1, -1 };

	cuda_version_parse(s, &v);
	return v;
}

static void test_cap_spellings(const struct gpudb *db)
{
	static const struct {
		const char *s;
		int major, minor;
		char variant;
		enum gpu_cap_prefix prefix;
	} good[] = {
		{ "8.7", 8, 7, 0, GPU_CAP_BARE },      { "87", 8, 7, 0, GPU_CAP_BARE },
		{ "sm_87", 8, 7, 0, GPU_CAP_SM },      { "compute_90a", 9, 0, 'a', GPU_CAP_COMPUTE },
		{ "lto_90", 9, 0, 0, GPU_CAP_LTO },    { "100f", 10, 0, 'f', GPU_CAP_BARE },
		{ "10.0f", 10, 0, 'f', GPU_CAP_BARE }, { "sm_120a", 12, 0, 'a', GPU_CAP_SM },
	};
	static const char *const bad[] = { "", "8", "sm_", "8.", "8.77", "1000", "87b", "sm87",
					   "-8.7", "8.-7", " 87", "compute_8.7x" };
	struct gpu_cap_spelling sp;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ok(gpu_cap_parse(good[i].s, &sp) == 0 && sp.major == good[i].major &&
			   sp.minor == good[i].minor && sp.variant == good[i].variant &&
			   sp.prefix == good[i].prefix,
		   "'%s' is %d.%d%c", good[i].s, good[i].major, good[i].minor,
		   good[i].variant ? good[i].variant : ' ');
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(gpu_cap_parse(bad[i], &sp) == -1, "'%s' is no capability", bad[i]);
	ok(gpudb_cap_named(db, "sm_87", NULL) == gpudb_find_cap(db, 8, 7, 0),
	   "sm_87 names the database's 8.7");
	ok(gpudb_cap_named(db, "4.2", NULL) == NULL, "4.2 names nothing");
}

/* components.json, loaded with the rest of the data: what the embedded one
 * says, and every malformed entry refused with its name. */
static void test_components(const struct gpudb *db)
{
	static const struct {
		const char *json, *want;
	} bad[] = {
		{ "{\"host\": [{\"name\": \"cuda_nvcc\"}], \"target\": [{\"min_cuda\": \"12.0\"}], "
		  "\"libraries\": {}}", "target entry 1: name is missing" },
		{ "{\"host\": [{\"name\": \"cuda_nvcc\", \"min_cuda\": \"twelve\"}], \"target\": [], "
		  "\"libraries\": {}}", "min_cuda must be a version, not twelve" },
		{ "{\"host\": [], \"target\": [{\"name\": \"cuda_cudart\", \"min_cud\": \"12.0\"}], "
		  "\"libraries\": {}}", "target cuda_cudart: unknown key \"min_cud\"" },
		{ "{\"host\": [], \"target\": [{\"name\": \"x\", \"optional\": \"yes\"}], "
		  "\"libraries\": {}}", "optional must be true or false" },
		{ "{\"host\": [{\"name\": \"x\", \"headers_only\": true}], \"target\": [], "
		  "\"libraries\": {}}", "host x: unknown key \"headers_only\"" },
		{ "{\"host\": [], \"target\": [{\"name\": \"x\"}, {\"name\": \"x\"}], "
		  "\"libraries\": {}}", "target x: listed twice" },
		{ "{\"host\": [], \"target\": [\"cuda_cudart\"], \"libraries\": {}}",
		  "target entry 1: not an object" },
		{ "{\"host\": [], \"target\": [{\"name\": \"x\", \"min_cuda\": \"13.0\", "
		  "\"max_cuda\": \"12.0\"}], \"libraries\": {}}", "min_cuda is past max_cuda" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"x\": [\"lib*.so\", 3]}}",
		  "libraries x: every pattern must be a non-empty string" },
		{ "{\"host\": [], \"target\": [], \"libraries\": []}", "\"libraries\" must be an object" },
		{ "{\"host\": [], \"target\": []}", "\"libraries\" must be an object" },
		{ "{\"host\": {}, \"target\": [], \"libraries\": {}}", "host must be an array" },
		{ "{\"hosts\": [], \"target\": [], \"libraries\": {}}", "unknown key \"hosts\"" },
		{ "{\"host\": [", "not valid JSON" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"needs\": {\"a\": [{\"name\": \"b\", \"source\": \"s\"}]}}",
		  "needs: b is not in the libraries table" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"needs\": {\"a\": [{\"name\": \"a\"}]}}", "needs a: source is missing" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"needs\": {\"a\": [{\"name\": \"a\", \"source\": \"s\", \"unverified\": 1}]}}",
		  "needs a: unverified must be true or false" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"licenses\": {\"b\": {}}}", "licenses: b is not in the libraries table" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"licenses\": {\"a\": {\"license\": \"Proprietary\", \"text\": \"t\"}}}",
		  "licenses a: source is missing" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"licenses\": {\"a\": {\"license\": \"P\", \"text\": \"t\", \"source\": \"s\", "
		  "\"unverified\": [\"licence\"]}}}", "licenses a: unverified names no field" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, \"licenses\": []}",
		  "\"licenses\" must be an object" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"needs\": {\"a\": [{\"name\": \"a\", \"min\": \"12.0\"}]}}",
		  "needs a: unknown key \"min\"" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"packages\": {\"liba_rt\": \"b\"}}", "packages: b is not in the libraries table" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"not_target\": {\"a\": \"a tool\"}}", "not_target a: it is in the libraries table too" },
		{ "{\"host\": [], \"target\": [], \"libraries\": {\"a\": []}, "
		  "\"not_target\": {\"b\": \"\"}}", "not_target b: must be a non-empty reason" },
	};
	const struct component_libraries *l;
	size_t host = 0, target = 0;

	for (size_t i = 0; i < db->n_components; i++)
		*(db->components[i].side == TOOLKIT_HOST ? &host : &target) += 1;
	ok(host == 2 && target == 8, "components.json: 2 host, 8 target components (%zu, %zu)",
	   host, target);
	ok(db->components[0].side == TOOLKIT_HOST && strcmp(db->components[0].name, "cuda_nvcc") == 0,
	   "cuda_nvcc comes first, on the host side");
	for (size_t i = 0; i < db->n_components; i++)
		if (strcmp(db->components[i].name, "cuda_cccl") == 0)
			ok(toolkit_component_applies(&db->components[i], V("13.2")) &&
			   !toolkit_component_applies(&db->components[i], V("13.3")),
			   "cuda_cccl ends with 13.2 (max_cuda is inclusive)");
	l = gpudb_component_libraries(db, "cuda_cudart");
	ok(l && l->n_patterns == 5 && strcmp(l->patterns[0], "libcudart.so*") == 0,
	   "cuda_cudart's library patterns");
	ok(gpudb_component_libraries(db, "libfoo") == NULL, "no patterns for an unknown component");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct gpudb t;
		struct xcc_error err = { 0 };

		memset(&t, 0, sizeof t);
		ok(gpudb_load_components(&t, bad[i].json, &err) == -1 && strstr(err.msg, bad[i].want),
		   "malformed components.json refused: %s (%s)", bad[i].want, err.msg);
		gpudb_free(&t);
	}
}

int main(void)
{
	struct gpudb db;
	struct xcc_error err = { 0 };
	struct cuda_version v;
	const struct gpu_cap *c;
	char buf[32];
	int maj, min;

	ok(gpudb_load(&db, &err) == 0, "the embedded database loads (%s)", err.msg);
	ok(db.n_caps >= 35, "every capability of the table is there (%zu)", db.n_caps);
	for (size_t i = 1; i < db.n_caps; i++)
		if (gpu_cap_cmp(&db.caps[i - 1], &db.caps[i]) >= 0)
			ok(0, "capabilities are sorted at %zu", i);
	ok(gpu_cap_cmp(gpudb_find_cap(&db, 10, 0, 0), gpudb_find_cap(&db, 10, 0, 'a')) < 0 &&
	   gpu_cap_cmp(gpudb_find_cap(&db, 10, 0, 'a'), gpudb_find_cap(&db, 10, 0, 'f')) < 0,
	   "sort order: \"\" < a < f");
	ok(gpu_cap_cmp(gpudb_find_cap(&db, 9, 0, 'a'), gpudb_find_cap(&db, 10, 0, 0)) < 0,
	   "sort order is numeric: 9.0a < 10.0");

	ok(cuda_version_parse("12.6.3", &v) == 0 && v.major == 12 && v.minor == 6 && v.patch == 3,
	   "12.6.3 parses");
	ok(cuda_version_parse("13.0", &v) == 0 && v.patch == -1, "13.0 parses without a patch level");
	ok(cuda_version_parse("13", &v) != 0, "13 alone is refused");
	ok(cuda_version_parse("12.6x", &v) != 0, "trailing junk is refused");
	ok(cuda_version_parse("", &v) != 0, "empty is refused");
	/* Issue 16: 4294967308 wrapped to 12 in a 32-bit int. */
	ok(cuda_version_parse("4294967308.6", &v) != 0, "a major that overflows is refused");
	ok(cuda_version_parse("12.4294967302", &v) != 0, "a minor that overflows is refused");
	ok(cuda_version_parse("12.6.99999999999999999999", &v) != 0, "a patch that overflows is refused");
	ok(cuda_version_parse("100.1", &v) != 0, "a major over 99 is refused");
	ok(cuda_version_parse("-12.6", &v) != 0 && cuda_version_parse("+12.6", &v) != 0 &&
	   cuda_version_parse(" 12.6", &v) != 0 && cuda_version_parse("12. 6", &v) != 0,
	   "signs and spaces are refused");
	ok(cuda_version_parse("12.6.", &v) != 0 && cuda_version_parse("12..6", &v) != 0,
	   "empty components are refused");
	ok(cuda_version_parse("99.99.9999", &v) == 0 && v.major == 99 && v.patch == 9999,
	   "the largest accepted version parses");
	ok(cuda_version_cmp(V("12.3.2"), V("12.3")) == 0, "patch levels do not matter in comparisons");

	c = gpudb_find_cap(&db, 8, 7, 0);
	ok(c && c->jetson && c->has_sbsa_from, "8.7 is Orin, sbsa from 13.2");
	is_str(gpu_cap_token(c, buf, sizeof buf), "87", "token of 8.7");
	c = gpudb_find_cap(&db, 10, 0, 'f');
	is_str(gpu_cap_token(c, buf, sizeof buf), "100f", "token of 10.0f");
	is_str(gpu_cap_name(c, buf, sizeof buf), "10.0f", "name of 10.0f");

	c = gpudb_find_cap(&db, 7, 2, 0);
	ok(gpu_cap_supported_by(c, V("12.9")) && !gpu_cap_supported_by(c, V("13.0")),
	   "7.2 ends with 12.9");
	c = gpudb_find_cap(&db, 6, 0, 0);
	ok(gpu_cap_default_for(c, V("12.3")) && !gpu_cap_default_for(c, V("12.4")),
	   "6.0 is default until 12.3");
	ok(!gpu_cap_default_for(gpudb_find_cap(&db, 8, 7, 0), V("12.6")), "Jetson is never default");
	ok(!gpu_cap_default_for(gpudb_find_cap(&db, 9, 0, 'a'), V("12.6")), "9.0a is never default");
	ok(gpu_cap_default_for(gpudb_find_cap(&db, 10, 3, 0), V("13.0")), "10.3 is default in 13.0");

	ok(gpudb_host_limit(&db, V("11.8"))->gcc_max == 11, "CUDA 11.8 takes gcc <= 11");
	ok(gpudb_host_limit(&db, V("12.6"))->gcc_max == 13, "CUDA 12.6 takes gcc <= 13");
	ok(gpudb_host_limit(&db, V("12.9"))->clang_max == 19, "CUDA 12.9 takes clang <= 19");
	ok(gpudb_host_limit(&db, V("13.2"))->gcc_max == 15, "CUDA 13.2 takes gcc <= 15");
	/* CUDA 11.0-11.6 (issue 30): nvcc's host_config.h limits, per release. */
	ok(gpudb_host_limit(&db, V("11.0")) && gpudb_host_limit(&db, V("11.0"))->gcc_max == 9 &&
	   gpudb_host_limit(&db, V("11.0"))->clang_max == 9, "CUDA 11.0 takes gcc <= 9, clang <= 9");
	ok(gpudb_host_limit(&db, V("11.2")) && gpudb_host_limit(&db, V("11.2"))->gcc_max == 10 &&
	   gpudb_host_limit(&db, V("11.2"))->clang_max == 11, "CUDA 11.2 takes gcc <= 10, clang <= 11");
	ok(gpudb_host_limit(&db, V("11.4")) && gpudb_host_limit(&db, V("11.4"))->gcc_max == 10 &&
	   !gpudb_host_limit(&db, V("11.4"))->gcc_unverified, "CUDA 11.4 takes gcc <= 10 (verified)");
	ok(gpudb_host_limit(&db, V("11.6")) && gpudb_host_limit(&db, V("11.6"))->gcc_max == 11,
	   "CUDA 11.6 takes gcc <= 11");
	ok(gpudb_host_limit(&db, V("11.7"))->clang_max == 13, "CUDA 11.7 takes clang <= 13");
	for (int m = 0; m <= 8; m++) {
		struct cuda_version v11 = { 11, m, -1 };

		ok(gpudb_host_limit(&db, v11) != NULL, "host compiler limits known for 11.%d", m);
	}
	/* CUDA 13.4: in the tables, its limits marked unverified, and said so. */
	ok(gpudb_host_limit(&db, V("13.3")) && !gpudb_host_limit(&db, V("13.3"))->gcc_unverified,
	   "CUDA 13.3's gcc limit is verified");
	ok(gpudb_host_limit(&db, V("13.4")) && gpudb_host_limit(&db, V("13.4"))->gcc_unverified &&
	   gpudb_host_limit(&db, V("13.4"))->clang_unverified, "CUDA 13.4's limits are unverified");
	ok(cuda_version_cmp(db.newest_known, V("13.4")) == 0, "the tables know CUDA 13.4");
	ok(gpudb_cuda_unverified(&db, V("13.4")) != NULL && !gpudb_cuda_unverified(&db, V("13.3")),
	   "13.4 is marked unverified, 13.3 is not");
	ok(gpudb_never_released(&db, V("12.7")), "12.7 was never released");

	gpudb_sbsa_threshold(&db, V("12.6"), &maj, &min);
	ok(maj == 10 && min == 1, "T(12.6) = 10.1");
	gpudb_sbsa_threshold(&db, V("13.0"), &maj, &min);
	ok(maj == 8 && min == 7, "T(13.0) = 8.7");

	ok(gpudb_target(&db, "jetson") && gpudb_target(&db, "sbsa") && gpudb_target(&db, "x86_64"),
	   "the three target profiles load");
	ok(gpudb_target(&db, "ppc") == NULL, "unknown targets are not found");
	{
		const struct target_tag *tt = target_find_tag(gpudb_target(&db, "jetson"), "linux-aarch64");

		ok(tt && target_tag_available(tt, V("12.2")) && !target_tag_available(tt, V("12.3")) &&
		   target_tag_available(tt, V("12.4")) && !target_tag_available(tt, V("11.7")) &&
		   !target_tag_available(tt, V("13.0")),
		   "linux-aarch64 exists for 11.8-12.2 and 12.4-12.9");
		is_str(tt->target_dir, "aarch64-linux", "linux-aarch64 goes to targets/aarch64-linux");
	}
	is_str(gpudb_target(&db, "sbsa")->triple, "aarch64-linux-gnu", "sbsa triple");
	test_cap_spellings(&db);
	test_components(&db);
	gpudb_free(&db);
	return done_testing();
}
