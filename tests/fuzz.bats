#!/usr/bin/env bats
# Every fuzz/fuzz_*.c is a libFuzzer target over one of the library's
# parsers. Build each with clang, ASan, UBSan and libFuzzer against the
# library sources, replay its seeds, and run it briefly: any crash, leak,
# hang, undefined behaviour or out-of-bounds access fails the test, with the
# input that caused it left in the log. Seeds are real files made here
# (fixtures, CUDA's own libraries) besides fuzz/corpus/NAME.
# XCC_FUZZ_SECONDS sets the time per target (make fuzz-long: 10 minutes);
# XCC_FUZZ_TARGETS, a list of names (fuzz_elfpatch ...), runs only those.
load lib/common

FUZZ_SECONDS=${XCC_FUZZ_SECONDS:-10}

setup_file() {
	export FB="$BATS_FILE_TMPDIR/fuzz"
	mkdir -p "$FB/obj"
}

# Real inputs for each target, made once: ELF files (the patchelf fixtures,
# CUDA's libcudart), archives of every kind (a redist .tar.xz, a .deb whose
# data.tar.xz has many blocks, a wheel) and NVIDIA's manifests.
make_seeds() {
	[ -d "$FB/seeds" ] && return 0
	local s=$FB/seeds w=$FB/seedwork f
	mkdir -p "$s/elf" "$s/archive" "$s/manifest" "$w/deb/usr/include" "$w/whl/nvidia/x/lib"
	sh "$XCC_SRCDIR/tests/fixtures/elf-fixtures.sh" "$w/elf" >/dev/null 2>&1 || true
	find "$w/elf" -type f | while read -r f; do
		if [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			cp "$f" "$s/elf/$(echo "${f#"$w"/elf/}" | tr / -)"
		fi
	done
	for f in /usr/local/cuda/lib64/libcudart.so.*; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then
			cp "$f" "$s/elf/"
			break
		fi
	done
	cp "$XCC_SRCDIR"/tests/data/manifests/cuda/*.json "$s/manifest/" 2>/dev/null || true
	# a redist .tar.xz
	mkdir -p "$w/cuda_x-linux-x86_64-1.0.0-archive/lib"
	cp "$s"/elf/* "$w/cuda_x-linux-x86_64-1.0.0-archive/lib/" 2>/dev/null || true
	rm -f "$w/cuda_x-linux-x86_64-1.0.0-archive/lib"/libcudart*
	ln -s libgreet.so "$w/cuda_x-linux-x86_64-1.0.0-archive/lib/link.so"
	tar -C "$w" -cf - cuda_x-linux-x86_64-1.0.0-archive | xz -T1 > "$s/archive/cuda_x-linux-x86_64-1.0.0-archive.tar.xz"
	# a .deb by hand: data.tar.xz in blocks of 4 KiB, as Debian's are in blocks
	printf '/* h */\n' > "$w/deb/usr/include/x.h"
	cp "$s"/elf/* "$w/deb/usr/include/" 2>/dev/null || true
	rm -f "$w/deb/usr/include"/libcudart*
	printf 'Package: x\nVersion: 1.0\nArchitecture: arm64\n' > "$w/control"
	printf '2.0\n' > "$w/debian-binary"
	tar -C "$w" -cf - control | xz -T1 > "$w/control.tar.xz"
	tar -C "$w/deb" -cf - . | xz -T1 --block-size=4096 > "$w/data.tar.xz"
	(cd "$w" && ar rc "$s/archive/x.deb" debian-binary control.tar.xz data.tar.xz)
	# a wheel
	python3 - "$s/archive/x.whl" "$s/elf" <<'PY' || true
import os, sys, zipfile
out, elf = sys.argv[1:3]
with zipfile.ZipFile(out, "w") as z:
    for f in sorted(os.listdir(elf))[:3]:
        if not f.startswith("libcudart"):
            z.writestr("nvidia/x/lib/" + f, open(os.path.join(elf, f), "rb").read())
    z.writestr("nvidia_x-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-manylinux_2_28_aarch64\n")
    z.writestr("nvidia_x-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: nvidia-x\nVersion: 1.0\n")
PY
}

# seeds_for NAME DIR: copy the target's seeds into its corpus DIR
seeds_for() {
	local kind
	case $1 in
	fuzz_elf | fuzz_glibc | fuzz_elfpatch) kind=elf ;;
	fuzz_package | fuzz_unpack) kind=archive ;;
	fuzz_manifest) kind=manifest ;;
	*) return 0 ;;
	esac
	cp "$FB/seeds/$kind"/* "$2/" 2>/dev/null || true
}

# The library's sources as the Makefile lists them (src/db/data.c is generated
# into the build tree).
lib_sources() {
	make -s --no-print-directory -C "$XCC_BUILDDIR" print-lib-sources | tr ' ' '\n' |
		grep '\.c$' | while read -r f; do
			if [ -f "$XCC_SRCDIR/$f" ]; then echo "$XCC_SRCDIR/$f"; else echo "$XCC_BUILDDIR/$f"; fi
		done
}

need_fuzzer() {
	need clang "libFuzzer targets are built with clang"
	if [ -z "${XCC_BUILDDIR:-}" ] || [ ! -f "$XCC_BUILDDIR/config.h" ]; then
		skip "XCC_BUILDDIR with a configured build is needed (run through make check)"
	fi
	echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)n & 0; }' \
		>"$FB/probe.c"
	clang -fsanitize=fuzzer,address -o "$FB/probe" "$FB/probe.c" 2>/dev/null ||
		skip "clang has no libFuzzer runtime (Debian: apt-get install libclang-rt-14-dev)"
}

# The build's own compiler flags and libraries (configure found them with
# pkg-config), minus -Werror.
lib_flags() {
	local w
	for w in $(make -s --no-print-directory -C "$XCC_BUILDDIR" print-lib-cflags); do
		[ "$w" = -Werror ] || printf '%s ' "$w"
	done
	# A function used without its header would be taken to return int: a
	# pointer it returns is cut to 32 bits, and the target crashes for that.
	printf '%s ' -Werror=implicit-function-declaration
}

build_library() {
	[ -f "$FB/libxcc-fuzz.a" ] && return 0
	lib_flags >"$FB/cflags"
	make -s --no-print-directory -C "$XCC_BUILDDIR" print-lib-libs >"$FB/libs"
	lib_sources | xargs -P 2 -I{} sh -c \
		'clang $(cat "$2/cflags") -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
			-c "$1" -o "$2/obj/$(basename "$1" .c).o"' _ {} "$FB" || return 1
	ar rcs "$FB/libxcc-fuzz.a" "$FB"/obj/*.o
}

@test "fuzz: the library's sources are listed by the build" {
	[ -n "${XCC_BUILDDIR:-}" ] || skip "XCC_BUILDDIR is not set (run through make check)"
	run lib_sources
	assert_status 0
	assert_output_contains "src/elf/fatbin.c"
	assert_output_contains "src/db/data.c"
	run lib_flags
	assert_status 0
	[[ "$output" == *-std=c11* ]]
	[[ " $output " != *" -Werror "* ]]
	[[ "$output" == *-Werror=implicit-function-declaration* ]]
	# data.c is generated into the build tree but includes src/db/data.h
	assert_output_contains "-I$XCC_SRCDIR/src"
}

@test "fuzz: every fuzz/fuzz_*.c builds, replays its seeds and runs ${FUZZ_SECONDS}s without a crash" {
	need_fuzzer
	build_library
	make_seeds
	local failed=0 n=0 t name corpus
	for t in "$XCC_SRCDIR"/fuzz/fuzz_*.c; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .c)
		if [ -n "${XCC_FUZZ_TARGETS:-}" ] && [[ " $XCC_FUZZ_TARGETS " != *" $name "* ]]; then
			continue
		fi
		n=$((n + 1))
		# shellcheck disable=SC2046
		clang $(cat "$FB/cflags") -I"$XCC_SRCDIR/fuzz" -g -O1 -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=undefined -o "$FB/$name" "$t" \
			"$FB/libxcc-fuzz.a" $(cat "$FB/libs") ||
			{ echo "# $name does not build" >&3; failed=1; continue; }
		# Seeds from fuzz/corpus/NAME are copied: libFuzzer writes into its corpus.
		corpus="$FB/corpus-$name"
		mkdir -p "$corpus"
		if [ -d "$XCC_SRCDIR/fuzz/corpus/$name" ]; then
			cp "$XCC_SRCDIR/fuzz/corpus/$name"/* "$corpus/" 2>/dev/null || true
		fi
		seeds_for "$name" "$corpus"
		# Every seed once, as it is: the corpus replay the sanitizer pass counts.
		if ! ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1" "$FB/$name" -runs=0 -timeout=60 -rss_limit_mb=4096 "$corpus" >"$FB/$name.replay.log" 2>&1; then
			echo "# $name fails on its seeds:" >&3
			tail -n 40 "$FB/$name.replay.log" | sed 's/^/# /' >&3
			failed=1
			continue
		fi
		if ! ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1" "$FB/$name" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=4096 -max_len=1048576 \
			-artifact_prefix="$FB/$name-" -print_final_stats=1 "$corpus" >"$FB/$name.log" 2>&1; then
			echo "# $name failed; the end of its log:" >&3
			tail -n 40 "$FB/$name.log" | sed 's/^/# /' >&3
			# Kept past the run: bats removes its temporary directory.
			mkdir -p "$XCC_BUILDDIR/fuzz-artifacts"
			cp "$FB/$name"-* "$XCC_BUILDDIR/fuzz-artifacts/" 2>/dev/null || true
			ls "$FB/$name"-* 2>/dev/null | sed "s|^$FB/|# artifact, kept in $XCC_BUILDDIR/fuzz-artifacts: |" >&3
			failed=1
		else
			grep -m1 'stat::number_of_executed_units' "$FB/$name.log" | sed "s/^/# $name: /" >&3 || true
		fi
	done
	[ "$n" -gt 0 ]
	[ "$failed" -eq 0 ]
}
