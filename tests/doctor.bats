#!/usr/bin/env bats
# cuda-xcc doctor: every check in its good and its bad state. The sysroot is made from
# redist-shaped archives built at test time (tests/fixtures/make-redist.sh); the bad states
# come from PATHs that lack a tool, damaged copies of the sysroot, device roots with old
# libraries and fake binfmt_misc directories (CUDA_XCC_BINFMT_MISC).
load lib/common

setup_file() {
	command -v aarch64-linux-gnu-gcc >/dev/null || skip "aarch64-linux-gnu-gcc is not installed (fixture ELF files)"
	local fx=$BATS_FILE_TMPDIR/fx
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$fx" --cuda 12.6.3 >/dev/null
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache "$CUDA_XCC" sysroot create --target jetson -arch sm_87 \
		--cuda 12.6 --from "$fx/redistrib_12.6.3.json" --dest "$BATS_FILE_TMPDIR/sr" \
		--progress never >/dev/null 2>&1
}

setup() {
	SR=$BATS_FILE_TMPDIR/sr
	[ -f "$SR/sysroot.json" ] || { echo "the fixture sysroot was not made" >&2; return 1; }
	export XDG_DATA_HOME=$BATS_TEST_TMPDIR/data
	unset CUDA_XCC_SYSROOT
	# A binfmt_misc with qemu-aarch64 registered, as qemu-user-binfmt leaves it.
	BF=$BATS_TEST_TMPDIR/binfmt
	mkdir -p "$BF"
	echo enabled > "$BF/status"
	printf 'enabled\ninterpreter %s\nflags: POCF\noffset 0\nmagic 7f454c460201010000000000000000000200b700\n' \
		"$(command -v qemu-aarch64 || echo /usr/bin/qemu-aarch64)" > "$BF/qemu-aarch64"
	export CUDA_XCC_BINFMT_MISC=$BF
}

need_tools() {
	need aarch64-linux-gnu-g++-12 "a cross g++ CUDA 12.6 accepts"
	need qemu-aarch64 "qemu-user"
	need ccache
}

# A PATH of links to the named tools only.
fake_path() {
	local d=$BATS_TEST_TMPDIR/path t
	mkdir -p "$d"
	for t in "$@"; do
		ln -sf "$(command -v "$t")" "$d/$t"
	done
	echo "$d"
}

# The line of one check.
line_of() { echo "$output" | awk -v n="$1" '($1 == "ok" || $1 == "FAIL" || $1 == "skip" || $1 == "warn") && $2 == n'; }

@test "doctor: everything in order gives one ok line per check and exit 0" {
	need_tools
	run "$CUDA_XCC" doctor --sysroot "$SR" --target-fs /usr/aarch64-linux-gnu
	assert_status 0
	assert_output_contains "target jetson, CUDA 12.6.3, sysroot $SR"
	for check in cross-g++ qemu sysroot nvcc-path glibc-floor target-fs-links binfmt ccache; do
		l=$(line_of "$check")
		[[ "$l" == "ok "* ]] || { echo "$check: $l" >&2; false; }
	done
	# The fixture's libraries carry no device code: said, not called ok.
	[[ "$(line_of serving)" == "skip "* ]]
	# No JetPack given or recorded: said, not guessed.
	[[ "$(line_of jetpack)" == "skip "* ]]
	[[ "$output" != *FAIL* ]]
	run "$CUDA_XCC" doctor --sysroot "$SR" --target-fs /usr/aarch64-linux-gnu --json
	assert_status 0
	echo "$output" | python3 -c 'import json, sys; r = json.load(sys.stdin); assert r["ok"] is True; assert len(r["checks"]) == 13; assert {c["status"] for c in r["checks"]} <= {"ok", "skip"}'
}

@test "doctor: cross-g++ missing, or only one that CUDA refuses" {
	need_tools
	p=$(fake_path qemu-aarch64 ccache)
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	l=$(line_of cross-g++)
	[[ "$l" == "FAIL "* ]]
	[[ "$l" == *"is not on PATH"* ]]
	# The package of the g++ the sysroot names, not the newest CUDA takes.
	[[ "$l" == *"fix: apt-get install g++-12-aarch64-linux-gnu, or put the directory holding aarch64-linux-gnu-g++-12 on PATH"* ]]
	# CUDA 11.8 takes gcc 11 at most: g++-12 alone does not do.
	p=$(fake_path qemu-aarch64 ccache aarch64-linux-gnu-g++-12)
	PATH=$p run "$CUDA_XCC" doctor --target sbsa --cuda 11.8
	assert_status 1
	l=$(line_of cross-g++)
	[[ "$l" == "FAIL "* ]]
	[[ "$l" == *"aarch64-linux-gnu-g++-12 (gcc 12)"* ]]
	[[ "$l" == *"fix: apt-get install g++-11-aarch64-linux-gnu"* ]]
}

@test "doctor: qemu missing names qemu-user" {
	need_tools
	p=$(fake_path ccache aarch64-linux-gnu-g++-12)
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	l=$(line_of qemu)
	[[ "$l" == "FAIL "* ]]
	[[ "$l" == *"qemu-aarch64 is not on PATH"* ]]
	[[ "$l" == *"fix: apt-get install qemu-user"* ]]
	# An x86_64 target needs none.
	PATH=$p run "$CUDA_XCC" doctor --target x86_64 --cuda 12.6
	[[ "$(line_of qemu)" == "skip "*"run natively"* ]]
	[[ "$(line_of binfmt)" == "skip "*"run natively"* ]]
}

@test "doctor: sysroot missing or damaged" {
	need_tools
	run "$CUDA_XCC" doctor --target jetson --cuda 12.6
	assert_status 1
	l=$(line_of sysroot)
	[[ "$l" == "FAIL "*"no sysroot for jetson and CUDA 12.6 in the store"* ]]
	[[ "$l" == *"fix: cuda-xcc sysroot create --target jetson --cuda 12.6"* ]]
	cp -a "$SR" "$BATS_TEST_TMPDIR/broken"
	rm "$BATS_TEST_TMPDIR/broken/bin/fatbinary"
	run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/broken"
	assert_status 1
	l=$(line_of sysroot)
	[[ "$l" == "FAIL "*"does not verify"* ]]
	[[ "$l" == *"fix: cuda-xcc sysroot create --target jetson --cuda 12.6.3 --dest $BATS_TEST_TMPDIR/broken"* ]]
	mkdir "$BATS_TEST_TMPDIR/notone"
	run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/notone"
	assert_status 1
	[[ "$(line_of sysroot)" == "FAIL "*"is not a cuda-xcc sysroot"* ]]
	run "$CUDA_XCC" doctor --sysroot "$SR" --cuda 12.4
	assert_status 2
	assert_output_contains "holds CUDA 12.6.3, not 12.4"
}

@test "doctor: serving table with and without an unserved GPU" {
	need_tools
	s=$BATS_TEST_TMPDIR/s
	cp -a "$SR" "$s"
	python3 - "$s/sysroot.json" OK <<-'PY'
	import json, sys
	m = json.load(open(sys.argv[1]))
	m["serving"] = [{"library": "lib/libcublas.so.12", "serving": {"8.7": sys.argv[2]}}]
	json.dump(m, open(sys.argv[1], "w"), indent="\t")
	PY
	run "$CUDA_XCC" doctor --sysroot "$s"
	[[ "$(line_of serving)" == "ok "*"served by its 1 library"* ]]
	python3 - "$s/sysroot.json" "NOT SERVED" <<-'PY'
	import json, sys
	m = json.load(open(sys.argv[1]))
	m["serving"] = [{"library": "lib/libcublas.so.12", "serving": {"8.7": sys.argv[2]}}]
	json.dump(m, open(sys.argv[1], "w"), indent="\t")
	PY
	run "$CUDA_XCC" doctor --sysroot "$s"
	assert_status 1
	l=$(line_of serving)
	[[ "$l" == "FAIL "*"no code in lib/libcublas.so.12 for 8.7"* ]]
	[[ "$l" == *"fix: 'cuda-xcc sysroot info $s'"* ]]
}

@test "doctor: nvcc-path fails when the profile or a tool would let another CUDA in" {
	need_tools
	s=$BATS_TEST_TMPDIR/s
	cp -a "$SR" "$s"
	sed -i 's|^PATH .*|PATH += $(PATH):$(_HERE_)|' "$s/bin/nvcc.profile"
	run "$CUDA_XCC" doctor --sysroot "$s"
	assert_status 1
	l=$(line_of nvcc-path)
	[[ "$l" == "FAIL "*"does not put the sysroot's nvvm/bin and bin first on PATH"* ]]
	[[ "$l" == *"fix: cuda-xcc sysroot create"* ]]
	cp "$SR/bin/nvcc.profile" "$s/bin/nvcc.profile"
	rm "$s/bin/ptxas"
	mkdir "$BATS_TEST_TMPDIR/other-cuda"
	printf '#!/bin/sh\nexit 1\n' > "$BATS_TEST_TMPDIR/other-cuda/ptxas"
	chmod +x "$BATS_TEST_TMPDIR/other-cuda/ptxas"
	PATH=$BATS_TEST_TMPDIR/other-cuda:$PATH run "$CUDA_XCC" doctor --sysroot "$s"
	assert_status 1
	[[ "$(line_of nvcc-path)" == "FAIL "*"the sysroot lacks ptxas: nvcc would run $BATS_TEST_TMPDIR/other-cuda/ptxas from PATH instead"* ]]
}

@test "doctor: glibc-floor against a device with an older glibc or libstdc++" {
	need_tools
	d=$(scratch)
	run "$CUDA_XCC" doctor --sysroot "$SR"
	[[ "$(line_of glibc-floor)" == "skip "*"give --target-fs"* ]]
	# A device whose libc defines only GLIBC_2.17 and whose libstdc++ only GLIBCXX_3.4.19.
	mkdir -p "$d/old/lib/aarch64-linux-gnu"
	printf 'GLIBC_2.17 { global: puts; local: *; };\n' > "$d/libc.map"
	printf 'GLIBCXX_3.4 { global: f1; local: *; };\nGLIBCXX_3.4.19 { global: f2; } GLIBCXX_3.4;\n' > "$d/cxx.map"
	printf 'int puts(const char *s) { (void)s; return 0; }\nint f1(void) { return 1; }\nint f2(void) { return 2; }\n' > "$d/x.c"
	aarch64-linux-gnu-gcc -shared -nostdlib -fPIC -Wl,-soname,libc.so.6 -Wl,--version-script="$d/libc.map" \
		-o "$d/old/lib/aarch64-linux-gnu/libc.so.6" "$d/x.c"
	run "$CUDA_XCC" doctor --sysroot "$SR" --target-fs "$d/old"
	assert_status 1
	l=$(line_of glibc-floor)
	[[ "$l" == "FAIL "*"the device's glibc is GLIBC_2.17, the cross toolchain's GLIBC_2.36"* ]]
	[[ "$l" == *"fix: build with --target-fs $d/old"* ]]
	# Only libstdc++ older.
	mkdir -p "$d/cxx/usr/lib/aarch64-linux-gnu"
	cp /usr/aarch64-linux-gnu/lib/libc.so.6 "$d/cxx/usr/lib/aarch64-linux-gnu/"
	aarch64-linux-gnu-gcc -shared -nostdlib -fPIC -Wl,-soname,libstdc++.so.6 -Wl,--version-script="$d/cxx.map" \
		-o "$d/cxx/usr/lib/aarch64-linux-gnu/libstdc++.so.6" "$d/x.c"
	run "$CUDA_XCC" doctor --sysroot "$SR" --target-fs "$d/cxx"
	assert_status 1
	l=$(line_of glibc-floor)
	[[ "$l" == "FAIL "*"the device's libstdc++ defines up to GLIBCXX_3.4.19"* ]]
	[[ "$l" != *"glibc is"* ]]
	# The toolchain's glibc is the device's: its static C++ runtime needs nothing more.
	[[ "$l" == *"link the C++ runtime into the program (-Xcompiler -static-libstdc++ -Xcompiler -static-libgcc"* ]]
	# Both older: the static C++ runtime would need the toolchain's newer glibc, so it is
	# not advised (target-root.bats links it against a glibc 2.31 root: it fails).
	mkdir -p "$d/both/usr/lib/aarch64-linux-gnu"
	cp -a "$d/old/lib" "$d/both/"
	cp "$d/cxx/usr/lib/aarch64-linux-gnu/libstdc++.so.6" "$d/both/usr/lib/aarch64-linux-gnu/"
	run "$CUDA_XCC" doctor --sysroot "$SR" --target-fs "$d/both"
	assert_status 1
	l=$(line_of glibc-floor)
	[[ "$l" == "FAIL "*"the device's glibc is GLIBC_2.17"*"the device's libstdc++ defines up to GLIBCXX_3.4.19"* ]]
	[[ "$l" == *"use a cross g++ built for the device's glibc and libstdc++"* ]]
	[[ "$l" == *"-static-libstdc++ does not help: this toolchain's static C++ runtime was built against its own glibc (up to GLIBC_2.36), newer than the device's (up to GLIBC_2.17)"* ]]
	[[ "$l" != *"link the C++ runtime into the program"* ]]
	[[ "$l" != *"link libstdc++ statically"* ]]
	run "$CUDA_XCC" doctor --sysroot "$SR" --target-fs "$d/none"
	[[ "$(line_of glibc-floor)" == "FAIL "*"is not a directory"* ]]
}

@test "doctor: binfmt not mounted, qemu not registered, interpreter gone: a warning while qemu is there" {
	need_tools
	# A container without binfmt_misc: cuda-xcc run, ctest and try_run go through the
	# emulator and work, so it is no failure; what it affects is said, with both fixes.
	CUDA_XCC_BINFMT_MISC=$BATS_TEST_TMPDIR/nothing run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 0
	l=$(line_of binfmt)
	[[ "$l" == "warn "*"binfmt_misc is not mounted"*"aarch64 programs cannot be started directly by path (a Makefile or script running ./prog)"* ]]
	[[ "$l" == *"CMake's try_run (CMAKE_CROSSCOMPILING_EMULATOR of the toolchain file)"*"run them through $(command -v qemu-aarch64) and work"* ]]
	[[ "$l" == *"apt-get install qemu-user-binfmt"*"or start them through cuda-xcc run, as ctest does"* ]]
	[[ "$output" != *FAIL* ]]
	CUDA_XCC_BINFMT_MISC=$BATS_TEST_TMPDIR/nothing run "$CUDA_XCC" doctor --sysroot "$SR" --json
	assert_status 0
	echo "$output" | python3 -c 'import json,sys; r=json.load(sys.stdin); c={x["check"]: x["status"] for x in r["checks"]}; assert r["ok"] is True; assert c["binfmt"] == "warn", c'
	rm "$BF/qemu-aarch64"
	run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 0
	[[ "$(line_of binfmt)" == "warn "*"no qemu-aarch64 entry"*"apt-get install qemu-user-binfmt"* ]]
	printf 'enabled\ninterpreter /nonexistent/qemu-aarch64-static\n' > "$BF/qemu-aarch64"
	run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 0
	[[ "$(line_of binfmt)" == "warn "*"names the interpreter /nonexistent/qemu-aarch64-static, which is not there"* ]]
	printf 'disabled\ninterpreter /usr/bin/qemu-aarch64\n' > "$BF/qemu-aarch64"
	run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 0
	[[ "$(line_of binfmt)" == "warn "*"is disabled"* ]]
	# Without qemu nothing starts them: a failure.
	p=$(fake_path ccache aarch64-linux-gnu-g++-12 aarch64-linux-gnu-gcc)
	CUDA_XCC_BINFMT_MISC=$BATS_TEST_TMPDIR/nothing PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	[[ "$(line_of binfmt)" == "FAIL "*"binfmt_misc is not mounted"*"nor through qemu (not on PATH)"* ]]
}

@test "doctor: without the cross gcc on PATH the sysroot check names it, not a new sysroot" {
	need_tools
	p=$(fake_path qemu-aarch64 ccache)
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	l=$(line_of sysroot)
	[[ "$l" == "FAIL "*"sysroot  "*"$SR cannot be checked: the cross compiler aarch64-linux-gnu-gcc, which finds the target's libstdc++ and libgcc_s for its ELF dependencies (and which builds for it), is not on PATH; fix: apt-get install gcc-aarch64-linux-gnu, or put the directory holding aarch64-linux-gnu-gcc on PATH" ]]
	[[ "$l" != *"does not verify"* ]]
	[[ "$l" != *"sysroot create"* ]]
	# sysroot verify says the same.
	PATH=$p run "$CUDA_XCC" sysroot verify "$SR"
	assert_status 1
	assert_output_contains "ELF dependencies not checked: aarch64-linux-gnu-gcc, the cross compiler that says where the target's libstdc++ and libgcc_s are, is not on PATH"
	# Put back on PATH, the sysroot verifies.
	p=$(fake_path qemu-aarch64 ccache aarch64-linux-gnu-gcc aarch64-linux-gnu-g++-12)
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	[[ "$(line_of sysroot)" == "ok "*"verifies"* ]]
	# A damaged sysroot as well: both are said, and making it again for the rest.
	cp -a "$SR" "$BATS_TEST_TMPDIR/broken"
	rm "$BATS_TEST_TMPDIR/broken/bin/fatbinary"
	# fake_path adds to one directory: take the compilers out again.
	rm "$p/aarch64-linux-gnu-gcc" "$p/aarch64-linux-gnu-g++-12"
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/broken"
	assert_status 1
	l=$(line_of sysroot)
	[[ "$l" == "FAIL "*"cannot be checked: the cross compiler aarch64-linux-gnu-gcc"*"; and it does not verify: "*"fatbinary"* ]]
	[[ "$l" == *"fix: apt-get install gcc-aarch64-linux-gnu, or put the directory holding aarch64-linux-gnu-gcc on PATH; for the rest: cuda-xcc sysroot create --target jetson --cuda 12.6.3 --dest $BATS_TEST_TMPDIR/broken"* ]]
}

@test "doctor: ccache missing" {
	need_tools
	p=$(fake_path qemu-aarch64 aarch64-linux-gnu-g++-12)
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	l=$(line_of ccache)
	[[ "$l" == "FAIL "*"ccache is not on PATH"*"fix: apt-get install ccache"* ]]
	[[ "$(line_of cross-g++)" == "ok "* ]]
}

# A fake TOOL in directory $1 that prints $3 for --version.
fake_tool() {
	printf '#!/bin/sh\necho "%s"\n' "$3" > "$1/$2"
	chmod +x "$1/$2"
}

@test "doctor: cmake and meson: not installed is said, too old fails, new enough is ok" {
	need_tools
	p=$(fake_path qemu-aarch64 aarch64-linux-gnu-g++-12 aarch64-linux-gnu-gcc ccache)
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 0
	[[ "$(line_of cmake)" == "skip "*"cmake is not on PATH: needed only for CMake projects (apt-get install cmake)"* ]]
	[[ "$(line_of meson)" == "skip "*"meson is not on PATH: needed only for Meson projects"* ]]
	# The toolchain file's own version check is where the minimum comes from.
	fake_tool "$p" cmake "cmake version 3.20.6"
	fake_tool "$p" meson "0.55.3"
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	l=$(line_of cmake)
	[[ "$l" == "FAIL "*"$p/cmake is cmake 3.20.6; the toolchain file "*"/cmake/cuda-xcc-toolchain.cmake needs 3.21 or later"*"fix: install cmake 3.21 or later"* ]]
	[[ "$(line_of meson)" == "FAIL "*"meson 0.55.3; the cross file of 'cuda-xcc toolchain meson' needs 0.56 or later"* ]]
	# Meson without ninja, its backend, configures nothing.
	fake_tool "$p" cmake "cmake version 3.21.0"
	fake_tool "$p" meson "1.0.1"
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	[[ "$(line_of cmake)" == "ok "*"cmake 3.21.0;"* ]]
	[[ "$(line_of meson)" == "FAIL "*"ninja, its backend, is not on PATH"*"fix: apt-get install ninja-build"* ]]
	fake_tool "$p" ninja "1.11.1"
	PATH=$p run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 0
	[[ "$(line_of meson)" == "ok "*"meson 1.0.1;"* ]]
	# The cross file says which Meson it needs, from the same constant.
	run "$CUDA_XCC" toolchain meson --sysroot "$SR"
	assert_output_contains "# Meson 0.56 or later: older ones ignore [built-in options]."
}

@test "doctor: usage" {
	run "$CUDA_XCC" doctor --target nope
	assert_status 2
	assert_output_contains "unknown target 'nope'"
	run "$CUDA_XCC" doctor --cuda x.y
	assert_status 2
	run "$CUDA_XCC" doctor --jetpack 9.9
	assert_status 2
	assert_output_contains "--jetpack 9.9 is not a JetPack release cuda-xcc knows; known: 4.6, 5.0, 5.1"
	run "$CUDA_XCC" doctor --jetpack 6.1 --target x86_64
	assert_status 2
	assert_output_contains "JetPack runs only on Jetson boards"
	run "$CUDA_XCC" doctor --help
	assert_status 0
	assert_output_contains "glibc-floor"
}

@test "doctor: jetpack, board x CUDA x JetPack for the sysroot's GPUs" {
	need_tools
	# Without a JetPack the check says what it would do, and nothing fails for it.
	run "$CUDA_XCC" doctor --sysroot "$SR"
	[[ "$(line_of jetpack)" == "skip "*"--jetpack V"* ]]
	run "$CUDA_XCC" doctor --sysroot "$SR" --jetpack 6.1
	[[ "$(line_of jetpack)" == "ok "*"JetPack 6.1 (L4T 36.4"*"runs CUDA 12.6.3 on 8.7"* ]]
	# A point release shows its own L4T (6.2 is L4T 36.4.3, meta-tegra's
	# release notes; 36.4.4 is 6.2.1's).
	run "$CUDA_XCC" doctor --sysroot "$SR" --jetpack 6.2.0
	[[ "$(line_of jetpack)" == "ok "*"JetPack 6.2 (L4T 36.4.3, Ubuntu 22.04) runs CUDA 12.6.3 on 8.7"* ]]
	# A line shows the range of its point releases' L4T.
	run "$CUDA_XCC" doctor --sysroot "$SR" --jetpack 6.2
	[[ "$(line_of jetpack)" == "ok "*"JetPack 6.2 (L4T 36.4.3 to 36.5.2, Ubuntu 22.04) runs CUDA 12.6.3 on 8.7"* ]]
	# JetPack 5 reaches CUDA 12.2 at most on Orin.
	run "$CUDA_XCC" doctor --sysroot "$SR" --jetpack 5.1
	assert_status 1
	l=$(line_of jetpack)
	[[ "$l" == "FAIL "*"JetPack 5.1 runs CUDA up to 12.2 on sm_87"*"not CUDA 12.6.3"* ]]
	[[ "$l" == *"6.1 (CUDA 12.6"* ]]
	# JetPack 4.6 does not know Orin.
	run "$CUDA_XCC" doctor --sysroot "$SR" --jetpack 4.6
	assert_status 1
	[[ "$(line_of jetpack)" == "FAIL "*"JetPack 4.6 does not support sm_87"* ]]
	# No sysroot: the CUDA release alone.
	run "$CUDA_XCC" doctor --jetpack 6.0 --cuda 13.0
	assert_status 1
	[[ "$(line_of jetpack)" == "FAIL "*"JetPack 6.0 runs CUDA up to 12.9, not 13.0"* ]]
	# JetPack 5.1 ships CUDA 11.4: 12.2 runs there only with NVIDIA's cuda-compat.
	run "$CUDA_XCC" doctor --jetpack 5.1 --cuda 12.2 --target jetson
	l=$(line_of jetpack)
	[[ "$l" == "ok "*"JetPack 5.1 ships CUDA 11.4; its boards run CUDA 12.2 only with NVIDIA's cuda-compat package installed on the board (cuda-compat-12-2, libcuda.so.* in /usr/local/cuda-12.2/compat; the redist component cuda_compat)"* ]]
	[[ "$l" != *"runs CUDA 12.2 "* ]]
	# 6.2.1's CUDA is meta-tegra's release notes' (12.6): 12.8 needs cuda-compat.
	run "$CUDA_XCC" doctor --jetpack 6.2.1 --cuda 12.8 --target jetson
	l=$(line_of jetpack)
	[[ "$l" == "ok "*"JetPack 6.2.1 ships CUDA 12.6; its boards run CUDA 12.8 only with NVIDIA's cuda-compat package"* ]]
	# 13.2 on JetPack 6.2.1 rests on the unverified cuda_compat_orin rule: skip, never ok.
	run "$CUDA_XCC" doctor --jetpack 6.2.1 --cuda 13.2 --target jetson
	l=$(line_of jetpack)
	[[ "$l" == "skip "*"JetPack 6.2.1 runs CUDA up to 12.9; CUDA 13.2 only on sm_87, with NVIDIA's cuda_compat_orin on the board (unverified"* ]]
	run "$CUDA_XCC" doctor --json --sysroot "$SR" --jetpack 6.1
	echo "$output" | python3 -c 'import json,sys; c={x["check"]: x["status"] for x in json.load(sys.stdin)["checks"]}; assert c["jetpack"] == "ok", c'
}

@test "doctor: glibc-floor against a JetPack release's glibc and libstdc++" {
	need_tools
	tc=$(aarch64-linux-gnu-g++-12 -print-file-name=libc.so.6)
	# Debian 12's cross toolchain has glibc 2.36: newer than JetPack 5.1's (2.31).
	run "$CUDA_XCC" doctor --target jetson --cuda 12.2 --jetpack 5.1
	l=$(line_of glibc-floor)
	[[ "$l" == "FAIL "*"JetPack 5.1 (Ubuntu 20.04) has up to GLIBC_2.31, the cross toolchain's libc up to GLIBC_2.36"* ]]
	[[ "$l" == *"GLIBCXX_3.4.28"*"GLIBCXX_3.4.30"* ]]
	[[ "$l" == *"fix: build against the board's own libraries: --target-fs"* ]]
	# Debian 12's static libstdc++ would add GLIBC_2.32-2.36 needs: not advised.
	[[ "$l" == *"-static-libstdc++ does not help: this toolchain's static C++ runtime was built against its own glibc (up to GLIBC_2.36), newer than the device's (up to GLIBC_2.31)"* ]]
	[[ "$l" != *"link libstdc++ statically"* ]]
	# A device root given as well is what counts: the profile is not used then.
	run "$CUDA_XCC" doctor --target jetson --cuda 12.2 --jetpack 5.1 --target-fs /usr/aarch64-linux-gnu
	[[ "$(line_of glibc-floor)" == "ok "*"device glibc GLIBC_2.36"* ]]
	# JetPack 7's Ubuntu 24.04 is newer than the toolchain: ok, naming both.
	run "$CUDA_XCC" doctor --target jetson --cuda 13.0 --jetpack 7.0
	[[ "$(line_of glibc-floor)" == "ok "*"JetPack 7.0: glibc 2.39"*"cross toolchain GLIBC_2.36"* ]]
}

@test "doctor: the JetPack a sysroot records is the default, and a different one is refused" {
	need_tools
	local fx=$BATS_FILE_TMPDIR/fx
	XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache run "$CUDA_XCC" sysroot create --target jetson -arch sm_87 \
		--cuda 12.6 --jetpack 6.1 --from "$fx/redistrib_12.6.3.json" --dest "$BATS_TEST_TMPDIR/jp" \
		--progress never
	assert_status 0
	run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/jp"
	[[ "$(line_of jetpack)" == "ok "*"JetPack 6.1"* ]]
	[[ "$(line_of glibc-floor)" == *"JetPack 6.1: glibc 2.35"* || "$(line_of glibc-floor)" == *"JetPack 6.1 (Ubuntu 22.04)"* ]]
	run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/jp" --jetpack 6.2
	assert_status 2
	assert_output_contains "was made for JetPack 6.1, not 6.2"
	# A point release of the recorded line is that line (one set of floors).
	run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/jp" --jetpack 6.1.0
	[[ "$(line_of jetpack)" == "ok "*"JetPack 6.1 (L4T 36.4.0"* ]]
	# One the table does not list is no release it knows.
	run "$CUDA_XCC" doctor --sysroot "$BATS_TEST_TMPDIR/jp" --jetpack 6.1.2
	assert_status 2
	assert_output_contains "the point releases of JetPack 6.1 it knows: 6.1"
}

@test "doctor: another CUDA in the environment is reported; its headers on CPATH fail" {
	local f=$BATS_TEST_TMPDIR/native
	mkdir -p "$f/bin" "$f/targets/x86_64-linux/include" "$f/targets/x86_64-linux/lib/stubs"
	printf '#!/bin/sh\nexit 0\n' > "$f/bin/nvcc"
	chmod +x "$f/bin/nvcc"
	: > "$f/targets/x86_64-linux/include/cuda_runtime_api.h"
	ln -s targets/x86_64-linux/include "$f/include"
	ln -s targets/x86_64-linux/lib "$f/lib64"
	env -u CUDA_HOME -u CUDA_PATH -u CUDACXX -u CUDAToolkit_ROOT -u LIBRARY_PATH -u CPATH \
		PATH=/usr/bin:/bin "$CUDA_XCC" doctor --sysroot "$SR" > "$BATS_TEST_TMPDIR/clean" || true
	run grep '^ok  *foreign-cuda  *no other CUDA' "$BATS_TEST_TMPDIR/clean"
	assert_status 0
	CUDA_HOME=$f LIBRARY_PATH=$f/lib64/stubs PATH=$f/bin:$PATH run "$CUDA_XCC" doctor --sysroot "$SR"
	l=$(line_of foreign-cuda)
	[[ "$l" == "ok "* ]]
	[[ "$l" == *"CUDA_HOME=$f;"* ]]
	[[ "$l" == *"PATH holds $f/bin;"* ]]
	[[ "$l" == *"LIBRARY_PATH holds $f/lib64/stubs"* ]]
	CPATH=$f/include run "$CUDA_XCC" doctor --sysroot "$SR"
	assert_status 1
	l=$(line_of foreign-cuda)
	[[ "$l" == "FAIL "* ]]
	[[ "$l" == *"CPATH holds $f/include"* ]]
	# the sysroot's own directories are no other CUDA
	env -u CUDA_HOME -u LIBRARY_PATH PATH=/usr/bin:/bin CPATH=$SR/targets/aarch64-linux/include CUDA_PATH=$SR \
		"$CUDA_XCC" doctor --sysroot "$SR" > "$BATS_TEST_TMPDIR/own" || true
	run grep -c 'foreign-cuda.*another CUDA' "$BATS_TEST_TMPDIR/own"
	assert_output_equals 0
}

@test "doctor: cross-g++ knows CUDA 11.x's limits and says when a limit is unverified" {
	need aarch64-linux-gnu-g++-12
	# CUDA 11.4 takes gcc up to 10: the check names that, not "does not know".
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.4
	[[ "$(line_of cross-g++)" != *"does not know which host compilers"* ]]
	if command -v aarch64-linux-gnu-g++-10 >/dev/null; then
		[[ "$(line_of cross-g++)" == "ok "*"(gcc 10), accepted by CUDA 11.4"* ]]
	else
		[[ "$(line_of cross-g++)" == "FAIL "*"that CUDA 11.4 accepts (gcc 6 to 10)"* ]]
	fi
	# CUDA 13.4's limits are unverified in the tables: said, not ok.
	run "$CUDA_XCC" doctor --target sbsa --cuda 13.4
	[[ "$(line_of cross-g++)" == "skip "*"which gcc CUDA 13.4 accepts is unverified"* ]]
}

@test "doctor: every check it prints has its row in doc/run-and-doctor.md" {
	local checks name
	checks=$("$CUDA_XCC" doctor --json 2>/dev/null | python3 -c 'import json, sys; print("\n".join(c["check"] for c in json.load(sys.stdin)["checks"]))')
	[ -n "$checks" ]
	while read -r name; do
		grep -qF "| \`$name\` |" "$XCC_SRCDIR/doc/run-and-doctor.md" ||
			{ echo "doc/run-and-doctor.md has no row for doctor's $name check" >&2; false; }
	done <<<"$checks"
}
