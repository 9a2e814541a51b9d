#!/usr/bin/env bats
# cuda-xcc autopatch: dependency resolution per architecture on trees of
# fixtures compiled at test time.
load lib/common

setup_file() {
	sh "$XCC_SRCDIR/tests/fixtures/elf-fixtures.sh" "$BATS_FILE_TMPDIR/fx"
}

fx() {
	local f=$BATS_FILE_TMPDIR/fx/$1
	[ -e "$f" ] || skip "fixture $1 could not be built here"
	echo "$f"
}

# A tree like a sysroot half: bin/ programs, lib/ libraries.
a64_tree() {
	local t=$1
	mkdir -p "$t/bin" "$t/lib"
	cp "$(fx a64/prog)" "$(fx a64/cxx)" "$t/bin/"
	cp "$(fx a64/lib/libgreet.so.1)" "$t/lib/"
	ln -s libgreet.so.1 "$t/lib/libgreet.so"
}

x86_tree() {
	local t=$1
	mkdir -p "$t/bin" "$t/lib"
	cp "$(fx x86/prog)" "$t/bin/"
	cp "$(fx x86/lib/libgreet.so.1)" "$t/lib/"
}

runpath_of() { xcc patchelf --print-rpath "$1"; }

@test "autopatch: the seed's case: aarch64 libstdc++ and libgcc_s come from the cross toolchain" {
	need aarch64-linux-gnu-gcc "the cross toolchain provides the target's libstdc++"
	need qemu-aarch64 "to run the result"
	local s
	s=$(scratch)
	a64_tree "$s/t"
	# even with the build machine's x86_64 libraries offered, they are never taken
	run xcc autopatch "$s/t" --libs /usr/lib/x86_64-linux-gnu --cross-prefix aarch64-linux-gnu- \
		--verbose
	assert_status 0
	assert_output_contains "provided: $s/t/bin/cxx needs libstdc++.so.6: /usr/aarch64-linux-gnu/lib/libstdc++.so.6"
	assert_output_contains "provided: $s/t/bin/cxx needs libgcc_s.so.1: /usr/aarch64-linux-gnu/lib/libgcc_s.so.1"
	[[ "$output" != *"x86_64-linux-gnu/libstdc++"* ]]
	[[ "$output" != *"x86_64-linux-gnu/libgcc_s"* ]]
	# the toolchain's dir is the build machine's: never written
	run runpath_of "$s/t/bin/cxx"
	[[ "$output" != *"/usr/"* ]]
	run runpath_of "$s/t/bin/prog"
	assert_output_equals '$ORIGIN/../lib'
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$s/t/bin/cxx"
	assert_output_equals "hello c++"
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$s/t/bin/prog"
	assert_output_equals "hello greet"
}

@test "autopatch: without the target's libstdc++ each miss is one line naming file, library, arch, dirs" {
	local s
	s=$(scratch)
	a64_tree "$s/t"
	run xcc autopatch "$s/t" --libs /usr/lib/x86_64-linux-gnu
	assert_status 1
	assert_output_contains "missing: $s/t/bin/cxx needs libstdc++.so.6 (aarch64), searched $s/t/bin:$s/t:/usr/lib/x86_64-linux-gnu"
	assert_output_contains "missing: $s/t/bin/cxx needs libgcc_s.so.1 (aarch64)"
	assert_output_contains "2 dependencies did not resolve"
	[ "$(grep -c '^missing: ' <<< "$output")" -eq 2 ]
}

@test "autopatch: --ignore-missing globs turn misses into ignored lines" {
	local s
	s=$(scratch)
	a64_tree "$s/t"
	run xcc autopatch "$s/t" --ignore-missing 'libstdc++*' --ignore-missing 'libgcc_s.so.?'
	assert_status 0
	assert_output_contains "missing (ignored): $s/t/bin/cxx needs libstdc++.so.6 (aarch64)"
	run xcc autopatch "$s/t" --ignore-missing 'libstdc++*'
	assert_status 1
	assert_output_contains "1 dependency did not resolve"
}

@test "autopatch: RUNPATHs are \$ORIGIN-relative: the tree can be moved and still runs" {
	local s
	s=$(scratch)
	x86_tree "$s/t"
	run xcc autopatch "$s/t"
	assert_status 0
	run runpath_of "$s/t/bin/prog"
	assert_output_equals '$ORIGIN/../lib'
	mv "$s/t" "$s/moved"
	run "$s/moved/bin/prog"
	assert_status 0
	assert_output_equals "hello greet"
}

@test "autopatch: an aarch64 tree runs under qemu after being moved" {
	need qemu-aarch64 "to run aarch64 programs"
	local s
	s=$(scratch)
	a64_tree "$s/t"
	rm "$s/t/bin/cxx"
	xcc autopatch "$s/t"
	mv "$s/t" "$s/elsewhere"
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$s/elsewhere/bin/prog"
	assert_output_equals "hello greet"
}

@test "autopatch: each file resolves against its own architecture only" {
	local s
	s=$(scratch)
	mkdir -p "$s/t/x86/bin" "$s/t/x86/lib" "$s/t/a64/bin" "$s/t/a64/lib"
	cp "$(fx x86/prog)" "$s/t/x86/bin/"
	cp "$(fx a64/prog)" "$s/t/a64/bin/"
	# each arch's library in the OTHER arch's dir first, so a name-only match would be wrong
	cp "$(fx x86/lib/libgreet.so.1)" "$s/t/a64/lib/"
	cp "$(fx a64/lib/libgreet.so.1)" "$s/t/x86/lib/"
	run xcc autopatch "$s/t"
	assert_status 0
	run runpath_of "$s/t/x86/bin/prog"
	assert_output_equals '$ORIGIN/../../a64/lib'
	run runpath_of "$s/t/a64/bin/prog"
	assert_output_equals '$ORIGIN/../../x86/lib'
	run "$s/t/x86/bin/prog"
	assert_output_equals "hello greet"
}

@test "autopatch: existing \$ORIGIN entries are kept, build-machine paths dropped, --append-rpath added" {
	local s
	s=$(scratch)
	x86_tree "$s/t"
	xcc patchelf --set-rpath "\$ORIGIN/plugins:/home/builder/lib" "$s/t/bin/prog"
	run xcc autopatch "$s/t" --append-rpath /usr/local/cuda/lib64
	assert_status 0
	run runpath_of "$s/t/bin/prog"
	assert_output_equals '$ORIGIN/../lib:$ORIGIN/plugins:/usr/local/cuda/lib64'
}

@test "autopatch: libraries outside the tree are provided, never written; libc and libcuda always provided" {
	local s
	s=$(scratch)
	mkdir -p "$s/t/bin" "$s/outside"
	cp "$(fx x86/prog)" "$s/t/bin/"
	cp "$(fx x86/lib/libgreet.so.1)" "$s/outside/"
	xcc patchelf --add-needed libcuda.so.1 "$s/t/bin/prog"
	run xcc autopatch "$s/t" --libs "$s/outside" --verbose
	assert_status 0
	assert_output_contains "needs libgreet.so.1: $s/outside/libgreet.so.1"
	assert_output_contains "needs libcuda.so.1: driver"
	assert_output_contains "needs libc.so.6: target C library"
	run runpath_of "$s/t/bin/prog"
	assert_output_equals ""
}

@test "autopatch: --target-fs provides the device's system libraries" {
	local s
	s=$(scratch)
	a64_tree "$s/t"
	mkdir -p "$s/rootfs/usr/lib/aarch64-linux-gnu"
	[ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || skip "no aarch64 libstdc++ to build a rootfs from"
	cp -L /usr/aarch64-linux-gnu/lib/libstdc++.so.6 /usr/aarch64-linux-gnu/lib/libgcc_s.so.1 \
		"$s/rootfs/usr/lib/aarch64-linux-gnu/"
	run xcc autopatch "$s/t" --target-fs "$s/rootfs" --verbose
	assert_status 0
	assert_output_contains "needs libstdc++.so.6: $s/rootfs/usr/lib/aarch64-linux-gnu/libstdc++.so.6"
	run runpath_of "$s/t/bin/cxx"
	assert_output_equals ""
}

@test "autopatch: --target-fs's absolute links are followed inside that root" {
	local s
	s=$(scratch)
	a64_tree "$s/t"
	mkdir -p "$s/rootfs/usr/lib/aarch64-linux-gnu/real" "$s/rootfs/lib"
	[ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || skip "no aarch64 libstdc++ to build a rootfs from"
	cp -L /usr/aarch64-linux-gnu/lib/libstdc++.so.6 /usr/aarch64-linux-gnu/lib/libgcc_s.so.1 \
		"$s/rootfs/usr/lib/aarch64-linux-gnu/real/"
	# As a board's root has them: on this machine they name nothing (or the wrong file).
	ln -s /usr/lib/aarch64-linux-gnu/real/libstdc++.so.6 "$s/rootfs/usr/lib/aarch64-linux-gnu/libstdc++.so.6"
	ln -s /usr/lib/aarch64-linux-gnu/real/libgcc_s.so.1 "$s/rootfs/usr/lib/aarch64-linux-gnu/libgcc_s.so.1"
	run xcc autopatch "$s/t" --target-fs "$s/rootfs" --verbose
	assert_status 0
	assert_output_contains "needs libstdc++.so.6: $s/rootfs/usr/lib/aarch64-linux-gnu/libstdc++.so.6"
	# A link that names nothing inside the root either provides nothing.
	rm "$s/rootfs/usr/lib/aarch64-linux-gnu/real/libstdc++.so.6"
	run xcc autopatch "$s/t" --target-fs "$s/rootfs" --verbose
	assert_status 1
	assert_output_contains "libstdc++.so.6"
}

@test "autopatch: static, non-ELF, symlinks, debug files and libnvvm are left alone" {
	local s
	s=$(scratch)
	x86_tree "$s/t"
	cp "$(fx x86/hello-static)" "$s/t/bin/"
	mkdir -p "$s/t/bin/crt" "$s/t/nvvm/lib64"
	echo "not elf" > "$s/t/bin/crt/link.stub"
	echo "TOP = \$(_HERE_)/.." > "$s/t/bin/nvcc.profile"
	ln -s ../lib/libgreet.so.1 "$s/t/bin/link-to-lib"
	ln -s does-not-exist "$s/t/lib/libdangling.so"
	cp "$(fx x86/prog)" "$s/t/nvvm/lib64/libnvvm.so"
	if command -v objcopy >/dev/null; then
		objcopy --only-keep-debug "$(fx x86/prog)" "$s/t/bin/prog.debug"
	fi
	sums=$(cd "$s/t" && find . -type f ! -path ./bin/prog -exec sha256sum {} + | sort)
	run xcc autopatch "$s/t" --verbose --ignore-missing libgreet.so.1
	assert_status 0
	assert_output_contains "skipped: $s/t/bin/hello-static (static executable)"
	assert_output_contains "skipped: $s/t/bin/crt/link.stub (not ELF)"
	assert_output_contains "skipped: $s/t/bin/nvcc.profile (not ELF)"
	assert_output_contains "skipped: $s/t/lib/libdangling.so (dangling symlink)"
	assert_output_contains "note: dangling symlink: $s/t/lib/libdangling.so -> does-not-exist"
	assert_output_contains "$s/t/nvvm/lib64/libnvvm.so (libnvvm"
	if [ -e "$s/t/bin/prog.debug" ]; then
		assert_output_contains "skipped: $s/t/bin/prog.debug (separate debug file)"
	fi
	[ "$(cd "$s/t" && find . -type f ! -path ./bin/prog -exec sha256sum {} + | sort)" = "$sums" ]
}

@test "autopatch: a library we must not patch gets its dependencies through DT_RPATH" {
	need gcc
	local s
	s=$(scratch)
	mkdir -p "$s/t/bin" "$s/t/lib" "$s/t/nvvm/lib64"
	cp "$(fx x86/lib/libgreet.so.1)" "$s/t/lib/"
	printf 'const char *greet(void);\nconst char *nv(void) { return greet(); }\n' > "$s/nv.c"
	printf '#include <stdio.h>\nconst char *nv(void);\nint main(void) { puts(nv()); return 0; }\n' > "$s/m.c"
	gcc -shared -fPIC "$s/nv.c" -o "$s/t/nvvm/lib64/libnvvm.so.4" -L"$s/t/lib" -l:libgreet.so.1 \
		-Wl,-soname,libnvvm.so.4
	gcc "$s/m.c" -o "$s/t/bin/tool" -L"$s/t/nvvm/lib64" -l:libnvvm.so.4 -Wl,-rpath-link,"$s/t/lib"
	run xcc autopatch "$s/t"
	assert_status 0
	readelf -dW "$s/t/bin/tool" | grep -q '(RPATH).*\$ORIGIN/../nvvm/lib64:\$ORIGIN/../lib'
	mv "$s/t" "$s/t2"
	run "$s/t2/bin/tool"
	assert_output_equals "greet"
}

@test "autopatch: --dry-run reports and writes nothing; a second run changes nothing" {
	local s
	s=$(scratch)
	x86_tree "$s/t"
	sum=$(sha256sum < "$s/t/bin/prog")
	run xcc autopatch "$s/t" --dry-run
	assert_status 1
	assert_output_contains "would patch: $s/t/bin/prog (x86_64): RUNPATH \$ORIGIN/../lib"
	assert_output_contains "note: $s/t/bin/prog needs libgreet.so.1 from $s/t/lib, which its run path does not reach"
	assert_output_contains "1 needed library is in the tree but not on the run path"
	[ "$(sha256sum < "$s/t/bin/prog")" = "$sum" ]
	xcc autopatch "$s/t"
	sum=$(sha256sum < "$s/t/bin/prog")
	run xcc autopatch "$s/t"
	assert_output_contains "0 patched, 2 unchanged"
	[ "$(sha256sum < "$s/t/bin/prog")" = "$sum" ]
	run xcc autopatch "$s/t" --dry-run
	assert_status 0
	# verify after a move inside the tree: the run path no longer reaches it
	mkdir -p "$s/t/lib64"
	mv "$s/t/lib/libgreet.so.1" "$s/t/lib64/"
	run xcc autopatch "$s/t" --dry-run
	assert_status 1
	assert_output_contains "needs libgreet.so.1 from $s/t/lib64, which its run path does not reach"
	mv "$s/t/lib64/libgreet.so.1" "$s/t/lib/"
	# verify after damage: the library went away
	rm "$s/t/lib/libgreet.so.1"
	run xcc autopatch "$s/t" --dry-run
	assert_status 1
	assert_output_contains "missing: $s/t/bin/prog needs libgreet.so.1 (x86_64)"
}

@test "autopatch: --json report" {
	need python3 "to parse the JSON"
	local s
	s=$(scratch)
	a64_tree "$s/t"
	run xcc autopatch "$s/t" --json
	assert_status 1
	python3 -c '
import json, sys
r = json.loads(sys.argv[1].split("\ncuda-xcc:")[0])
miss = sorted(m["library"] for m in r["missing"])
assert miss == ["libgcc_s.so.1", "libstdc++.so.6"], miss
assert all(m["arch"] == "aarch64" and not m["ignored"] for m in r["missing"])
patched = [f for f in r["files"] if f["action"] == "patched"]
assert patched and patched[0]["new_rpath"] == "$ORIGIN/../lib", patched
' "$output"
}

@test "autopatch: usage errors" {
	run xcc autopatch
	assert_status 2
	run xcc autopatch /nonexistent/tree
	assert_status 2
	assert_output_contains "/nonexistent/tree"
	run xcc autopatch . --libs /nonexistent/libs
	assert_status 2
	run xcc autopatch . --cross-prefix no-such-triple-
	assert_status 2
	assert_output_contains "no-such-triple-gcc"
	run xcc autopatch --frob
	assert_status 2
}
