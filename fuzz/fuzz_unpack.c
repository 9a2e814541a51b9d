/* libFuzzer target for unpacking: the .deb ar reader, the xz block index
 * reader (a .deb's data.tar.xz is read by seeking when members are
 * skipped), the multi-threaded xz decoder and the tar/zip readers. Members
 * are mapped to nothing, or all into one private directory that is
 * emptied after each input. Any bytes give success or an error. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/unpack.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every other member is skipped: the seeking reader only runs with a map
 * that skips, and the kept ones exercise the path policy. */
static char *map_some(void *arg, const char *member)
{
	unsigned *n = arg;

	return (*n)++ % 2 ? NULL : xstrdup(member);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xcc_error err = { 0 };
	unsigned n = 0;
	struct unpack_opts o = { .map = map_some, .map_arg = &n };
	char path[64], *dest, *cmd;
	int fd = fuzz_memfile(data, size, path);

	if (fd < 0)
		return 0;
	dest = xasprintf("%s/out", fuzz_tmpdir());
	cmd = xasprintf("rm -rf '%s' && mkdir '%s'", dest, dest);
	if (system(cmd) != 0)
		abort();
	(void)unpack_archive(path, dest, &o, NULL, &err);
	free(cmd);
	free(dest);
	close(fd);
	return 0;
}
