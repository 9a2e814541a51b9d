################################################################################
#
# host-cuda-xcc
#
################################################################################

# cuda-xcc is built from the checkout this BR2_EXTERNAL tree is part of
# (wrappers/buildroot); HOST_CUDA_XCC_OVERRIDE_SRCDIR names another one.
# A checkout has no ./configure: autoreconf makes it.
CUDA_XCC_VERSION = 0.1.0
CUDA_XCC_SITE = $(realpath $(BR2_EXTERNAL_CUDA_XCC_PATH)/../..)
CUDA_XCC_SITE_METHOD = local
HOST_CUDA_XCC_AUTORECONF = YES
# Not a checkout's build directories and generated files (what git ignores):
# autoreconf and configure make them anew.
HOST_CUDA_XCC_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = --filter=':- .gitignore'
# cuda-xcc's sources carry no license file yet: nothing may be claimed.
CUDA_XCC_LICENSE = unknown (no license file in the cuda-xcc sources)
CUDA_XCC_REDISTRIBUTE = NO
# cuda-xcc's own libarchive, with xz and zstd (NVIDIA's archives are
# .tar.xz, Debian's .debs data.tar.xz or .zst): see cuda-xcc-libarchive.
# cuda-xcc also links liblzma itself (host-xz).
HOST_CUDA_XCC_DEPENDENCIES = host-pkgconf host-elfutils host-cuda-xcc-libarchive \
	host-cjson host-libcurl host-nettle host-xz
# Buildroot's host-libcurl leaves libidn2, brotli and zstd to curl's
# configure, which finds them on the build machine when their -dev packages
# are there: its libcurl.pc then requires packages that host-pkgconf (which
# sees only $(HOST_DIR)) cannot find. cuda-xcc needs none of them at link
# time (libcurl is a shared library), so libcurl is named directly rather
# than through libcurl.pc.
HOST_CUDA_XCC_CONF_ENV = \
	PKG_CONFIG_PATH=$(CUDA_XCC_LIBARCHIVE_PREFIX)/lib/pkgconfig \
	LDFLAGS="$(HOST_LDFLAGS) -Wl,-rpath,$(CUDA_XCC_LIBARCHIVE_PREFIX)/lib" \
	LIBCURL_CFLAGS="-I$(HOST_DIR)/include" \
	LIBCURL_LIBS="-L$(HOST_DIR)/lib -lcurl"
HOST_CUDA_XCC_CONF_OPTS = --disable-warnings-as-errors

$(eval $(host-autotools-package))
