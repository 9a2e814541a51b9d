################################################################################
#
# cuda-xcc-runtime
#
################################################################################

# No sources of its own: host-cuda-xcc makes the sysroot from NVIDIA's
# archives (or .debs), after the toolchain has filled the staging tree
# (a target package depends on the toolchain), so the sysroot records a
# root with the target's glibc and libstdc++.
CUDA_XCC_RUNTIME_DEPENDENCIES = host-cuda-xcc
CUDA_XCC_RUNTIME_LICENSE = NVIDIA CUDA Toolkit EULA
CUDA_XCC_FROM = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_FROM))
# NVIDIA's archives carry the license text, which the sysroot keeps in
# licenses/; Debian's .debs have it in usr/share/doc/*/copyright, which
# cuda-xcc leaves out: then legal-info names the license without its text.
ifeq ($(filter %.deb,$(CUDA_XCC_FROM)),)
CUDA_XCC_RUNTIME_LICENSE_FILES = licenses/cuda_cudart/LICENSE
endif
# The EULA lets an application ship the runtime, not a source mirror.
CUDA_XCC_RUNTIME_REDISTRIBUTE = NO

CUDA_XCC_TARGET = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET))
CUDA_XCC_CUDA_VERSION = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION))
CUDA_XCC_ARCH = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_ARCH))
CUDA_XCC_SYSROOT = $(HOST_DIR)/share/cuda-xcc/sysroot
# CMAKE_CUDA_ARCHITECTURES, as cuda-xcc validated them for the sysroot.
CUDA_XCC_CMAKE_ARCHS_FILE = $(HOST_DIR)/share/cuda-xcc/cmake-architectures

define CUDA_XCC_RUNTIME_BUILD_CMDS
	$(HOST_DIR)/bin/cuda-xcc flags --target $(CUDA_XCC_TARGET) \
		--cuda $(CUDA_XCC_CUDA_VERSION) -arch $(CUDA_XCC_ARCH) \
		--format cmake > $(@D)/cmake-architectures
	$(HOST_DIR)/bin/cuda-xcc sysroot create --target $(CUDA_XCC_TARGET) \
		--cuda $(CUDA_XCC_CUDA_VERSION) -arch $(CUDA_XCC_ARCH) \
		$(foreach f,$(CUDA_XCC_FROM),--from $(f)) \
		--target-fs $(STAGING_DIR) --dest $(CUDA_XCC_SYSROOT) --progress never
	mkdir -p $(@D)/licenses
	if [ -d $(CUDA_XCC_SYSROOT)/licenses ]; then \
		cp -R $(CUDA_XCC_SYSROOT)/licenses/. $(@D)/licenses/; \
	fi
	install -D -m 0644 $(@D)/cmake-architectures $(CUDA_XCC_CMAKE_ARCHS_FILE)
endef

# Programs linked with -cudart shared (CMake's CUDA::cudart) need it on
# the device; the driver itself comes with the board's BSP.
define CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS
	mkdir -p $(TARGET_DIR)/usr/lib
	cp -a $(CUDA_XCC_SYSROOT)/targets/*/lib/libcudart.so* $(TARGET_DIR)/usr/lib/
endef

# For CUDA packages (which depend on cuda-xcc-runtime): CMake options and
# the driver to call for .cu files, both with the target's compiler and
# ar (Buildroot has no <triple>-ar of Debian's name).
CUDA_XCC_CMAKE_OPTS = \
	-DCMAKE_CUDA_COMPILER=$(CUDA_XCC_SYSROOT)/bin/nvcc \
	-DCMAKE_CUDA_HOST_COMPILER=$(TARGET_CXX) \
	-DCUDAToolkit_ROOT=$(CUDA_XCC_SYSROOT) \
	-DCMAKE_CUDA_ARCHITECTURES="$$(cat $(CUDA_XCC_CMAKE_ARCHS_FILE))"
CUDA_XCC_NVCC = $(HOST_DIR)/bin/cuda-xcc --sysroot $(CUDA_XCC_SYSROOT) \
	-arch $(CUDA_XCC_ARCH) -ccbin $(TARGET_CXX) -arbin=$(TARGET_AR)

$(eval $(generic-package))
