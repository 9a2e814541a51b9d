#!/usr/bin/env bats
# The Buildroot BR2_EXTERNAL tree (wrappers/buildroot) in a real Buildroot tree:
# Kconfig, the variables its packages set, and show-info. scripts/setup.sh unpacks
# Buildroot into /var/cache/cuda-xcc/thirdparty when ../shared/thirdparty has it.
# No package is built here (that needs every host dependency's sources offline):
# the runtime's license files are read from .debs made at test time.
load lib/common

BR=${XCC_BUILDROOT_TREE:-/var/cache/cuda-xcc/thirdparty/buildroot}

# A .deb named as Debian names them, with the given compression and, unless the
# text is empty, a copyright file.
make_deb() {
	local name=$1 comp=$2 text=$3 root=$BATS_FILE_TMPDIR/root-$1
	rm -rf "$root"
	mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$name" "$DEBS"
	printf 'Package: %s\nVersion: 12.9.79-1\nArchitecture: arm64\nMaintainer: t <t@example.org>\nDescription: t\n' \
		"$name" >"$root/DEBIAN/control"
	[ -z "$text" ] || printf '%s\n' "$text" >"$root/usr/share/doc/$name/copyright"
	dpkg-deb --root-owner-group -Z"$comp" -b "$root" "$DEBS/${name}_12.9.79-1_arm64.deb" >/dev/null
}

setup_file() {
	[ -f "$BR/Makefile" ] || return 0
	export BR_OUT=$BATS_FILE_TMPDIR/out DEBS=$BATS_FILE_TMPDIR/debs
	make -C "$BR" O="$BR_OUT" BR2_EXTERNAL="$XCC_SRCDIR/wrappers/buildroot" \
		qemu_aarch64_virt_defconfig >/dev/null
	printf '%s\n' BR2_TOOLCHAIN_BUILDROOT_CXX=y BR2_PACKAGE_CUDA_XCC_RUNTIME=y \
		BR2_GCC_VERSION_14_X=y '# BR2_GCC_VERSION_15_X is not set' \
		BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_9=y >> "$BR_OUT/.config"
	# the runtime's sources: .debs that carry NVIDIA's terms as Debian's do (xz
	# and zstd), and one that lacks them
	if command -v dpkg-deb >/dev/null; then
		make_deb libcudart12 xz "Files: * License: NVIDIA CUDA Toolkit End User License Agreement (xz)"
		make_deb cuda-nvcc-12-9 zstd "Files: * License: NVIDIA CUDA Toolkit End User License Agreement (zstd)"
		make_deb cuda-cupti-12-9 xz ""
	fi
	printf 'BR2_PACKAGE_CUDA_XCC_RUNTIME_FROM="%s"\n' "$DEBS/libcudart12_12.9.79-1_arm64.deb \
$DEBS/cuda-nvcc-12-9_12.9.79-1_arm64.deb $DEBS/cuda-cupti-12-9_12.9.79-1_arm64.deb" >> "$BR_OUT/.config"
	make -C "$BR_OUT" olddefconfig >/dev/null
}

need_buildroot() {
	[ -f "$BR/Makefile" ] || skip "no Buildroot tree in $BR (scripts/setup.sh unpacks ../shared/thirdparty/buildroot-*.tar.xz there)"
	need make
}

# Configure a copy of the tree's .config with extra lines; print the resulting .config.
reconfigure() {
	local out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	cp "$BR_OUT/.config" "$out/.config"
	printf '%s\n' "$@" >> "$out/.config"
	make -C "$BR" O="$out" BR2_EXTERNAL="$XCC_SRCDIR/wrappers/buildroot" olddefconfig >/dev/null
	cat "$out/.config"
}

@test "buildroot: Kconfig offers only the CUDA versions the toolchain's gcc suits, and needs glibc and C++" {
	need_buildroot
	grep -qx 'BR2_PACKAGE_HOST_CUDA_XCC=y' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_9=y' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION="12.9"' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET="jetson"' "$BR_OUT/.config"
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_87=y' "$BR_OUT/.config"
	# Buildroot's default gcc 15 is newer than any CUDA 12 accepts: 12.9 cannot be kept
	run reconfigure BR2_GCC_VERSION_15_X=y '# BR2_GCC_VERSION_14_X is not set'
	assert_status 0
	assert_output_contains 'BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION="13.0"'
	assert_output_contains '# CUDA 12.x needs gcc 14 or older'
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_9=y"* ]]
	# a musl toolchain: the package is not available, and a comment says why
	run reconfigure BR2_TOOLCHAIN_BUILDROOT_MUSL=y '# BR2_TOOLCHAIN_BUILDROOT_GLIBC is not set'
	assert_status 0
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME=y"* ]]
	assert_output_contains "# cuda-xcc runtime needs a glibc toolchain w/ C++"
}

@test "buildroot: the packages' variables: sources, autoreconf, libarchive with xz and zstd, toolchain first" {
	need_buildroot
	run make -C "$BR_OUT" -s --no-print-directory printvars VARS="HOST_CUDA_XCC_SITE HOST_CUDA_XCC_SITE_METHOD HOST_CUDA_XCC_AUTORECONF HOST_CUDA_XCC_FINAL_DEPENDENCIES HOST_CUDA_XCC_CONF_ENV HOST_LIBARCHIVE_CONF_OPTS HOST_LIBARCHIVE_FINAL_DEPENDENCIES HOST_LIBCURL_CONF_OPTS HOST_CUDA_XCC_LIBARCHIVE_CONF_OPTS HOST_CUDA_XCC_LIBARCHIVE_FINAL_DEPENDENCIES HOST_CUDA_XCC_LIBARCHIVE_DL_DIR HOST_CUDA_XCC_LIBARCHIVE_HASH_FILES CUDA_XCC_RUNTIME_FINAL_DEPENDENCIES CUDA_XCC_RUNTIME_CMAKE_OPTS CUDA_XCC_RUNTIME_NVCC CUDA_XCC_RUNTIME_LICENSE_FILES"
	assert_status 0
	# built from this checkout, which has no ./configure
	assert_output_contains "HOST_CUDA_XCC_SITE=$(realpath "$XCC_SRCDIR")"$'\n'
	assert_output_contains "HOST_CUDA_XCC_SITE_METHOD=local"
	assert_output_contains "HOST_CUDA_XCC_AUTORECONF=YES"
	[[ "$output" =~ HOST_CUDA_XCC_FINAL_DEPENDENCIES=[^$'\n']*host-xz ]]
	# cuda-xcc's own libarchive reads .xz and .zst, from host-libarchive's tarball
	# and hash file, installed apart; host-libarchive and host-libcurl are Buildroot's
	[[ "$output" =~ HOST_CUDA_XCC_FINAL_DEPENDENCIES=[^$'\n']*host-cuda-xcc-libarchive ]]
	[[ "$output" =~ HOST_CUDA_XCC_LIBARCHIVE_CONF_OPTS=[^$'\n']*--prefix=$BR_OUT/host/lib/cuda-xcc[^$'\n']*--with-lzma\ --with-zstd$'\n' ]]
	[[ "$output" =~ HOST_CUDA_XCC_LIBARCHIVE_FINAL_DEPENDENCIES=[^$'\n']*host-xz[^$'\n']*host-zstd ]]
	assert_output_contains "HOST_CUDA_XCC_LIBARCHIVE_DL_DIR=$BR/dl/libarchive"$'\n'
	assert_output_contains "HOST_CUDA_XCC_LIBARCHIVE_HASH_FILES=$BR/package/libarchive/libarchive.hash"$'\n'
	[[ "$output" =~ HOST_CUDA_XCC_CONF_ENV=PKG_CONFIG_PATH=$BR_OUT/host/lib/cuda-xcc/lib/pkgconfig\ [^$'\n']*-Wl,-rpath,$BR_OUT/host/lib/cuda-xcc/lib ]]
	[[ "$output" =~ HOST_LIBARCHIVE_CONF_OPTS=[^$'\n']*--without-lzma\ --without-zstd$'\n' ]]
	[[ "$output" != *"--without-libidn2"* ]]
	# the sysroot is made by a target package: after the toolchain filled the staging dir
	[[ "$output" =~ CUDA_XCC_RUNTIME_FINAL_DEPENDENCIES=[^$'\n']*host-cuda-xcc[^$'\n']*toolchain ]]
	# CMake gets the architectures cuda-xcc validated, the compiler and ar are Buildroot's
	assert_output_contains '-DCMAKE_CUDA_ARCHITECTURES="$(cat '"$BR_OUT"'/host/share/cuda-xcc/cmake-architectures)"'
	assert_output_contains "-DCMAKE_CUDA_HOST_COMPILER=$BR_OUT/host/bin/aarch64-buildroot-linux-gnu-g++"
	assert_output_contains "-ccbin=$BR_OUT/host/bin/aarch64-buildroot-linux-gnu-g++ -arbin=$BR_OUT/host/bin/aarch64-buildroot-linux-gnu-gcc-ar"
	assert_output_contains "-arch sm_87"
	# with .debs as sources, the license files are their copyright files
	assert_output_contains "CUDA_XCC_RUNTIME_LICENSE_FILES=licenses/libcudart12/copyright licenses/cuda-nvcc-12-9/copyright licenses/cuda-cupti-12-9/copyright"
}

@test "buildroot: show-info names the licenses and the dependencies" {
	need_buildroot
	need python3
	make -C "$BR_OUT" -s --no-print-directory show-info > "$BATS_TEST_TMPDIR/info.json"
	run python3 - "$BATS_TEST_TMPDIR/info.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for k in ("host-cuda-xcc", "cuda-xcc-runtime", "host-cuda-xcc-libarchive"):
	    v = d[k]
	    print(k, "|", v["licenses"], "|", " ".join(v["dependencies"]), "|", v["redistributable"])
	PY
	assert_status 0
	assert_output_contains "cuda-xcc-runtime | NVIDIA CUDA Toolkit EULA | host-cuda-xcc"
	[[ "$output" =~ cuda-xcc-runtime\ \|[^$'\n']*toolchain ]]
	[[ "$output" =~ host-cuda-xcc-libarchive\ \|[^$'\n']*host-xz[^$'\n']*host-zstd ]]
	[[ "$output" =~ host-cuda-xcc\ \|[^$'\n']*host-autoconf ]]
}

@test "buildroot: the runtime's license files are the copyright files of its .debs, read without a build" {
	need_buildroot
	need dpkg-deb
	# legal-info copies them from the package's directory once its source is
	# in place (a full build checks that: on Debian 12 it needs host-tar first);
	# the source step unpacks them from the .debs, in order, and builds nothing
	run make -C "$BR_OUT" -s --no-print-directory cuda-xcc-runtime-rsync
	[ ! -e "$BR_OUT/host/bin/cuda-xcc" ]
	grep -q "End User License Agreement (xz)" "$BR_OUT/build/cuda-xcc-runtime-12.9/licenses/libcudart12/copyright"
	grep -q "End User License Agreement (zstd)" "$BR_OUT/build/cuda-xcc-runtime-12.9/licenses/cuda-nvcc-12-9/copyright"
	# the third .deb has none: the message names the .deb and the file it lacks
	assert_status 2
	assert_output_contains "cuda-xcc-runtime: $DEBS/cuda-cupti-12-9_12.9.79-1_arm64.deb has no usr/share/doc/cuda-cupti-12-9/copyright"
}

@test "buildroot: the Kconfig choices of CUDA, target and GPUs are those of cuda-xcc's data" {
	need python3
	python3 "$XCC_SRCDIR/scripts/buildroot-kconfig.py" "$CUDA_XCC" "$XCC_SRCDIR/sysroots/gpus.json" \
		> "$BATS_TEST_TMPDIR/choices"
	diff -u "$XCC_SRCDIR/wrappers/buildroot/package/cuda-xcc-runtime/Config.in.choices" "$BATS_TEST_TMPDIR/choices"
}

# defaults_pass LINES...: configure with LINES, then cuda-xcc's own checks
# on the CUDA version, target and GPUs Kconfig chose.
defaults_pass() {
	local config cuda target arch
	config=$(reconfigure "$@" 2>/dev/null)
	cuda=$(sed -n 's/^BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION="\(.*\)"$/\1/p' <<<"$config")
	target=$(sed -n 's/^BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET="\(.*\)"$/\1/p' <<<"$config")
	arch=$(sed -n 's/^BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_\(.*\)=y$/sm_\1/p' <<<"$config" | tr 'A-Z\n' 'a-z,')
	echo "$target $cuda ${arch%,}"
	# (its notes, such as JetPack 6's cuda-compat for 12.9, are not the question)
	xcc flags --target "$target" --cuda "$cuda" -arch "${arch%,}" >/dev/null 2>&1
}

@test "buildroot: the defaults are a combination cuda-xcc accepts, with each gcc, and a GPU list of cuda-xcc's" {
	need_buildroot
	# Buildroot's default gcc (15): CUDA 13.0, where Jetson means Thor
	run defaults_pass BR2_GCC_VERSION_15_X=y '# BR2_GCC_VERSION_14_X is not set'
	assert_status 0
	assert_output_equals "jetson 13.0 sm_110"
	run defaults_pass BR2_GCC_VERSION_14_X=y
	assert_status 0
	assert_output_equals "jetson 12.9 sm_87"
	run defaults_pass BR2_GCC_VERSION_15_X=y '# BR2_GCC_VERSION_14_X is not set' BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET_SBSA=y
	assert_status 0
	assert_output_equals "sbsa 13.0 sm_90"
	# Debian's CUDA 12.4 can be chosen; Orin is not offered with 13.0, nor Hopper on Jetson
	run defaults_pass BR2_TOOLCHAIN_EXTERNAL=y '# BR2_TOOLCHAIN_BUILDROOT is not set' BR2_TOOLCHAIN_EXTERNAL_CUSTOM=y \
		BR2_TOOLCHAIN_EXTERNAL_GCC_13=y BR2_TOOLCHAIN_EXTERNAL_CUSTOM_GLIBC=y BR2_TOOLCHAIN_EXTERNAL_CXX=y \
		BR2_PACKAGE_CUDA_XCC_RUNTIME=y BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_12_4=y
	assert_status 0
	assert_output_equals "jetson 12.4 sm_87"
	run reconfigure BR2_GCC_VERSION_15_X=y '# BR2_GCC_VERSION_14_X is not set' BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_87=y BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_90=y
	assert_status 0
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_87=y"* ]]
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_90=y"* ]]
}

@test "buildroot: with gcc 16, newer than every CUDA offered takes, menuconfig and make say which gcc to pick" {
	need_buildroot
	out=$BATS_TEST_TMPDIR/out
	run reconfigure BR2_GCC_VERSION_16_X=y '# BR2_GCC_VERSION_14_X is not set' '# BR2_GCC_VERSION_15_X is not set'
	assert_status 0
	assert_output_contains "BR2_GCC_VERSION_16_X=y"
	assert_output_contains '# No CUDA release takes this gcc: pick gcc 15.x or older in Toolchain, GCC compiler Version'
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_VERSION=\"1"* ]]
	run make -C "$out" -s --no-print-directory -n cuda-xcc-runtime-configure
	assert_status 2
	assert_output_contains "cuda-xcc-runtime: no CUDA release cuda-xcc offers takes this toolchain's gcc (the newest any takes is gcc 15): in menuconfig, Toolchain, GCC compiler Version, pick gcc 15.x or older"
	[[ "$output" != *"no GPU chosen"* ]]
}

@test "buildroot: no GPU chosen stops make before anything builds; components and the sbsa target directory reach the commands" {
	need_buildroot
	out=$BATS_TEST_TMPDIR/out
	reconfigure '# BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_87 is not set' 'BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS="libcublas libcufft"' >/dev/null
	# (-n: with the check missing, nothing would be built either)
	run make -C "$out" -s --no-print-directory -n cuda-xcc-runtime-configure
	assert_status 2
	assert_output_contains "cuda-xcc-runtime: no GPU chosen: pick one in menuconfig"
	rm -rf "$out"
	reconfigure BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET_SBSA=y BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_90=y 'BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS="libcublas libcufft"' >/dev/null
	run make -C "$out" -s --no-print-directory printvars VARS="CUDA_XCC_RUNTIME_GPU_ARCH CUDA_XCC_RUNTIME_BUILD_CMDS CUDA_XCC_RUNTIME_CMAKE_OPTS"
	assert_status 0
	grep -qx 'CUDA_XCC_RUNTIME_GPU_ARCH=sm_90' <<<"$output"
	assert_output_contains "--components libcublas,libcufft"
	assert_output_contains '-DCUDAToolkit_TARGET_DIR='"$out"'/host/share/cuda-xcc/sysroot/targets/$(cat '"$out"'/host/share/cuda-xcc/target-dir)'
}

@test "buildroot: with the cuda_compat component the runtime installs NVIDIA's compat libraries where the board's cuda-compat package would" {
	need_buildroot
	out=$BATS_TEST_TMPDIR/out
	reconfigure 'BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS="libcublas cuda_compat"' >/dev/null
	run make -C "$out" -s --no-print-directory printvars VARS="CUDA_XCC_RUNTIME_COMPAT_DIR CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS"
	assert_status 0
	grep -qx 'CUDA_XCC_RUNTIME_COMPAT_DIR=/usr/local/cuda-12.9/compat' <<<"$output"
	assert_output_contains "/compat/. $out/target/usr/local/cuda-12.9/compat/"
	[[ "$output" != *"compat_orin"* ]]
	# Orin's own (JetPack 6.2 with CUDA 13.2) where cuda-compat-orin-X-Y puts it
	rm -rf "$out"
	reconfigure 'BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS="cuda_compat_orin"' >/dev/null
	run make -C "$out" -s --no-print-directory printvars VARS="CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS"
	assert_status 0
	assert_output_contains "/compat_orin/. $out/target/usr/local/cuda-12.9/compat_orin/"
	# Without it nothing goes there.
	rm -rf "$out"
	reconfigure 'BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS="libcublas"' >/dev/null
	run make -C "$out" -s --no-print-directory printvars VARS="CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS"
	assert_status 0
	[[ "$output" != *"/usr/local/cuda-"* ]]
}

@test "buildroot: the TensorRT, cuDNN, VPI and L4T multimedia options reach the sysroot, the target and the licenses" {
	local t
	need_buildroot
	need python3
	out=$BATS_TEST_TMPDIR/out
	reconfigure BR2_PACKAGE_CUDA_XCC_RUNTIME_TENSORRT=y BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDNN=y \
		BR2_PACKAGE_CUDA_XCC_RUNTIME_VPI=y BR2_PACKAGE_CUDA_XCC_RUNTIME_L4T_MULTIMEDIA=y \
		'BR2_PACKAGE_CUDA_XCC_RUNTIME_COMPONENTS="libcublas"' >/dev/null
	run make -C "$out" -s --no-print-directory printvars \
		VARS="CUDA_XCC_RUNTIME_BUILD_CMDS CUDA_XCC_RUNTIME_LICENSE"
	assert_status 0
	assert_output_contains "--components libcublas,tensorrt,cudnn,vpi,l4t_multimedia"
	grep -qxF 'CUDA_XCC_RUNTIME_LICENSE=NVIDIA CUDA Toolkit EULA, Proprietary & Apache-2.0 (tensorrt), Proprietary (cudnn), Proprietary (vpi), Proprietary & MIT & BSD-3-Clause (l4t_multimedia)' <<<"$output"
	# each product's license is sysroots/components.json's
	run make -C "$out" -s --no-print-directory printvars \
		VARS="CUDA_XCC_RUNTIME_LICENSE_tensorrt CUDA_XCC_RUNTIME_LICENSE_cudnn CUDA_XCC_RUNTIME_LICENSE_vpi CUDA_XCC_RUNTIME_LICENSE_l4t_multimedia"
	assert_status 0
	run python3 - "$XCC_SRCDIR/sysroots/components.json" "$output" <<-'PY'
	import json, sys
	got = dict(l.split("=", 1) for l in sys.argv[2].splitlines())
	for c, e in sorted(json.load(open(sys.argv[1]))["licenses"].items()):
	    v = got["CUDA_XCC_RUNTIME_LICENSE_" + c]
	    print(c, "ok" if v == e["license"] else "differs: %r, not %r" % (v, e["license"]))
	PY
	assert_output_equals "$(printf '%s\n' "cudnn ok" "l4t_multimedia ok" "tensorrt ok" "vpi ok")"
	# The install step, run on a sysroot holding the products' files as one made with them
	# holds them (tests/aptrepo.bats makes such sysroots): their libraries reach the target.
	t=$out/host/share/cuda-xcc/sysroot/targets/aarch64-linux/lib
	mkdir -p "$t/priv" "$t/nvidia" "$out/target"
	echo aarch64-linux > "$out/host/share/cuda-xcc/target-dir"
	for f in libcudart.so.12.6.68 libcublas.so.12.6.4.1 libnvinfer.so.10.3.0 libcudnn.so.9.3.0 \
		libcudnn_graph.so.9.3.0 libnvvpi.so.3.2.4 priv/libfixture_vpi_priv.so \
		nvidia/libnvbufsurface.so.1.0.0 libcufft.so.11.3.0.4; do
		echo "$f" > "$t/$f"
	done
	ln -s libnvinfer.so.10.3.0 "$t/libnvinfer.so.10"
	ln -s libnvinfer.so.10 "$t/libnvinfer.so"
	ln -s libnvbufsurface.so.1.0.0 "$t/nvidia/libnvbufsurface.so.1"
	run make -C "$out" -s --no-print-directory printvars VARS=CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS
	assert_status 0
	sed -e '1s/^CUDA_XCC_RUNTIME_INSTALL_TARGET_CMDS=//' <<<"$output" > "$BATS_TEST_TMPDIR/install.sh"
	run bash -e "$BATS_TEST_TMPDIR/install.sh"
	assert_status 0
	run ls "$out/target/usr/lib"
	assert_output_equals "$(printf '%s\n' libcublas.so.12.6.4.1 libcudart.so.12.6.68 libcudnn.so.9.3.0 \
		libcudnn_graph.so.9.3.0 libnvbufsurface.so.1 libnvbufsurface.so.1.0.0 libnvinfer.so.10 \
		libnvinfer.so.10.3.0 libnvvpi.so.3.2.4 priv)"
	[ "$(readlink "$out/target/usr/lib/libnvinfer.so.10")" = libnvinfer.so.10.3.0 ]
	[ -f "$out/target/usr/lib/priv/libfixture_vpi_priv.so" ]
	# VPI and L4T's libraries are Jetson's: an sbsa target is not offered them
	rm -rf "$out"
	run reconfigure BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET_SBSA=y BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_90=y \
		BR2_PACKAGE_CUDA_XCC_RUNTIME_TENSORRT=y BR2_PACKAGE_CUDA_XCC_RUNTIME_VPI=y \
		BR2_PACKAGE_CUDA_XCC_RUNTIME_L4T_MULTIMEDIA=y
	assert_status 0
	grep -qx 'BR2_PACKAGE_CUDA_XCC_RUNTIME_TENSORRT=y' <<<"$output"
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_VPI=y"* ]]
	[[ "$output" != *"BR2_PACKAGE_CUDA_XCC_RUNTIME_L4T_MULTIMEDIA=y"* ]]
}

@test "buildroot: utils/check-package finds nothing in the BR2_EXTERNAL tree" {
	need_buildroot
	# the distribution's python3 (apt-get install python3-magic python3-flake8)
	# when the first on PATH lacks them
	py=
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import magic, flake8' 2>/dev/null; then py=$p; break; fi
	done
	[ -n "$py" ] || skip "check-package needs python3-magic and python3-flake8"
	cd "$XCC_SRCDIR/wrappers/buildroot"
	run "$py" "$BR/utils/check-package" -b $(find . -type f | sort)
	assert_status 0
	grep -qx '0 warnings generated' <<<"$output"
}
