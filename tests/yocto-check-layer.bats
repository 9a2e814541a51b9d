#!/usr/bin/env bats
# poky's own yocto-check-layer on the layer (in make check, and alone with
# make check-yocto-layer; about 4.5 minutes, as bitbake parses and runs world
# signatures three times). The real
# script from the poky scarthgap snapshot (scripts/setup.sh unpacks it into
# $XCC_THIRDPARTY), in a build directory of its own whose bblayers.conf has
# only oe-core and meta-poky: yocto-check-layer adds meta-oe (the layer's
# LAYERDEPENDS, given with --dependency and not tested itself:
# --no-auto-dependency) and then the layer. Two settings keep it to minutes on
# a CI machine, as in tests/yocto.bats:
# - BBMASK: of oe-core and meta-oe only the directories of the layer's task
#   graph are parsed;
# - EXCLUDE_FROM_WORLD for every recipe outside the layer but zlib: world is
#   the layer's recipes and what they need, which the mask keeps (a world of
#   the masked trees' own recipes would lack their masked dependencies), and
#   zlib's graph before the layer is added (an empty world writes no
#   signatures to compare).
# The MACHINE is poky's qemuarm64 as a new user has it (no
# CUDA_ARCHITECTURES): the layer's CUDA recipes are skipped, and
# cuda-xcc-native with its nativesdk and target variants are in world.
# bitbake runs as uid 1000 of a user namespace (it refuses root).
load lib/common

thirdparty() { echo "${XCC_THIRDPARTY:-/var/cache/cuda-xcc/thirdparty}"; }

@test "yocto-check-layer: poky's checker passes the layer" {
	local poky meta_oe top layer
	poky=$(ls -d "$(thirdparty)"/poky-scarthgap-*/poky 2>/dev/null | head -n1)
	meta_oe=$(ls -d "$(thirdparty)"/meta-openembedded-scarthgap-*/meta-openembedded/meta-oe 2>/dev/null | head -n1)
	[ -n "$poky" ] || skip "poky is not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	[ -n "$meta_oe" ] || skip "meta-oe is not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	need unshare
	need chrpath "bitbake's sanity check"
	layer=$XCC_SRCDIR/wrappers/yocto
	top=${XCC_YOCTO_CHECK_BUILD:-/var/cache/cuda-xcc/yocto-builds/check-layer-$(echo "$XCC_SRCDIR" | sha256sum | cut -c1-12)}
	mkdir -p "$top/conf"
	rm -f "$top/conf/bblayers.conf.backup"
	cat > "$top/conf/bblayers.conf" <<-EOS
	POKY_BBLAYERS_CONF_VERSION = "2"
	BBPATH = "\${TOPDIR}"
	BBFILES ?= ""
	BBLAYERS = "$poky/meta $poky/meta-poky"
	EOS
	cat > "$top/conf/local.conf" <<-EOS
	MACHINE = "qemuarm64"
	DISTRO = "poky"
	CONF_VERSION = "2"
	BB_NO_NETWORK = "1"
	BBMASK = "meta-oe/recipes-(?!devtools/cjson/)"
	BBMASK += "/meta/recipes-(?!connectivity/openssl/|core/(expat|gettext|glibc|ncurses|readline|util-linux|zlib)/|devtools/(autoconf|autoconf-archive|automake|binutils|bison|cmake|dwarfsrcfiles|e2fsprogs|elfutils|file|flex|gcc|gnu-config|libedit|libtool|lua|m4|make|ninja|patch|perl|perl-cross|pkgconfig|pseudo|python|quilt|rpm|rsync|unifdef)/|extended/(bzip2|gperf|libarchive|libidn|libnsl|libtirpc|lzip|texinfo-dummy-native|xz|zstd)/|gnome/gtk-doc/|kernel/linux-libc-headers/|support/(attr|curl|gdbm|gmp|gnutls|libcap|libcap-ng|libffi|libgcrypt|libgpg-error|libmicrohttpd|libmpc|libpcre|libunistring|mpfr|nettle|popt|re2c|sqlite)/)"
	BB_DANGLINGAPPENDS_WARNONLY = "1"
	ASSUME_PROVIDED += "dejagnu-native expect-native qemu-native"
	# world: no ptest-runner (masked) for the recipes ptest would add it to
	DISTRO_FEATURES:remove = "ptest"
	EXCLUDE_FROM_WORLD = "\${@'' if d.getVar('FILE', False).startswith('$layer/') or d.getVar('PN') == 'zlib' else '1'}"
	EOS
	SECONDS=0
	run unshare --user --map-user=1000 --map-group=1000 \
		env LC_ALL=en_US.UTF-8 LANG=en_US.UTF-8 BUILDDIR="$top" \
		PATH="$poky/scripts:$poky/bitbake/bin:$PATH" \
		bash -c 'cd "$1" && yocto-check-layer --no-auto-dependency --dependency "$2" -- "$3"' \
		ycl "$top" "$meta_oe" "$layer"
	# each check's result and the time, in the TAP log
	grep -E '^INFO: test_| \.\.\. |^INFO: Ran ' <<<"$output" | sed 's/^/# /' >&3 || true
	echo "# yocto-check-layer took $SECONDS s" >&3
	assert_status 0
	assert_output_contains "yocto ... PASS"
}
