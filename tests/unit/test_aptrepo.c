/* The apt index reader: sources.list lines, deb822 fields, Debian's version
 * order, and the Packages stanzas a repository may not list. */
#include <config.h>

#include "base/xalloc.h"
#include "pkg/aptrepo.h"
#include "sysroot/sysroot_apt.h"
#include "tap.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void sources(void)
{
	struct xcc_error err = { 0 };
	struct apt_source s;

	ok(apt_is_source("deb https://x/ /"), "a deb line is a source");
	ok(apt_is_source("https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/"),
	   "a URL ending in / is a source");
	ok(!apt_is_source("https://x/redistrib_12.6.3.json"), "a manifest is not");
	ok(!apt_is_source("debian.deb"), "a .deb is not");
	ok(apt_source_parse("deb [sha256=" SHA " arch=arm64] https://repo/jetson/common r36.4 main",
			    &s, &err) == 0, "a Jetson line parses");
	is_str(s.url, "https://repo/jetson/common/", "its URL gets a trailing /");
	is_str(s.suite, "r36.4", "its suite");
	ok(!s.flat && s.components.n == 1, "one component, not flat");
	is_str(s.release_sha256, SHA, "the pin");
	ok(s.arches.n == 1 && strcmp(s.arches.v[0], "arm64") == 0, "arch= taken");
	apt_source_free(&s);
	ok(apt_source_parse("deb https://x/compute/cuda/repos/ubuntu2404/x86_64 /", &s, &err) == 0 &&
	   s.flat && s.arches.n == 2, "a flat CUDA line parses, amd64 and arm64 by default");
	apt_source_free(&s);
	ok(apt_source_parse("deb [sha256=12] https://x/ /", &s, &err) == -1 &&
	   err.status == XCC_EUSAGE, "a short pin is refused");
	ok(apt_source_parse("deb [signed-by=k.gpg] https://x/ /", &s, &err) == -1 &&
	   strstr(err.msg, "absolute path"), "signed-by takes an absolute keyring path");
	ok(apt_source_parse("deb [signed-by=/k.gpg] https://x/ /", &s, &err) == 0, "signed-by");
	is_str(s.signed_by, "/k.gpg", "its keyring");
	apt_source_free(&s);
	ok(apt_source_parse("deb https://x/ r36.4", &s, &err) == -1, "a suite without component");
	ok(apt_source_parse("deb https://x/ ./ main", &s, &err) == -1, "a flat one with one");
	ok(apt_source_parse("deb https://x/ ../ ", &s, &err) == -1, "a suite climbing out");
}

static void fields(void)
{
	const char st[] = "Origin: x\nSHA256:\n aa 10 Packages\n bb 5 Packages.gz\nDate: now\n";
	char *v = deb822_field(st, sizeof st - 1, "SHA256");

	is_str(v, "aa 10 Packages\nbb 5 Packages.gz", "a multi-line field, lines joined");
	free(v);
	v = deb822_field(st, sizeof st - 1, "date");
	is_str(v, "now", "field names are case-insensitive");
	free(v);
	ok(!deb822_field(st, sizeof st - 1, "Orig"), "a prefix is no field");
}

static void versions(void)
{
	ok(apt_version_cmp("12.4.131-1", "12.4.99-1") > 0, "12.4.131 after 12.4.99");
	ok(apt_version_cmp("1:1.0-1", "2.0-1") > 0, "an epoch wins");
	ok(apt_version_cmp("1.0~rc1-1", "1.0-1") < 0, "~ sorts before the release");
	ok(apt_version_cmp("10.3.0.30-1+cuda12.5", "10.3.0.30-1+cuda12.6") < 0, "revision order");
	ok(apt_version_cmp("9.3.0.75-1", "9.3.0.75-1") == 0, "equal");
}

static void packages(void)
{
	struct xcc_error err = { 0 };
	struct apt_source s;
	struct apt_index idx = { 0 };
	size_t chosen[8], n = 0;
	struct strvec looked = STRVEC_INIT;
	const char good[] =
		"Package: libcudnn9-cuda-12\nVersion: 9.3.0.75-1\nArchitecture: arm64\n"
		"Filename: pool/main/c/cudnn/libcudnn9-cuda-12_9.3.0.75-1_arm64.deb\n"
		"Size: 10\nSHA256: " SHA "\n\n"
		"Package: libcudnn9-static-cuda-12\nVersion: 9.3.0.75-1\nArchitecture: arm64\n"
		"Filename: pool/x.deb\nSize: 10\nSHA256: " SHA "\n";
	const char *bad[] = {
		"Package: a\nVersion: 1\nArchitecture: all\nFilename: ../a.deb\nSize: 1\nSHA256: " SHA,
		"Package: a\nVersion: 1\nArchitecture: all\nFilename: /a.deb\nSize: 1\nSHA256: " SHA,
		"Package: a\nVersion: 1\nArchitecture: all\nFilename: http://e/a.deb\nSize: 1\n"
		"SHA256: " SHA,
		"Package: a\nVersion: 1\nArchitecture: all\nFilename: a.deb\nSize: 1\n",
		"Package: a\nVersion: 1\nArchitecture: all\nFilename: a.deb\nSize: x\nSHA256: " SHA,
	};

	apt_source_parse("deb [trusted=yes] http://r/jetson/common r36.4 main", &s, &err);
	ok(apt_packages_parse(good, sizeof good - 1, &s, "P", &idx, &err) == 0 && idx.n == 2,
	   "two stanzas");
	is_str(idx.v[0].url, "http://r/jetson/common/pool/main/c/cudnn/"
	       "libcudnn9-cuda-12_9.3.0.75-1_arm64.deb", "Filename below the URL");
	ok(sysroot_apt_choose(&idx, "cudnn", 0, "aarch64", 12, 6, chosen, &n, &looked, &err) == 0 &&
	   n == 1 && chosen[0] == 0, "cudnn takes the library package, not the static one");
	strvec_free(&looked);
	{
		const char x86[] =
			"Package: cuda-cccl-12-6\nVersion: 12.6.77-1\nArchitecture: amd64\n"
			"Filename: ./a.deb\nSize: 1\nSHA256: " SHA "\n\n"
			"Package: cuda-nvtx-cross-sbsa-12-6\nVersion: 12.6.68-1\nArchitecture: amd64\n"
			"Filename: ./b.deb\nSize: 1\nSHA256: " SHA "\n";
		struct apt_index x = { 0 };

		apt_packages_parse(x86, sizeof x86 - 1, &s, "P", &x, &err);
		ok(sysroot_apt_choose(&x, "cuda_cccl", 0, "sbsa", 12, 6, chosen, &n, &looked,
				      &err) == 0 && n == 0, "the x86_64 repository's own package is "
		   "no target candidate, and no refusal");
		ok(sysroot_apt_choose(&x, "cuda_nvtx", 0, "sbsa", 12, 6, chosen, &n, &looked,
				      &err) == -1 && strstr(err.msg, "for amd64 only"),
		   "a -cross- package for amd64 is refused");
		ok(sysroot_apt_choose(&x, "cuda_cccl", 1, "sbsa", 12, 6, chosen, &n, &looked,
				      &err) == 0 && n == 1, "the host side takes the amd64 one");
		strvec_free(&looked);
		apt_index_free(&x);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct apt_index b = { 0 };

		ok(apt_packages_parse(bad[i], strlen(bad[i]), &s, "P", &b, &err) == -1 &&
		   err.status == XCC_EFAIL, "bad stanza %zu refused: %s", i, err.msg);
		apt_index_free(&b);
	}
	apt_index_free(&idx);
	apt_source_free(&s);
}

int main(void)
{
	sources();
	fields();
	versions();
	packages();
	return done_testing();
}
