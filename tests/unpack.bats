#!/usr/bin/env bats
# Extraction and identification of real packages built at test time: .debs
# made by dpkg-deb, wheels made by python3's zipfile, redist archives made
# by tar, and hostile archives made by python3's tarfile and zipfile. Driven
# through the internal `cuda-test_tool unpack|identify` commands.

load lib/common

setup() {
	S=$(scratch)
	mkdir -p "$S/canary"
	echo keep >"$S/canary/keep"
}

# The canary next to the destination holds its one file, unchanged, and
# nothing new appeared next to it.
canary_intact() {
	[ "$(ls -A "$S/canary")" = keep ] || { ls -la "$S/canary" >&2; return 1; }
	[ "$(cat "$S/canary/keep")" = keep ]
	[ ! -e "$S/evil" ]
	[ ! -e /tmp/cuda-xcc-unpack-evil ]
}

make_deb() { # DIR COMPRESSION OUT
	dpkg-deb -Z"$2" --root-owner-group --build "$1" "$3" >/dev/null
}

toolkit_tree() {
	local d="$S/pkg"
	mkdir -p "$d/DEBIAN" "$d/usr/lib/nvidia-cuda-toolkit/bin" "$d/usr/include" "$d/etc"
	cat >"$d/DEBIAN/control" <<-EOF
	Package: nvidia-cuda-toolkit
	Version: 11.8.89~11.8.0-5~deb12u1
	Architecture: amd64
	Maintainer: Test <test@example.org>
	Description: test package
	 built by unpack.bats
	EOF
	cp "$(type -P true)" "$d/usr/lib/nvidia-cuda-toolkit/bin/nvcc"
	chmod 0755 "$d/usr/lib/nvidia-cuda-toolkit/bin/nvcc"
	echo 'int cuda;' >"$d/usr/include/cuda.h"
	chmod 0644 "$d/usr/include/cuda.h"
	echo 'PATH += x' >"$d/etc/nvcc.profile"
	ln -s /etc/nvcc.profile "$d/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile"
	ln -s ../../../include "$d/usr/lib/nvidia-cuda-toolkit/bin/inc"
}

@test "a real .deb (xz, zstd, gzip, none): identified from its control file and unpacked" {
	need dpkg-deb "building .deb packages"
	toolkit_tree
	for z in xz zstd gzip none; do
		make_deb "$S/pkg" $z "$S/t-$z.deb"
		run test_tool identify "$S/t-$z.deb"
		assert_status 0
		assert_output_equals "$(printf 'kind deb\nname nvidia-cuda-toolkit\nversion 11.8.89~11.8.0-5~deb12u1\nmachine x86_64')"
		mkdir "$S/d-$z"
		run test_tool unpack --skip usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile \
			"$S/t-$z.deb" "$S/d-$z"
		assert_status 0
		assert_output_equals "files 3 bytes $(( $(stat -c %s "$S/pkg/usr/lib/nvidia-cuda-toolkit/bin/nvcc") + 10 + 10 )) skipped 1"
		cmp "$S/d-$z/usr/lib/nvidia-cuda-toolkit/bin/nvcc" "$S/pkg/usr/lib/nvidia-cuda-toolkit/bin/nvcc"
		[ "$(stat -c %a "$S/d-$z/usr/lib/nvidia-cuda-toolkit/bin/nvcc")" = 755 ]
		[ "$(stat -c %a "$S/d-$z/usr/include/cuda.h")" = 644 ]
		[ "$(readlink "$S/d-$z/usr/lib/nvidia-cuda-toolkit/bin/inc")" = ../../../include ]
		[ ! -e "$S/d-$z/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile" ]
		[ ! -e "$S/d-$z/DEBIAN" ]
		[ ! -e "$S/d-$z/control" ]
	done
}

@test "a .deb's absolute symlink is refused with its name unless the map skips it" {
	need dpkg-deb "building .deb packages"
	toolkit_tree
	make_deb "$S/pkg" xz "$S/t.deb"
	mkdir "$S/d"
	run test_tool unpack "$S/t.deb" "$S/d"
	assert_status 1
	assert_output_contains "member usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile refused: a symlink to the absolute path /etc/nvcc.profile"
}

@test "arm64 and all .debs" {
	need dpkg-deb "building .deb packages"
	mkdir -p "$S/a/DEBIAN" "$S/a/usr/lib/aarch64-linux-gnu"
	printf 'Package: libcudart11.0\nVersion: 11.8.89~11.8.0-5~deb12u1\nArchitecture: arm64\nMaintainer: T <t@e.org>\nDescription: t\n' >"$S/a/DEBIAN/control"
	echo x >"$S/a/usr/lib/aarch64-linux-gnu/libcudart.so.11.0"
	make_deb "$S/a" xz "$S/a.deb"
	run test_tool identify "$S/a.deb"
	assert_output_contains "machine aarch64"
	sed -i 's/^Architecture: .*/Architecture: all/' "$S/a/DEBIAN/control"
	make_deb "$S/a" xz "$S/all.deb"
	run test_tool identify "$S/all.deb"
	assert_output_contains "machine all"
}

@test "truncated and corrupt packages are errors that name the file" {
	need dpkg-deb "building .deb packages"
	toolkit_tree
	head -c 50000000 /dev/zero >"$S/pkg/usr/include/big.h" # compresses to little
	head -c 200000 /dev/urandom >"$S/pkg/usr/include/noise.h"
	make_deb "$S/pkg" xz "$S/t.deb"
	head -c $(( $(stat -c %s "$S/t.deb") - 1000 )) "$S/t.deb" >"$S/trunc.deb"
	mkdir "$S/d"
	run test_tool unpack --skip usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile "$S/trunc.deb" "$S/d"
	assert_status 1
	assert_output_contains "$S/trunc.deb"
	echo 'not a package' >"$S/text.deb"
	run test_tool identify "$S/text.deb"
	assert_status 1
	assert_output_contains "$S/text.deb"
}

wheel() { # OUT TAG NAME SO-FILE
	python3 - "$@" <<-'EOF'
	import sys, zipfile
	out, tag, name, so = sys.argv[1:5]
	with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
	    z.writestr("nvidia/__init__.py", "")
	    if so:
	        info = zipfile.ZipInfo("nvidia/cuda_runtime/lib/libcudart.so.12")
	        info.external_attr = 0o100755 << 16
	        z.writestr(info, open(so, "rb").read(), zipfile.ZIP_DEFLATED)
	    z.writestr("nvidia/cuda_runtime/include/cuda_runtime.h", "int rt;\n")
	    di = "nvidia_cuda_runtime_cu12-12.4.127.dist-info/"
	    z.writestr(di + "METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 12.4.127\n\nlong text\n")
	    z.writestr(di + "WHEEL", f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: {tag}\n")
	    z.writestr(di + "RECORD", "")
	EOF
}

@test "real wheels: machine from the platform tag, or from the ELF inside a py3-none-any one" {
	need python3 "building wheels"
	need gcc "a real x86_64 shared object"
	need aarch64-linux-gnu-gcc "a real aarch64 shared object"
	echo 'int f(void) { return 1; }' >"$S/f.c"
	gcc -shared -fPIC -o "$S/x86.so" "$S/f.c"
	aarch64-linux-gnu-gcc -shared -fPIC -o "$S/arm.so" "$S/f.c"

	wheel "$S/x.whl" py3-none-manylinux2014_x86_64 nvidia-cuda-runtime-cu12 "$S/x86.so"
	run test_tool identify "$S/x.whl"
	assert_status 0
	assert_output_equals "$(printf 'kind wheel\nname nvidia_cuda_runtime_cu12\nversion 12.4.127\nmachine x86_64')"

	wheel "$S/a.whl" py3-none-manylinux_2_17_aarch64 nvidia-cuda-runtime-cu12 "$S/arm.so"
	run test_tool identify "$S/a.whl"
	assert_output_contains "machine aarch64"

	wheel "$S/any-arm.whl" py3-none-any nvidia-cuda-runtime-cu12 "$S/arm.so"
	run test_tool identify "$S/any-arm.whl"
	assert_output_contains "machine aarch64"
	wheel "$S/any-x86.whl" py3-none-any nvidia-cuda-runtime-cu12 "$S/x86.so"
	run test_tool identify "$S/any-x86.whl"
	assert_output_contains "machine x86_64"
	wheel "$S/pure.whl" py3-none-any nvidia-cuda-runtime-cu12 ""
	run test_tool identify "$S/pure.whl"
	assert_output_contains "machine all"

	mkdir "$S/d"
	run test_tool unpack "$S/a.whl" "$S/d"
	assert_status 0
	cmp "$S/d/nvidia/cuda_runtime/lib/libcudart.so.12" "$S/arm.so"
	[ "$(stat -c %a "$S/d/nvidia/cuda_runtime/lib/libcudart.so.12")" = 755 ]
	[ -f "$S/d/nvidia_cuda_runtime_cu12-12.4.127.dist-info/WHEEL" ]
}

@test "a redist archive made by tar: identified, and unpacked like tar -xJf does" {
	need gcc "a real x86_64 ELF"
	need aarch64-linux-gnu-gcc "a real aarch64 ELF"
	top=libcublas-linux-sbsa-12.4.5.8-archive
	mkdir -p "$S/src/$top/lib" "$S/src/$top/include" "$S/src/$top/bin"
	echo 'int f(void) { return 1; }' >"$S/f.c"
	aarch64-linux-gnu-gcc -shared -fPIC -o "$S/src/$top/lib/libcublas.so.12.4.5.8" "$S/f.c"
	ln -s libcublas.so.12.4.5.8 "$S/src/$top/lib/libcublas.so.12"
	ln -s libcublas.so.12 "$S/src/$top/lib/libcublas.so"
	echo '#define CUBLAS 1' >"$S/src/$top/include/cublas.h"
	chmod 0640 "$S/src/$top/include/cublas.h"
	printf '#!/bin/sh\necho hi\n' >"$S/src/$top/bin/tool"
	chmod 0755 "$S/src/$top/bin/tool"
	tar -C "$S/src" -cJf "$S/$top.tar.xz" "$top"

	run test_tool identify "$S/$top.tar.xz"
	assert_status 0
	assert_output_equals "$(printf 'kind redist\nname libcublas\nversion 12.4.5.8\nmachine aarch64')"

	mkdir "$S/ours" "$S/tars"
	run test_tool unpack "$S/$top.tar.xz" "$S/ours"
	assert_status 0
	tar -C "$S/tars" -xJf "$S/$top.tar.xz"
	diff -r --no-dereference "$S/ours" "$S/tars"
	[ "$(cd "$S/ours" && find . -mindepth 1 -printf '%p %m %y %l %T@\n' | sort)" = \
	  "$(cd "$S/tars" && find . -mindepth 1 -printf '%p %m %y %l %T@\n' | sort)" ]

	# An unusual platform tag: the ELF files say what machine it is for.
	odd=thing-linux-riscv99-1.0-archive
	mkdir -p "$S/src/$odd/lib"
	gcc -shared -fPIC -o "$S/src/$odd/lib/libthing.so" "$S/f.c"
	tar -C "$S/src" -cJf "$S/$odd.tar.xz" "$odd"
	run test_tool identify "$S/$odd.tar.xz"
	assert_output_equals "$(printf 'kind redist\nname thing\nversion 1.0\nmachine x86_64')"
}

# Hostile tar members from python3's tarfile; each archive must be refused
# with nothing written outside the destination.
hostile_tar() { # OUT CASE
	python3 - "$@" <<-'EOF'
	import io, sys, tarfile
	out, case = sys.argv[1:3]
	def member(t, name, kind=tarfile.REGTYPE, data=b"evil\n", link="", mode=0o644):
	    ti = tarfile.TarInfo(name)
	    ti.type, ti.linkname, ti.mode = kind, link, mode
	    ti.size = len(data) if kind == tarfile.REGTYPE else 0
	    t.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
	with tarfile.open(out, "w:xz", format=tarfile.GNU_FORMAT) as t:
	    if case == "absolute":
	        member(t, "/tmp/cuda-xcc-unpack-evil")
	    elif case == "dotdot":
	        member(t, "ok/../../evil")
	    elif case == "symlink-out":
	        member(t, "up", tarfile.SYMTYPE, link="../canary")
	        member(t, "up/evil")
	    elif case == "symlink-via-dir":
	        member(t, "here", tarfile.SYMTYPE, link=".")
	        member(t, "here/up", tarfile.SYMTYPE, link="../canary")
	        member(t, "here/up/evil")
	    elif case == "hardlink-out":
	        member(t, "h", tarfile.LNKTYPE, link="../canary/keep")
	    elif case == "hardlink-abs":
	        member(t, "h", tarfile.LNKTYPE, link="/etc/passwd")
	    elif case == "device":
	        member(t, "null", tarfile.CHRTYPE)
	    elif case == "fifo":
	        member(t, "fifo", tarfile.FIFOTYPE)
	    elif case == "setuid":
	        member(t, "su", mode=0o4755)
	EOF
}

@test "hostile tar members are refused and nothing is written outside" {
	need python3 "building hostile archives"
	while read -r case needle; do
		hostile_tar "$S/$case.tar.xz" "$case"
		mkdir "$S/d-$case"
		run test_tool unpack "$S/$case.tar.xz" "$S/d-$case"
		[ "$status" -eq 1 ] || { echo "$case: status $status: $output" >&2; return 1; }
		assert_output_contains "$needle"
		canary_intact
	done <<-'EOF'
	absolute member /tmp/cuda-xcc-unpack-evil refused: an absolute path
	dotdot member ok/../../evil refused: a path with ..
	symlink-out member up refused: its target ../canary leads outside the destination
	symlink-via-dir member here/up refused: its target ../canary leads outside
	hardlink-out member h refused: a hard link to ../canary/keep
	hardlink-abs member h refused: a hard link to /etc/passwd
	device member null refused: a device node
	fifo member fifo refused: a FIFO
	setuid member su refused: a file with the setuid bit
	EOF
}

@test "hostile zip members are refused too" {
	need python3 "building hostile archives"
	python3 - "$S/evil.whl" <<-'EOF'
	import sys, zipfile
	with zipfile.ZipFile(sys.argv[1], "w") as z:
	    z.writestr("pkg/ok.txt", "ok\n")
	    z.writestr("../evil", "evil\n")
	EOF
	mkdir "$S/d"
	run test_tool unpack "$S/evil.whl" "$S/d"
	assert_status 1
	assert_output_contains "member ../evil refused: a path with .."
	canary_intact
}

@test "unpack reports progress in archive bytes up to the archive's size" {
	mkdir -p "$S/src/x-linux-x86_64-1-archive"
	head -c 3000000 /dev/urandom >"$S/src/x-linux-x86_64-1-archive/blob"
	tar -C "$S/src" -cJf "$S/x.tar.xz" x-linux-x86_64-1-archive
	mkdir "$S/d"
	run test_tool unpack --progress --strip 1 "$S/x.tar.xz" "$S/d"
	assert_status 0
	assert_output_contains "progress $(stat -c %s "$S/x.tar.xz")"
	assert_output_contains "files 1 bytes 3000000 skipped 1"
	cmp "$S/d/blob" "$S/src/x-linux-x86_64-1-archive/blob"
}

@test "multi-block xz (as Debian's data.tar.xz): same tree as tar, in a .tar.xz and in a .deb" {
	need xz "making multi-block xz"
	need ar "assembling a .deb"
	top=cuda_nvcc-linux-x86_64-1.0-archive
	mkdir -p "$S/src/$top/bin" "$S/src/$top/lib"
	for i in 1 2 3 4; do
		head -c 200000 /dev/urandom >"$S/src/$top/lib/lib$i.so"
		seq 1 20000 >"$S/src/$top/bin/text$i"
	done
	tar -C "$S/src" -cf - "$top" | xz -T2 --block-size=65536 >"$S/$top.tar.xz"
	[ "$(xz -lv "$S/$top.tar.xz" | awk '/^ +Blocks:/ { print $2; exit }')" -gt 10 ]
	mkdir "$S/ours" "$S/tars"
	run test_tool unpack "$S/$top.tar.xz" "$S/ours"
	assert_status 0
	tar -C "$S/tars" -xJf "$S/$top.tar.xz"
	diff -r "$S/ours" "$S/tars"

	# The same data as a .deb's data.tar.xz.
	mkdir "$S/deb" "$S/fromdeb"
	printf '2.0\n' >"$S/deb/debian-binary"
	printf 'Package: p\nVersion: 1\nArchitecture: amd64\n' >"$S/deb/control"
	tar -C "$S/deb" -cJf "$S/deb/control.tar.xz" ./control
	tar -C "$S/src" -cf - "$top" | xz -T2 --block-size=65536 >"$S/deb/data.tar.xz"
	(cd "$S/deb" && ar rc "$S/p.deb" debian-binary control.tar.xz data.tar.xz)
	run test_tool unpack "$S/p.deb" "$S/fromdeb"
	assert_status 0
	diff -r "$S/fromdeb" "$S/tars"

	# On one CPU, libarchive's own single-threaded xz reader does it.
	if command -v taskset >/dev/null; then
		mkdir "$S/one" "$S/onedeb"
		run taskset -c 0 "$XCC_TEST_TOOL" unpack "$S/$top.tar.xz" "$S/one"
		assert_status 0
		diff -r "$S/one" "$S/tars"
		run taskset -c 0 "$XCC_TEST_TOOL" unpack "$S/p.deb" "$S/onedeb"
		assert_status 0
		diff -r "$S/onedeb" "$S/tars"
	fi

	# A damaged block in the middle is an error naming the archive.
	cp "$S/$top.tar.xz" "$S/bad.tar.xz"
	size=$(stat -c %s "$S/bad.tar.xz")
	printf '\x55\xaa\x55\xaa' | dd of="$S/bad.tar.xz" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	mkdir "$S/bad"
	run test_tool unpack "$S/bad.tar.xz" "$S/bad"
	assert_status 1
	assert_output_contains "$S/bad.tar.xz"
}

@test "single-block .tar.xz, decoded on a thread ahead of the tar reader: damage in the middle, or a member refused while it reads ahead, is an error naming the archive, never a hang" {
	need xz "making the archive"
	need python3 "building a hostile archive"
	top=x-linux-x86_64-1-archive
	mkdir -p "$S/src/$top"
	seq 1 3000000 >"$S/src/$top/big.txt" # 20 MB: many of the decoder's slots
	tar -C "$S/src" -cf - "$top" | xz -1 >"$S/good.tar.xz"
	[ "$(xz -lv "$S/good.tar.xz" | awk '/^ +Blocks:/ { print $2; exit }')" = 1 ]
	mkdir "$S/ok"
	run timeout 120 "$XCC_TEST_TOOL" unpack "$S/good.tar.xz" "$S/ok"
	assert_status 0
	cmp "$S/ok/$top/big.txt" "$S/src/$top/big.txt"

	# Damage half-way: LZMA2 chunks check their sizes, so it shows there.
	cp "$S/good.tar.xz" "$S/bad.tar.xz"
	size=$(stat -c %s "$S/bad.tar.xz")
	printf '\x55\xaa\x55\xaa' | dd of="$S/bad.tar.xz" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	mkdir "$S/bad"
	run timeout 120 "$XCC_TEST_TOOL" unpack "$S/bad.tar.xz" "$S/bad"
	assert_status 1
	assert_output_contains "$S/bad.tar.xz: corrupt xz data"

	# A member refused after 20 MB, with as much after it: the reader stops
	# while the decoder waits for free slots, and is stopped in turn.
	python3 - "$S/src/$top/big.txt" "$S/evil.tar.xz" <<-'PY'
	import io, lzma, sys, tarfile
	data = open(sys.argv[1], "rb").read()
	with tarfile.open(sys.argv[2], "w:xz", preset=1) as t:
	    for name in ("top/big.txt", "top/../../evil", "top/after.txt"):
	        ti = tarfile.TarInfo(name)
	        ti.size = len(data)
	        t.addfile(ti, io.BytesIO(data))
	PY
	mkdir "$S/refused"
	run timeout 120 "$XCC_TEST_TOOL" unpack "$S/evil.tar.xz" "$S/refused"
	assert_status 1
	assert_output_contains "member top/../../evil refused: a path with .."
	[ ! -e "$S/refused/top/after.txt" ]
	canary_intact
}

@test "a .deb's multi-block data.tar.xz: the blocks only skipped members occupy are not decoded" {
	need xz "making multi-block xz"
	need ar "assembling a .deb"
	mkdir -p "$S/src/usr/lib" "$S/deb"
	seq 1 2000 >"$S/src/usr/lib/first.txt"
	head -c 4000000 /dev/urandom >"$S/src/usr/lib/big.bin"
	seq 1 3000 >"$S/src/usr/lib/last.txt"
	printf '2.0\n' >"$S/deb/debian-binary"
	printf 'Package: p\nVersion: 1\nArchitecture: amd64\n' >"$S/deb/control"
	tar -C "$S/deb" -cJf "$S/deb/control.tar.xz" ./control
	tar -C "$S/src" -cf - ./usr/lib/first.txt ./usr/lib/big.bin ./usr/lib/last.txt |
		xz --block-size=65536 >"$S/deb/data.tar.xz"
	(cd "$S/deb" && ar rc "$S/good.deb" debian-binary control.tar.xz data.tar.xz)
	# Damage a block in the middle of big.bin's data (the middle of the stream).
	size=$(stat -c %s "$S/deb/data.tar.xz")
	printf '\x55\xaa\x55\xaa' | dd of="$S/deb/data.tar.xz" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	(cd "$S/deb" && ar rc "$S/bad.deb" debian-binary control.tar.xz data.tar.xz)
	# Taking everything decodes everything: the damage is found.
	mkdir "$S/all"
	run test_tool unpack "$S/bad.deb" "$S/all"
	assert_status 1
	assert_output_contains "$S/bad.deb"
	# Skipping big.bin never decodes its blocks; the members around it are whole.
	mkdir "$S/some" "$S/ref"
	run test_tool unpack --skip usr/lib/big.bin "$S/bad.deb" "$S/some"
	assert_status 0
	[ ! -e "$S/some/usr/lib/big.bin" ]
	cmp "$S/some/usr/lib/first.txt" "$S/src/usr/lib/first.txt"
	cmp "$S/some/usr/lib/last.txt" "$S/src/usr/lib/last.txt"
	# The undamaged package gives the same files, and big.bin whole when asked.
	run test_tool unpack "$S/good.deb" "$S/ref"
	assert_status 0
	diff -r "$S/ref" "$S/src"
}

@test "two archives with the same files unpacked into one tree at the same time both succeed" {
	top=x-linux-x86_64-1-archive
	mkdir -p "$S/src/$top/include/sub"
	for i in $(seq 200); do echo "int v$i;" >"$S/src/$top/include/sub/h$i.h"; done
	ln -s sub "$S/src/$top/include/alias"
	tar -C "$S/src" -cJf "$S/a.tar.xz" "$top"
	for round in 1 2 3; do
		mkdir "$S/d$round"
		"$XCC_TEST_TOOL" unpack "$S/a.tar.xz" "$S/d$round" >"$S/out1" 2>&1 &
		p1=$!
		"$XCC_TEST_TOOL" unpack "$S/a.tar.xz" "$S/d$round" >"$S/out2" 2>&1 &
		p2=$!
		wait $p1 || { cat "$S/out1" >&2; return 1; }
		wait $p2 || { cat "$S/out2" >&2; return 1; }
		diff -r "$S/src" "$S/d$round"
	done
}

# Modes and owners as extracted: one line per entry, "MODE UID:GID PATH".
modes_of() {
	(cd "$1" && find . -mindepth 1 -printf '%m %U:%G %p\n' | sort -k3)
}

# A tree packed with world-writable members owned by someone else; the
# python3 tarfile sets modes and owners exactly as given.
loose_tar() { # OUT
	python3 - "$1" <<-'EOF'
	import io, sys, tarfile
	def member(t, name, kind=tarfile.REGTYPE, mode=0o644, data=b""):
	    ti = tarfile.TarInfo(name)
	    ti.type, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = kind, mode, 4242, 4343, "someone", "others"
	    ti.size = len(data) if kind == tarfile.REGTYPE else 0
	    t.addfile(ti, io.BytesIO(data) if data else None)
	with tarfile.open(sys.argv[1], "w:xz") as t:
	    member(t, "top", tarfile.DIRTYPE, 0o777)
	    member(t, "top/open", tarfile.DIRTYPE, 0o1777)
	    member(t, "top/open/ww.h", mode=0o666, data=b"int x;\n")
	    member(t, "top/tool", mode=0o777, data=b"#!/bin/sh\n")
	    member(t, "top/gw.so", mode=0o775, data=b"so")
	    member(t, "top/private", mode=0o600, data=b"p")
	    member(t, "top/ro", mode=0o444, data=b"r")
	EOF
}

# What loose_tar's members must become, owned by whoever extracted them.
loose_expected() { # PREFIX
	local me p=$1
	me="$(id -u):$(id -g)"
	printf '%s\n' "755 $me ./$p" "755 $me ./$p/gw.so" "755 $me ./$p/open" \
		"644 $me ./$p/open/ww.h" "600 $me ./$p/private" "444 $me ./$p/ro" \
		"755 $me ./$p/tool"
}

@test "permissions: a tar's world- and group-writable members lose those bits, keep x, and no owner is kept" {
	need python3 "building archives with chosen modes and owners"
	loose_tar "$S/loose.tar.xz"
	mkdir "$S/d"
	run test_tool unpack "$S/loose.tar.xz" "$S/d"
	assert_status 0
	[ "$(modes_of "$S/d")" = "$(loose_expected top)" ] || { diff <(modes_of "$S/d") <(loose_expected top) >&2; return 1; }
	[ -z "$(find "$S/d" -perm /022)" ]
}

@test "permissions: a .deb's world-writable members lose the write bits, keep x, and no owner is kept" {
	need python3 "building archives with chosen modes and owners"
	need ar "assembling a .deb"
	mkdir "$S/deb" "$S/d"
	printf '2.0\n' >"$S/deb/debian-binary"
	printf 'Package: p\nVersion: 1\nArchitecture: amd64\n' >"$S/deb/control"
	tar -C "$S/deb" -cJf "$S/deb/control.tar.xz" ./control
	loose_tar "$S/deb/data.tar.xz"
	(cd "$S/deb" && ar rc "$S/p.deb" debian-binary control.tar.xz data.tar.xz)
	run test_tool unpack "$S/p.deb" "$S/d"
	assert_status 0
	[ "$(modes_of "$S/d")" = "$(loose_expected top)" ] || { diff <(modes_of "$S/d") <(loose_expected top) >&2; return 1; }
	# dpkg-deb's own packing of a 0777 tree, owned by another user
	need dpkg-deb "building .deb packages"
	mkdir -p "$S/pkg/DEBIAN" "$S/pkg/usr/bin" "$S/d2"
	printf 'Package: q\nVersion: 1\nArchitecture: amd64\nMaintainer: T <t@example.org>\nDescription: d\n x\n' >"$S/pkg/DEBIAN/control"
	printf '#!/bin/sh\n' >"$S/pkg/usr/bin/tool"
	chmod 0777 "$S/pkg/usr" "$S/pkg/usr/bin" "$S/pkg/usr/bin/tool"
	if [ "$(id -u)" = 0 ]; then chown -R 4242:4343 "$S/pkg/usr"; fi
	dpkg-deb -Zxz --build "$S/pkg" "$S/q.deb" >/dev/null
	run test_tool unpack "$S/q.deb" "$S/d2"
	assert_status 0
	[ "$(stat -c '%a %u' "$S/d2/usr/bin/tool")" = "755 $(id -u)" ]
	[ "$(stat -c '%a %u' "$S/d2/usr/bin")" = "755 $(id -u)" ]
	[ -z "$(find "$S/d2" -perm /022)" ]
}

@test "permissions: a wheel's world-writable members lose the write bits, keep x, and no owner is kept" {
	need python3 "building wheels with chosen modes and owners"
	python3 - "$S/loose.whl" <<-'EOF'
	import struct, sys, zipfile
	# Info-ZIP's "ux" extra field: a Unix owner 4242:4343.
	owner = struct.pack("<HHBBIBI", 0x7875, 11, 1, 4, 4242, 4, 4343)
	def add(z, name, mode, data=b""):
	    info = zipfile.ZipInfo(name)
	    info.external_attr = mode << 16
	    info.create_system = 3
	    info.extra = owner
	    z.writestr(info, data)
	with zipfile.ZipFile(sys.argv[1], "w") as z:
	    add(z, "top/", 0o40777)
	    add(z, "top/open/", 0o41777)
	    add(z, "top/open/ww.h", 0o100666, b"int x;\n")
	    add(z, "top/tool", 0o100777, b"#!/bin/sh\n")
	    add(z, "top/gw.so", 0o100775, b"so")
	    add(z, "top/private", 0o100600, b"p")
	    add(z, "top/ro", 0o100444, b"r")
	EOF
	mkdir "$S/d"
	run test_tool unpack "$S/loose.whl" "$S/d"
	assert_status 0
	[ "$(modes_of "$S/d")" = "$(loose_expected top)" ] || { diff <(modes_of "$S/d") <(loose_expected top) >&2; return 1; }
}

@test "expansion bound: a member past --max-bytes is refused before it is written; many empty files count too" {
	need python3 "building archives"
	python3 - "$S" <<-'EOF'
	import io, sys, tarfile, zipfile
	d = sys.argv[1]
	# 20 MB of zeros in a few KB of xz
	with tarfile.open(d + "/zeros.tar.xz", "w:xz") as t:
	    ti = tarfile.TarInfo("top/small.h"); ti.size = 100
	    t.addfile(ti, io.BytesIO(b"x" * 100))
	    ti = tarfile.TarInfo("top/zeros.bin"); ti.size = 20 << 20
	    t.addfile(ti, io.BytesIO(bytes(20 << 20)))
	# the same zeros in a zip written as a stream: no size before the data
	class Stream(io.RawIOBase):
	    def __init__(self, f): self.f = f
	    def writable(self): return True
	    def write(self, b): return self.f.write(b)
	with open(d + "/zeros.whl", "wb") as f, zipfile.ZipFile(Stream(f), "w", zipfile.ZIP_DEFLATED) as z:
	    with z.open("top/zeros.bin", "w") as m:
	        for _ in range(20):
	            m.write(bytes(1 << 20))
	# 5000 empty files
	with tarfile.open(d + "/empty.tar.xz", "w:xz") as t:
	    for i in range(5000):
	        t.addfile(tarfile.TarInfo(f"top/e{i}"), io.BytesIO(b""))
	EOF
	mkdir "$S/a" "$S/b" "$S/c" "$S/d"
	run test_tool unpack --max-bytes 10000000 "$S/zeros.tar.xz" "$S/a"
	assert_status 1
	assert_output_contains "$S/zeros.tar.xz: refused: it expands to more than 10.0 MB (at member top/zeros.bin); (test-tool unpack --max-bytes)"
	[ ! -e "$S/a/top/zeros.bin" ]
	mkdir "$S/w"
	run test_tool unpack --max-bytes 10000000 "$S/zeros.whl" "$S/w"
	assert_status 1
	assert_output_contains "refused: it expands to more than 10.0 MB (at member top/zeros.bin)"
	[ ! -e "$S/w/top/zeros.bin" ]
	run test_tool unpack --max-bytes 30000000 "$S/zeros.tar.xz" "$S/b"
	assert_status 0
	[ "$(stat -c %s "$S/b/top/zeros.bin")" = $((20 << 20)) ]
	# each empty file is 1 KiB, as dpkg counts Installed-Size
	run test_tool unpack --max-bytes 4000000 "$S/empty.tar.xz" "$S/c"
	assert_status 1
	assert_output_contains "refused: it expands to more than 4.0 MB"
	run test_tool unpack --max-bytes 6000000 "$S/empty.tar.xz" "$S/d"
	assert_status 0
}
