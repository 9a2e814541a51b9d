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
# host-xz and host-zstd: NVIDIA's archives are .tar.xz, Debian's .debs
# data.tar.xz or .zst; cuda-xcc also links liblzma itself.
HOST_CUDA_XCC_DEPENDENCIES = host-pkgconf host-elfutils host-libarchive \
	host-cjson host-libcurl host-nettle host-xz host-zstd
HOST_CUDA_XCC_CONF_OPTS = --disable-warnings-as-errors

# Buildroot's host-libarchive is configured --without-lzma --without-zstd
# (its only other user needs zlib alone), so it could not read an .xz or
# .zst archive. The options are appended (the last --with/--without
# wins) and host-xz/host-zstd are made to come first, as its dependencies.
ifeq ($(BR2_PACKAGE_HOST_CUDA_XCC),y)
HOST_LIBARCHIVE_DEPENDENCIES += host-xz host-zstd
HOST_LIBARCHIVE_CONF_OPTS += --with-lzma --with-zstd
$(HOST_LIBARCHIVE_TARGET_CONFIGURE): | host-xz host-zstd
endif

# Buildroot's host-libcurl leaves libidn2, brotli and zstd to curl's
# configure, which finds them on the build machine when their -dev packages
# are there: its libcurl.pc then requires packages that host-pkgconf (which
# sees only $(HOST_DIR)) cannot find, and cuda-xcc's configure stops.
ifeq ($(BR2_PACKAGE_HOST_CUDA_XCC),y)
HOST_LIBCURL_CONF_OPTS += --without-libidn2 --without-brotli --without-zstd
endif

# A host-libarchive built before this tree was added (or another way)
# still lacks them: say so instead of failing on the first archive.
define HOST_CUDA_XCC_CHECK_LIBARCHIVE
	grep -q lzma $(HOST_DIR)/lib/pkgconfig/libarchive.pc && \
	grep -q zstd $(HOST_DIR)/lib/pkgconfig/libarchive.pc || { \
		echo "host-libarchive was built without xz or zstd support, which" \
			"cuda-xcc needs: make host-libarchive-dirclean host-cuda-xcc" >&2; \
		exit 1; }
endef
HOST_CUDA_XCC_PRE_CONFIGURE_HOOKS += HOST_CUDA_XCC_CHECK_LIBARCHIVE

$(eval $(host-autotools-package))
