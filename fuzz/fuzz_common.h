/* Shared by the fuzz targets whose parser reads a file by name: the input
 * goes to a memory file (or, where the name matters, a file in a private
 * temporary directory) and the parser is given its path. */
#ifndef XCC_FUZZ_COMMON_H
#define XCC_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* data in a memory file; its /proc path in path. Returns the fd or -1. */
static inline int fuzz_memfile(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/* A private directory, made once per process. */
static inline const char *fuzz_tmpdir(void)
{
	static char dir[64];

	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/xcc-fuzz.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

/* data in DIR/name; returns the path (static buffer) or NULL. */
static inline const char *fuzz_named_file(const uint8_t *data, size_t size, const char *name)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", fuzz_tmpdir(), name);
	f = fopen(path, "wb");
	if (!f)
		return NULL;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	return path;
}

#endif
