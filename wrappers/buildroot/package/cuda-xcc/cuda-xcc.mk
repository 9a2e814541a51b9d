################################################################################
#
# host-cuda-xcc
#
################################################################################

CUDA_XCC_VERSION = 0.1.0
CUDA_XCC_SOURCE = cuda-xcc-$(CUDA_XCC_VERSION).tar.gz
CUDA_XCC_SITE = https://example.invalid/cuda-xcc/releases
CUDA_XCC_LICENSE = Proprietary
HOST_CUDA_XCC_DEPENDENCIES = host-pkgconf host-elfutils host-libarchive \
	host-cjson host-libcurl host-openssl

# The sysroot the target's CUDA packages build against, made once after
# host-cuda-xcc is installed and linked against the target's own staging
# tree (its glibc and libstdc++).
CUDA_XCC_SYSROOT = $(HOST_DIR)/share/cuda-xcc/sysroot

define HOST_CUDA_XCC_CREATE_SYSROOT
	$(HOST_DIR)/bin/cuda-xcc sysroot create \
		--target $(call qstrip,$(BR2_PACKAGE_HOST_CUDA_XCC_TARGET)) \
		--cuda $(call qstrip,$(BR2_PACKAGE_HOST_CUDA_XCC_CUDA_VERSION)) \
		-arch $(call qstrip,$(BR2_PACKAGE_HOST_CUDA_XCC_ARCH)) \
		$(foreach f,$(call qstrip,$(BR2_PACKAGE_HOST_CUDA_XCC_FROM)),--from $(f)) \
		--target-fs $(STAGING_DIR) --dest $(CUDA_XCC_SYSROOT) --progress never
endef
HOST_CUDA_XCC_POST_INSTALL_HOOKS += HOST_CUDA_XCC_CREATE_SYSROOT

# For CUDA packages: CMake options and the driver to call for .cu files.
CUDA_XCC_CMAKE_OPTS = \
	-DCMAKE_CUDA_COMPILER=$(CUDA_XCC_SYSROOT)/bin/nvcc \
	-DCMAKE_CUDA_HOST_COMPILER=$(TARGET_CXX) \
	-DCUDAToolkit_ROOT=$(CUDA_XCC_SYSROOT)
CUDA_XCC_NVCC = $(HOST_DIR)/bin/cuda-xcc --sysroot $(CUDA_XCC_SYSROOT) \
	-ccbin $(TARGET_CXX) -Xcompiler=--sysroot=$(STAGING_DIR)

$(eval $(host-autotools-package))
