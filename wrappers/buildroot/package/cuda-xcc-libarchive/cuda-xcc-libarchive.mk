################################################################################
#
# host-cuda-xcc-libarchive
#
################################################################################

# cuda-xcc's own libarchive. Buildroot's host-libarchive is configured
# --without-lzma --without-zstd (its only other user needs zlib alone), so
# it reads neither NVIDIA's .tar.xz nor Debian's data.tar.zst; changing its
# options from this tree would change it for every other user of the tree.
# This one is built from the same tarball (Buildroot's own hash file checks
# it) and installed apart, in CUDA_XCC_LIBARCHIVE_PREFIX, where only
# host-cuda-xcc looks.
CUDA_XCC_LIBARCHIVE_VERSION = $(LIBARCHIVE_VERSION)
CUDA_XCC_LIBARCHIVE_SOURCE = $(LIBARCHIVE_SOURCE)
CUDA_XCC_LIBARCHIVE_SITE = $(LIBARCHIVE_SITE)
CUDA_XCC_LIBARCHIVE_DL_SUBDIR = libarchive
CUDA_XCC_LIBARCHIVE_LICENSE = $(LIBARCHIVE_LICENSE)
CUDA_XCC_LIBARCHIVE_LICENSE_FILES = $(LIBARCHIVE_LICENSE_FILES)
CUDA_XCC_LIBARCHIVE_PREFIX = $(HOST_DIR)/lib/cuda-xcc
HOST_CUDA_XCC_LIBARCHIVE_DEPENDENCIES = host-pkgconf host-zlib host-xz host-zstd
# The last --prefix wins over the infrastructure's $(HOST_DIR).
HOST_CUDA_XCC_LIBARCHIVE_CONF_OPTS = \
	--prefix=$(CUDA_XCC_LIBARCHIVE_PREFIX) \
	--disable-static \
	--disable-bsdtar \
	--disable-bsdcpio \
	--disable-bsdcat \
	--disable-acl \
	--disable-xattr \
	--without-bz2lib \
	--without-expat \
	--without-libiconv-prefix \
	--without-xml2 \
	--without-lz4 \
	--without-lzo2 \
	--without-mbedtls \
	--without-nettle \
	--without-openssl \
	--with-lzma \
	--with-zstd

$(eval $(host-autotools-package))

# The tarball is host-libarchive's: so is the file that checks it.
HOST_CUDA_XCC_LIBARCHIVE_HASH_FILES = $(TOPDIR)/package/libarchive/libarchive.hash
