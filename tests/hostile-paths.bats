#!/usr/bin/env bats
# toolchain cmake|meson with sysroot paths that hold what CMake's and
# Meson's file syntaxes give meaning to: each file either configures and
# builds a real C project under real cmake and meson with every value
# arriving as the path, or is refused with exit 2 and a message that says
# why; nothing in a path is ever read as CMake or Meson code.
load lib/common
load lib/toolchain

setup_file() {
	export PROJ=$BATS_FILE_TMPDIR/proj
	mkdir -p "$PROJ"
	echo 'int main(void) { return 0; }' > "$PROJ/hello.c"
	# The values the toolchain file set, each in a file of its own, as
	# the project sees them.
	cat > "$PROJ/CMakeLists.txt" <<-'EOF'
	cmake_minimum_required(VERSION 3.21)
	project(hostile C)
	file(WRITE "${CMAKE_BINARY_DIR}/sysroot.txt" "${CUDA_XCC_SYSROOT}")
	list(GET CMAKE_C_LINKER_LAUNCHER 3 _launcher_sysroot)
	file(WRITE "${CMAKE_BINARY_DIR}/launcher.txt" "${_launcher_sysroot}")
	list(GET CMAKE_CROSSCOMPILING_EMULATOR 3 _emulator_sysroot)
	file(WRITE "${CMAKE_BINARY_DIR}/emulator.txt" "${_emulator_sysroot}")
	add_executable(hello hello.c)
	EOF
	cat > "$PROJ/meson.build" <<-'EOF'
	project('hostile', 'c')
	# cuda-xcc check-link --sysroot DIR --compiler=gcc
	configure_file(input: 'v.in', output: 'sysroot.txt',
	  configuration: {'V': meson.get_compiler('c').cmd_array()[3]})
	configure_file(input: 'v.in', output: 'c_args.txt',
	  configuration: {'V': get_option('c_args')[0]})
	executable('hello', 'hello.c')
	EOF
	printf '@V@' > "$PROJ/v.in"
}

needs_tools() {
	need cmake
	need meson
	need ninja
	need aarch64-linux-gnu-gcc-12 "the fake sysroot names it"
	need qemu-aarch64 "Meson runs its sanity check through cuda-xcc run"
}

# Exactly the bytes of $2 in file $1.
same_bytes() {
	if ! cmp -s "$1" <(printf '%s' "$2"); then
		printf 'expected %q, got %q\n' "$2" "$(cat "$1")" >&2
		return 1
	fi
}

cmake_ok() {
	local sr=$1 b
	b=$(mktemp -d "$BATS_TEST_TMPDIR/cmake.XXXXXX")
	run xcc toolchain cmake --sysroot "$sr" -arch 8.7 --output "$BATS_TEST_TMPDIR/tc.cmake"
	assert_status 0
	run cmake -S "$PROJ" -B "$b" -DCMAKE_TOOLCHAIN_FILE="$BATS_TEST_TMPDIR/tc.cmake"
	assert_status 0
	same_bytes "$b/sysroot.txt" "$sr"
	same_bytes "$b/launcher.txt" "$sr"
	same_bytes "$b/emulator.txt" "$sr"
	run cmake --build "$b"
	assert_status 0
	[ -x "$b/hello" ]
}

meson_ok() {
	local sr=$1 b
	b=$(mktemp -d "$BATS_TEST_TMPDIR/meson.XXXXXX")
	run xcc toolchain meson --sysroot "$sr" --output "$BATS_TEST_TMPDIR/cross.ini"
	assert_status 0
	run meson setup --cross-file "$BATS_TEST_TMPDIR/cross.ini" "$b" "$PROJ"
	assert_status 0
	same_bytes "$b/sysroot.txt" "$sr"
	same_bytes "$b/c_args.txt" "-I$sr/targets/aarch64-linux/include"
	run ninja -C "$b"
	assert_status 0
	[ -x "$b/hello" ]
}

# Refused with exit 2, a message that says why, and no file written.
refused() {
	local kind=$1 sr=$2 why=$3
	run xcc toolchain "$kind" --sysroot "$sr" --output "$BATS_TEST_TMPDIR/out"
	assert_status 2
	assert_output_contains "$why"
	[ ! -e "$BATS_TEST_TMPDIR/out" ]
}

# The sysroot $d/NAME, made by the caller's printf so that any byte fits.
hostile() {
	sr=$BATS_TEST_TMPDIR/$1
	toolchain_sysroot "$sr"
}

@test "hostile paths: a line break is refused by both" {
	hostile $'line\nbreak'
	refused cmake "$sr" "line break"
	refused meson "$sr" "line break"
	hostile $'carriage\rreturn'
	refused cmake "$sr" "line break"
	refused meson "$sr" "line break"
}

@test "hostile paths: a single quote" {
	needs_tools
	hostile "it's"
	cmake_ok "$sr"
	meson_ok "$sr"
}

@test "hostile paths: two quotes in a row and a quote after a slash" {
	needs_tools
	hostile "''two/'three"
	cmake_ok "$sr"
	meson_ok "$sr"
}

@test "hostile paths: double quotes" {
	needs_tools
	hostile 'say "hi"'
	cmake_ok "$sr"
	meson_ok "$sr"
}

@test "hostile paths: a backslash" {
	needs_tools
	hostile 'back\slash\n'
	cmake_ok "$sr"
	meson_ok "$sr"
}

@test "hostile paths: a semicolon is refused by CMake, carried by Meson" {
	needs_tools
	hostile 'semi;colon'
	refused cmake "$sr" "';', '[' or ']'"
	meson_ok "$sr"
}

@test "hostile paths: dollar signs, \${x}, \$(...) and backquotes" {
	needs_tools
	hostile 'dollar$HOME${x}$(touch pwned)`touch pwned2`$$'
	cmake_ok "$sr"
	meson_ok "$sr"
	[ -z "$(find "$BATS_TEST_TMPDIR" "$PROJ" -name "pwned*")" ]
}

@test "hostile paths: ]] and ]==] are refused by CMake, carried by Meson" {
	needs_tools
	hostile 'close]]bracket'
	refused cmake "$sr" "';', '[' or ']'"
	meson_ok "$sr"
	hostile 'close]==]fence[=['
	refused cmake "$sr" "';', '[' or ']'"
	meson_ok "$sr"
}

@test "hostile paths: a hash and spaces" {
	needs_tools
	hostile ' hash#tag  two	spaces'
	cmake_ok "$sr"
	meson_ok "$sr"
}

@test "hostile paths: a space at the end is refused by CMake, carried by Meson" {
	needs_tools
	hostile 'trailing space '
	refused cmake "$sr" "at its start or end"
	meson_ok "$sr"
}

@test "hostile paths: non-ASCII" {
	needs_tools
	hostile 'ünïcødé-日本語'
	cmake_ok "$sr"
	meson_ok "$sr"
}

@test "hostile paths: what Meson's machine files cannot hold is refused by Meson only" {
	needs_tools
	hostile "three'''quotes"
	refused meson "$sr" "three quotes in a row"
	cmake_ok "$sr"
	hostile "quote-at-end'"
	refused meson "$sr" "quote at the end"
	hostile "quote'\\backslash"
	refused meson "$sr" "before a backslash"
	hostile $'latin1-\xe9'
	refused meson "$sr" "UTF-8"
}

@test "hostile paths: a backslash at the end is refused by CMake" {
	hostile 'trailing\'
	refused cmake "$sr" "at its end"
}

@test "hostile paths: the shipped toolchain file refuses a sysroot CMake cannot carry" {
	need cmake
	hostile 'semi;colon'
	run cmake -S "$PROJ" -B "$BATS_TEST_TMPDIR/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		"-DCUDA_XCC_SYSROOT=$sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	assert_output_contains "cuda-xcc: CUDA_XCC_SYSROOT"
	assert_output_contains "holds"
}

@test "hostile paths: no path in a comment line of either file" {
	hostile "com'ment"
	run xcc toolchain cmake --sysroot "$sr"
	assert_status 0
	[ -z "$(grep '^#' <<<"$output" | grep -F "$sr")" ]
	run xcc toolchain meson --sysroot "$sr"
	assert_status 0
	[ -z "$(grep '^#' <<<"$output" | grep -F "$sr")" ]
	# Only shell-quoted, in the command line it suggests.
	grep -qF "#   CUDA_PATH='$BATS_TEST_TMPDIR/com'\\''ment' meson setup" <<<"$output"
}

@test "hostile paths: a --target-fs CMake's flag strings cannot carry is refused" {
	local fs
	hostile sr
	for fs in "$BATS_TEST_TMPDIR/root fs" "$BATS_TEST_TMPDIR/root'fs" "$BATS_TEST_TMPDIR/root\$fs"; do
		# a device root, so that what is refused is the path alone
		mkdir -p "$fs/lib/aarch64-linux-gnu"
		echo 'not read' >"$fs/lib/aarch64-linux-gnu/libc.so.6"
		run xcc toolchain cmake --sysroot "$sr" --target-fs "$fs" --output "$BATS_TEST_TMPDIR/out"
		assert_status 2
		assert_output_contains "one command-line string"
		[ ! -e "$BATS_TEST_TMPDIR/out" ]
	done
}

@test "hostile paths: the shipped toolchain file refuses such a CUDA_XCC_TARGET_FS" {
	need cmake
	hostile sr
	mkdir -p "$BATS_TEST_TMPDIR/root fs"
	run cmake -S "$PROJ" -B "$BATS_TEST_TMPDIR/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		"-DCUDA_XCC_SYSROOT=$sr" "-DCUDA_XCC_TARGET_FS=$BATS_TEST_TMPDIR/root fs" \
		-DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	assert_output_contains "cuda-xcc: CUDA_XCC_TARGET_FS"
}

@test "hostile paths: Meson carries a --target-fs with spaces, quotes and \$ through a real build" {
	local fs b
	needs_tools
	need python3
	hostile sr
	fs="$BATS_TEST_TMPDIR/root fs'\"\$x"
	mkdir -p "$fs/usr/aarch64-linux-gnu"
	# The cross toolchain's libc as the root's, where its libc.so script names it
	# (hard links where they may be made: 52 MB not copied). Not a link out of
	# the root: that is read inside the root, as the device would.
	cp -al /usr/aarch64-linux-gnu/lib "$fs/usr/aarch64-linux-gnu/lib" ||
		cp -a /usr/aarch64-linux-gnu/lib "$fs/usr/aarch64-linux-gnu/lib"
	ln -s aarch64-linux-gnu/lib "$fs/usr/lib"
	ln -s usr/lib "$fs/lib"
	run xcc toolchain meson --sysroot "$sr" --target-fs "$fs" --output "$BATS_TEST_TMPDIR/cross.ini"
	assert_status 0
	b=$BATS_TEST_TMPDIR/meson
	XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache run meson setup --cross-file "$BATS_TEST_TMPDIR/cross.ini" "$b" "$PROJ"
	assert_status 0
	run python3 -c 'import json, sys
opts = {o["name"]: o["value"] for o in json.load(open(sys.argv[1]))}
print("\n".join(opts["c_args"]))' "$b/meson-info/intro-buildoptions.json"
	assert_status 0
	grep -qxF -- "--sysroot=$fs" <<<"$output"
	run ninja -C "$b"
	assert_status 0
}
