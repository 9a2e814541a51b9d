/* The libraries in this binary and their versions, for
 * `cuda-xcc --version --verbose`. */
#ifndef XCC_LIBINFO_H
#define XCC_LIBINFO_H

#include "base/strvec.h"

/* One "NAME VERSION" line per library: the version linked at run time
 * where the library can tell it, else its headers' (said so). */
void libinfo_versions(struct strvec *out);

/* The Debian source packages a static build (scripts/build-static.sh)
 * embeds, one "PACKAGE VERSION" each; none in a normal build. */
void libinfo_embedded_sources(struct strvec *out);

#endif
