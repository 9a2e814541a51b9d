/* Where the downloads and overlays are cached. Apart from fetch.c, so that
 * the driver-only program (cuda-xcc-nvcc), which needs the directory but
 * never downloads, is not linked with libcurl: loading libcurl's tree of
 * libraries is most of a driver call's start-up. */
#include <config.h>

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "pkg/fetch.h"

char *fetch_default_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	/* The XDG spec says relative values are to be ignored. */
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/cuda-xcc", xdg);
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw && pw->pw_dir ? pw->pw_dir : "/tmp";
	}
	return xasprintf("%s/.cache/cuda-xcc", home);
}
