/* libFuzzer target for package identification: a .deb (ar, control file),
 * a wheel (zip, WHEEL and METADATA) or a redist .tar.xz, told apart by
 * content. Any bytes give a package_info or an error. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/package.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct package_info info;
	struct xcc_error err = { 0 };
	char path[64];
	int fd = fuzz_memfile(data, size, path);

	if (fd < 0)
		return 0;
	if (package_identify(path, &info, &err) == 0) {
		/* What identification promises its callers. */
		if (!info.machine || (strcmp(info.machine, "x86_64") && strcmp(info.machine, "aarch64") &&
				      strcmp(info.machine, "all") && !*info.machine))
			abort();
		package_info_free(&info);
	}
	close(fd);
	return 0;
}
