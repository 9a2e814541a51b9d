#!/usr/bin/env bats
# Every fuzz/fuzz_*.c is a libFuzzer target over one of the library's
# parsers. Build each with clang, ASan and libFuzzer against the library
# sources, and run it briefly: any crash, leak, hang or out-of-bounds access
# fails the test, with the input that caused it left in the log.
load lib/common

FUZZ_SECONDS=${XCC_FUZZ_SECONDS:-15}

setup_file() {
	export FB="$BATS_FILE_TMPDIR/fuzz"
	mkdir -p "$FB/obj"
}

# The library's sources as the Makefile lists them (src/data.c is generated
# into the build tree).
lib_sources() {
	make -s --no-print-directory -C "$XCC_BUILDDIR" print-lib-sources | tr ' ' '\n' |
		grep '\.c$' | while read -r f; do
			if [ -f "$XCC_SRCDIR/$f" ]; then echo "$XCC_SRCDIR/$f"; else echo "$XCC_BUILDDIR/$f"; fi
		done
}

need_fuzzer() {
	need clang "libFuzzer targets are built with clang"
	[ -n "${XCC_BUILDDIR:-}" ] && [ -f "$XCC_BUILDDIR/config.h" ] ||
		skip "XCC_BUILDDIR with a configured build is needed (run through make check)"
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
}

build_library() {
	[ -f "$FB/libxcc-fuzz.a" ] && return 0
	lib_flags >"$FB/cflags"
	make -s --no-print-directory -C "$XCC_BUILDDIR" print-lib-libs >"$FB/libs"
	lib_sources | xargs -P 2 -I{} sh -c \
		'clang $(cat "$2/cflags") -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address \
			-c "$1" -o "$2/obj/$(basename "$1" .c).o"' _ {} "$FB" || return 1
	ar rcs "$FB/libxcc-fuzz.a" "$FB"/obj/*.o
}

@test "fuzz: the library's sources are listed by the build" {
	[ -n "${XCC_BUILDDIR:-}" ] || skip "XCC_BUILDDIR is not set (run through make check)"
	run lib_sources
	assert_status 0
	assert_output_contains "src/fatbin.c"
	assert_output_contains "src/data.c"
	run lib_flags
	assert_status 0
	[[ "$output" == *-std=c11* && "$output" != *-Werror* ]]
	# data.c is generated into the build tree but includes src/data.h
	assert_output_contains "-I$XCC_SRCDIR/src"
}

@test "fuzz: every fuzz/fuzz_*.c builds and runs ${FUZZ_SECONDS}s without a crash" {
	need_fuzzer
	build_library
	local failed=0 n=0 t name corpus
	for t in "$XCC_SRCDIR"/fuzz/fuzz_*.c; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .c)
		n=$((n + 1))
		# shellcheck disable=SC2046
		clang $(cat "$FB/cflags") -g -O1 -fsanitize=fuzzer,address -o "$FB/$name" "$t" \
			"$FB/libxcc-fuzz.a" $(cat "$FB/libs") ||
			{ echo "# $name does not build" >&3; failed=1; continue; }
		# Seeds from fuzz/corpus/NAME are copied: libFuzzer writes into its corpus.
		corpus="$FB/corpus-$name"
		mkdir -p "$corpus"
		if [ -d "$XCC_SRCDIR/fuzz/corpus/$name" ]; then
			cp "$XCC_SRCDIR/fuzz/corpus/$name"/* "$corpus/" 2>/dev/null || true
		fi
		if ! "$FB/$name" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$FB/$name-" -print_final_stats=1 "$corpus" >"$FB/$name.log" 2>&1; then
			echo "# $name failed; the end of its log:" >&3
			tail -n 40 "$FB/$name.log" | sed 's/^/# /' >&3
			ls "$FB/$name"-* 2>/dev/null | sed 's/^/# artifact: /' >&3
			failed=1
		else
			grep -m1 'stat::number_of_executed_units' "$FB/$name.log" | sed "s/^/# $name: /" >&3 || true
		fi
	done
	[ "$n" -gt 0 ]
	[ "$failed" -eq 0 ]
}
