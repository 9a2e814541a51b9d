#include <config.h>

#include <archive.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <nettle/version.h>
#include <string.h>
#ifdef HAVE_LIBLZMA_MT
#include <lzma.h>
#endif
#if defined(__has_include)
#if __has_include(<elfutils/version.h>)
#include <elfutils/version.h>
#endif
#endif

#include "base/libinfo.h"

void libinfo_versions(struct strvec *out)
{
	const curl_version_info_data *curl = curl_version_info(CURLVERSION_NOW);
	const char *archive = archive_version_details();

	strvec_pushf(out, "libcurl %s (TLS: %s)", curl->version,
		     curl->ssl_version ? curl->ssl_version : "none");
	/* "libarchive 3.6.2 zlib/1.2.13 liblzma/5.4.1 ...": what it reads with. */
	if (strncmp(archive, "libarchive ", 11) == 0)
		archive += 11;
	strvec_pushf(out, "libarchive %s", archive);
#ifdef HAVE_LIBLZMA_MT
	strvec_pushf(out, "liblzma %s", lzma_version_string());
#endif
	strvec_pushf(out, "nettle %d.%d", nettle_version_major(), nettle_version_minor());
	strvec_pushf(out, "cJSON %s", cJSON_Version());
#ifdef _ELFUTILS_VERSION
	strvec_pushf(out, "libelf %d.%d (its headers' version: libelf cannot tell its own)",
		     _ELFUTILS_VERSION / 1000, _ELFUTILS_VERSION % 1000);
#else
	strvec_push(out, "libelf (version unknown: libelf cannot tell it)");
#endif
}

void libinfo_embedded_sources(struct strvec *out)
{
#ifdef XCC_EMBEDDED_SOURCES
	const char *p = XCC_EMBEDDED_SOURCES;

	while (*p) {
		size_t n = strcspn(p, ";");
		const char *start = p;

		while (n && *start == ' ')
			start++, n--;
		if (n)
			strvec_pushf(out, "%.*s", (int)n, start);
		p += strcspn(p, ";");
		if (*p)
			p++;
	}
#else
	(void)out;
#endif
}
