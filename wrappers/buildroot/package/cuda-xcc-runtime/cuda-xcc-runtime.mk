################################################################################
#
# cuda-xcc-runtime
#
################################################################################

# Every variable here is CUDA_XCC_RUNTIME_*: CUDA_XCC_* belongs to the
# cuda-xcc package (host-cuda-xcc), whose infrastructure reads it.
#
# host-cuda-xcc makes the sysroot from NVIDIA's archives (or .debs), after
# the toolchain has filled the staging tree (a target package depends on
# the toolchain), so the sysroot records a root with the target's glibc and
# libstdc++. The package's own source is its recipe directory (Buildroot
# records a package in legal-info only when it has a source); the CUDA
# files come from the sources named in BR2_PACKAGE_CUDA_XCC_RUNTIME_FROM.
# Its version is the CUDA release's.
CUDA_XCC_RUNTIME_VERSION = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION))
CUDA_XCC_RUNTIME_SITE = $(BR2_EXTERNAL_CUDA_XCC_PATH)/package/cuda-xcc-runtime
CUDA_XCC_RUNTIME_SITE_METHOD = local
CUDA_XCC_RUNTIME_DEPENDENCIES = host-cuda-xcc

# NVIDIA's products beyond CUDA, one option each: their license (sysroots/components.json's
# licenses, which tests/buildroot.bats compares with these) and their files in the sysroot's
# lib/ (its libraries) that go to the target's /usr/lib.
CUDA_XCC_RUNTIME_PRODUCTS = \
	$(if $(BR2_PACKAGE_CUDA_XCC_RUNTIME_TENSORRT),tensorrt) \
	$(if $(BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDNN),cudnn) \
	$(if $(BR2_PACKAGE_CUDA_XCC_RUNTIME_VPI),vpi) \
	$(if $(BR2_PACKAGE_CUDA_XCC_RUNTIME_L4T_MULTIMEDIA),l4t_multimedia)
CUDA_XCC_RUNTIME_LICENSE_tensorrt = Proprietary & Apache-2.0
CUDA_XCC_RUNTIME_LICENSE_cudnn = Proprietary
CUDA_XCC_RUNTIME_LICENSE_vpi = Proprietary
CUDA_XCC_RUNTIME_LICENSE_l4t_multimedia = Proprietary & MIT & BSD-3-Clause
CUDA_XCC_RUNTIME_FILES_tensorrt = libnvinfer*.so.* libnvonnxparser*.so.* libnvparsers*.so.*
CUDA_XCC_RUNTIME_FILES_cudnn = libcudnn*.so.*
# VPI's priv/ beside libnvvpi, as in its own directory
CUDA_XCC_RUNTIME_FILES_vpi = libnvvpi.so.* priv
# L4T's libraries, in lib/nvidia on the board and in the sysroot, in /usr/lib here:
# Buildroot's target has no ld.so.conf
CUDA_XCC_RUNTIME_FILES_l4t_multimedia = nvidia/*

# (foreach joins its words with a space, before each comma)
CUDA_XCC_RUNTIME_LICENSE = $(subst $(space)$(comma),$(comma),NVIDIA CUDA Toolkit EULA$(foreach \
	c,$(strip $(CUDA_XCC_RUNTIME_PRODUCTS)),$(comma) $(CUDA_XCC_RUNTIME_LICENSE_$(c)) ($(c))))
# The EULA lets an application ship the runtime, not a source mirror.
CUDA_XCC_RUNTIME_REDISTRIBUTE = NO

CUDA_XCC_RUNTIME_FROM = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_FROM))
CUDA_XCC_RUNTIME_DEBS = $(filter %.deb,$(CUDA_XCC_RUNTIME_FROM))
# A .deb's package name, from its file name (<name>_<version>_<arch>.deb).
CUDA_XCC_RUNTIME_DEB_NAME = $(firstword $(subst _, ,$(notdir $(1))))

# License texts. NVIDIA's archives carry them, and the sysroot keeps them in
# licenses/ (copied when the package is built: make legal-info after make).
# Debian ships NVIDIA's terms in each .deb's usr/share/doc/<name>/copyright,
# which the sysroot keeps too once it is made: they are taken from the .debs
# themselves when the recipe is copied in, so legal-info needs no build.
ifeq ($(CUDA_XCC_RUNTIME_DEBS),)
CUDA_XCC_RUNTIME_LICENSE_FILES = licenses/cuda_cudart/LICENSE
else
CUDA_XCC_RUNTIME_LICENSE_FILES = \
	$(foreach d,$(CUDA_XCC_RUNTIME_DEBS),licenses/$(call CUDA_XCC_RUNTIME_DEB_NAME,$(d))/copyright)

# The name as CUDA_XCC_RUNTIME_DEB_NAME takes it; data.tar.xz (or .zst, .gz)
# inside the ar archive; tar stops at the file.
define CUDA_XCC_RUNTIME_DEB_COPYRIGHTS
	for deb in $(CUDA_XCC_RUNTIME_DEBS); do \
		name=$${deb##*/}; name=$${name%%_*}; \
		data=$$($(HOSTAR) t $$deb | grep -m1 '^data\.tar') || { \
			echo "cuda-xcc-runtime: $$deb is not a .deb (no data.tar member)" >&2; \
			exit 1; }; \
		case "$$data" in \
		*.xz) unpack="$(XZCAT)" ;; \
		*.zst) unpack="$(ZSTDCAT)" ;; \
		*.gz) unpack="gzip -dc" ;; \
		*) unpack=cat ;; \
		esac; \
		mkdir -p $(@D)/licenses/$$name && \
		$(HOSTAR) p $$deb $$data | $$unpack | \
			tar -xO --occurrence=1 ./usr/share/doc/$$name/copyright \
			> $(@D)/licenses/$$name/copyright.tmp && \
		test -s $(@D)/licenses/$$name/copyright.tmp || { \
			echo "cuda-xcc-runtime: $$deb has no usr/share/doc/$$name/copyright" \
				"(a .deb is named <package>_<version>_<arch>.deb)" >&2; \
			exit 1; }; \
		mv $(@D)/licenses/$$name/copyright.tmp $(@D)/licenses/$$name/copyright || exit 1; \
	done
endef
CUDA_XCC_RUNTIME_POST_RSYNC_HOOKS += CUDA_XCC_RUNTIME_DEB_COPYRIGHTS
endif

CUDA_XCC_RUNTIME_XCC_TARGET = $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET))
# The GPUs chosen in menuconfig (BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_87=y is
# sm_87), comma-separated as cuda-xcc takes them; Config.in.choices names
# them all.
CUDA_XCC_RUNTIME_GPU_SYMS := $(shell sed -n 's/^config \(BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_.*\)/\1/p' \
	$(BR2_EXTERNAL_CUDA_XCC_PATH)/package/cuda-xcc-runtime/Config.in.choices)
CUDA_XCC_RUNTIME_GPU_ARCH = $(subst $(space),$(comma),$(strip $(foreach v,$(CUDA_XCC_RUNTIME_GPU_SYMS), \
	$(if $(filter y,$($(v))),$(subst -,_,$(call LOWERCASE,$(patsubst BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_%,%,$(v))))))))
CUDA_XCC_RUNTIME_COMPONENTS = $(strip $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS)) \
	$(CUDA_XCC_RUNTIME_PRODUCTS))
CUDA_XCC_RUNTIME_SYSROOT = $(HOST_DIR)/share/cuda-xcc/sysroot
# CMAKE_CUDA_ARCHITECTURES, as cuda-xcc validated them for the sysroot.
CUDA_XCC_RUNTIME_CMAKE_ARCHS_FILE = $(HOST_DIR)/share/cuda-xcc/cmake-architectures
# The sysroot's one targets/ directory (aarch64-linux, sbsa-linux: which one
# depends on the GPUs), named once the sysroot is made, as cuda-xcc reads
# it: CMake before 3.27 does not find it on sbsa by itself.
CUDA_XCC_RUNTIME_TARGET_DIR_FILE = $(HOST_DIR)/share/cuda-xcc/target-dir
CUDA_XCC_RUNTIME_TARGET_DIR = $(CUDA_XCC_RUNTIME_SYSROOT)/targets/$$(cat $(CUDA_XCC_RUNTIME_TARGET_DIR_FILE))

# Kconfig offers only the GPUs cuda-xcc accepts for the CUDA version and
# target, but cannot require one.
ifeq ($(BR2_PACKAGE_CUDA_XCC_RUNTIME)$(BR_BUILDING),yy)
# A gcc newer than every CUDA release offered takes leaves no version (and
# so no GPU) to choose: say which gcc to pick instead.
ifeq ($(CUDA_XCC_RUNTIME_VERSION),)
$(error cuda-xcc-runtime: no CUDA release cuda-xcc offers takes this toolchain's gcc (the newest any takes is gcc $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_NEWEST_GCC))): in menuconfig, Toolchain, GCC compiler Version, pick gcc $(call qstrip,$(BR2_PACKAGE_CUDA_XCC_RUNTIME_NEWEST_GCC)).x or older, or an external toolchain with such a gcc)
endif
ifeq ($(CUDA_XCC_RUNTIME_GPU_ARCH),)
$(error cuda-xcc-runtime: no GPU chosen: pick one in menuconfig, External options, cuda-xcc CUDA sysroot and runtime, GPUs)
endif
endif

# The choice is validated before anything is unpacked, with cuda-xcc's
# own rules (and its message when they say no).
define CUDA_XCC_RUNTIME_CONFIGURE_CMDS
	$(HOST_DIR)/bin/cuda-xcc flags --target $(CUDA_XCC_RUNTIME_XCC_TARGET) \
		--cuda $(CUDA_XCC_RUNTIME_VERSION) -arch $(CUDA_XCC_RUNTIME_GPU_ARCH) \
		--format cmake > $(@D)/cmake-architectures
endef

define CUDA_XCC_RUNTIME_BUILD_CMDS
	$(HOST_DIR)/bin/cuda-xcc sysroot create --target $(CUDA_XCC_RUNTIME_XCC_TARGET) \
		--cuda $(CUDA_XCC_RUNTIME_VERSION) -arch $(CUDA_XCC_RUNTIME_GPU_ARCH) \
		$(foreach f,$(CUDA_XCC_RUNTIME_FROM),--from $(f)) \
		$(if $(CUDA_XCC_RUNTIME_COMPONENTS),--components $(subst $(space),$(comma),$(CUDA_XCC_RUNTIME_COMPONENTS))) \
		--target-fs $(STAGING_DIR) --dest $(CUDA_XCC_RUNTIME_SYSROOT) --progress never
	mkdir -p $(@D)/licenses
	if [ -d $(CUDA_XCC_RUNTIME_SYSROOT)/licenses ]; then \
		cp -R $(CUDA_XCC_RUNTIME_SYSROOT)/licenses/. $(@D)/licenses/; \
	fi
	install -D -m 0644 $(@D)/cmake-architectures $(CUDA_XCC_RUNTIME_CMAKE_ARCHS_FILE)
	$(HOST_DIR)/bin/cuda-xcc toolchain query --sysroot $(CUDA_XCC_RUNTIME_SYSROOT) \
		--get target_dir --output $(CUDA_XCC_RUNTIME_TARGET_DIR_FILE)
endef

# Where NVIDIA's cuda-compat package puts its libraries on a board
# (/usr/local/cuda-X.Y/compat), for the cuda_compat component.
CUDA_XCC_RUNTIME_VERSION_WORDS = $(subst ., ,$(CUDA_XCC_RUNTIME_VERSION))
CUDA_XCC_RUNTIME_COMPAT_DIR = /usr/local/cuda-$(word 1,$(CUDA_XCC_RUNTIME_VERSION_WORDS)).$(word 2,$(CUDA_XCC_RUNTIME_VERSION_WORDS))/compat

# Programs linked with -cudart shared (CMake's CUDA::cudart) need it on
# the device; the driver itself comes with the board's BSP. With the
# cuda_compat component (a JetPack that ships an older CUDA than this one),
# NVIDIA's compat libraries go where the board's own package would put them.
define CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS
	mkdir -p $(TARGET_DIR)/usr/lib
	cp -a $(CUDA_XCC_RUNTIME_TARGET_DIR)/lib/libcudart.so* $(TARGET_DIR)/usr/lib/
	$(foreach c,$(filter lib%,$(CUDA_XCC_RUNTIME_COMPONENTS)), \
		cp -a $(CUDA_XCC_RUNTIME_TARGET_DIR)/lib/$(c)*.so.* $(TARGET_DIR)/usr/lib/
	)
	$(foreach c,$(strip $(CUDA_XCC_RUNTIME_PRODUCTS)), \
		cd $(CUDA_XCC_RUNTIME_TARGET_DIR)/lib && for f in $(CUDA_XCC_RUNTIME_FILES_$(c)); do \
			if [ -e "$$f" ]; then cp -a "$$f" $(TARGET_DIR)/usr/lib/ || exit 1; fi; \
		done
	)
	$(if $(filter cuda_compat,$(CUDA_XCC_RUNTIME_COMPONENTS)), \
		mkdir -p $(TARGET_DIR)$(CUDA_XCC_RUNTIME_COMPAT_DIR)
		cp -a $(CUDA_XCC_RUNTIME_TARGET_DIR)/compat/. $(TARGET_DIR)$(CUDA_XCC_RUNTIME_COMPAT_DIR)/
	)
	$(if $(filter cuda_compat_orin,$(CUDA_XCC_RUNTIME_COMPONENTS)), \
		mkdir -p $(TARGET_DIR)$(CUDA_XCC_RUNTIME_COMPAT_DIR)_orin
		cp -a $(CUDA_XCC_RUNTIME_TARGET_DIR)/compat_orin/. $(TARGET_DIR)$(CUDA_XCC_RUNTIME_COMPAT_DIR)_orin/
	)
endef

# For CUDA packages (which depend on cuda-xcc-runtime): CMake options and
# the driver to call for .cu files, both with the target's compiler and
# ar (Buildroot has no <triple>-ar of Debian's name). nvcc's options are one
# word each (-ccbin=PATH), as ccache and sccache parse them.
CUDA_XCC_RUNTIME_CMAKE_OPTS = \
	-DCMAKE_CUDA_COMPILER=$(CUDA_XCC_RUNTIME_SYSROOT)/bin/nvcc \
	-DCMAKE_CUDA_HOST_COMPILER=$(TARGET_CXX) \
	-DCUDAToolkit_ROOT=$(CUDA_XCC_RUNTIME_SYSROOT) \
	-DCUDAToolkit_TARGET_DIR=$(CUDA_XCC_RUNTIME_TARGET_DIR) \
	-DCMAKE_CUDA_ARCHITECTURES="$$(cat $(CUDA_XCC_RUNTIME_CMAKE_ARCHS_FILE))"
CUDA_XCC_RUNTIME_NVCC = $(HOST_DIR)/bin/cuda-xcc --sysroot $(CUDA_XCC_RUNTIME_SYSROOT) \
	-arch $(CUDA_XCC_RUNTIME_GPU_ARCH) -ccbin=$(TARGET_CXX) -arbin=$(TARGET_AR)

$(eval $(generic-package))

# The .debs' copyright files are unpacked with xzcat or zstdcat, Buildroot's
# own when the build machine has none that suits, and the build machine's
# tar (Buildroot's host-tar is for making reproducible archives: extracting
# one file needs no particular version).
ifneq ($(CUDA_XCC_RUNTIME_DEBS),)
$(CUDA_XCC_RUNTIME_TARGET_RSYNC): | $(BR2_XZCAT_HOST_DEPENDENCY) $(BR2_ZSTD_HOST_DEPENDENCY)
endif
