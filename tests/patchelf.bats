#!/usr/bin/env bats
# cuda-xcc patchelf: patchelf's interface on fixtures compiled at test time.
load lib/common

setup_file() {
	sh "$XCC_SRCDIR/tests/fixtures/elf-fixtures.sh" "$BATS_FILE_TMPDIR/fx"
}

# Copy fixture REL into the scratch dir (and its lib/ next to it); print the copy's path.
fixture() {
	local src=$BATS_FILE_TMPDIR/fx/$1 s
	[ -e "$src" ] || skip "fixture $1 could not be built here (${2:-compiler missing})"
	s=$(scratch)
	mkdir -p "$s/$(dirname "$1")"
	cp -a "$src" "$s/$1"
	if [ -d "$(dirname "$src")/lib" ]; then
		cp -a "$(dirname "$src")/lib" "$s/$(dirname "$1")/"
	fi
	echo "$s/$1"
}

size_of() { stat -c %s "$1"; }

# The program headers' alignment of the last PT_LOAD.
last_load_align() { readelf -lW "$1" | awk '$1 == "LOAD" { a = $NF } END { print a }'; }

lint_ok() {
	command -v eu-elflint >/dev/null 2>&1 || return 0
	run eu-elflint --gnu-ld "$1"
	if [ "$status" -ne 0 ]; then
		echo "eu-elflint --gnu-ld $1:" >&2
		echo "$output" >&2
		return 1
	fi
}

# eu-elflint finds nothing new in PATCHED that it did not find in ORIG.
lint_same() {
	command -v eu-elflint >/dev/null 2>&1 || return 0
	local before after
	before=$(eu-elflint --gnu-ld "$1" 2>&1 | sed "s|$1|FILE|g")
	after=$(eu-elflint --gnu-ld "$2" 2>&1 | sed "s|$2|FILE|g")
	if [ "$before" != "$after" ]; then
		echo "eu-elflint: $2 differs from $1:" >&2
		diff <(echo "$before") <(echo "$after") >&2
		return 1
	fi
}

@test "patchelf: print options agree with Debian's patchelf on every fixture" {
	need patchelf "the reference implementation"
	local n=0
	for f in x86/prog x86/prog-rpath x86/hello x86/hello-nopie x86/hello-static x86/libfat.so \
		x86/lib/libgreet.so.1 a64/prog a64/cxx a64/lib/libgreet.so.1 lib32.so libbe.so; do
		[ -e "$BATS_FILE_TMPDIR/fx/$f" ] || continue
		for opt in --print-needed --print-rpath --print-soname --print-interpreter; do
			want=$(patchelf "$opt" "$BATS_FILE_TMPDIR/fx/$f" 2>/dev/null) && wrc=0 || wrc=$?
			got=$(xcc patchelf "$opt" "$BATS_FILE_TMPDIR/fx/$f" 2>/dev/null) && grc=0 || grc=$?
			if [ "$want" != "$got" ] || [ "$wrc" -ne "$grc" ]; then
				echo "$f $opt: patchelf said '$want' ($wrc), we said '$got' ($grc)" >&2
				return 1
			fi
			n=$((n + 1))
		done
	done
	[ "$n" -ge 20 ]
}

@test "patchelf: several files and several print options in one call" {
	local fx=$BATS_FILE_TMPDIR/fx
	[ -e "$fx/x86/prog" ] || skip "no x86_64 fixtures"
	run xcc patchelf --print-soname --print-needed "$fx/x86/lib/libgreet.so.1" "$fx/x86/prog"
	assert_status 0
	assert_output_equals "libgreet.so.1
libgreet.so.1
libc.so.6"
}

@test "patchelf: installed as cuda-xcc-patchelf it is patchelf" {
	local s
	s=$(scratch)
	ln -s "$CUDA_XCC" "$s/cuda-xcc-patchelf"
	[ -e "$BATS_FILE_TMPDIR/fx/x86/prog" ] || skip "no x86_64 fixtures"
	run "$s/cuda-xcc-patchelf" --print-needed "$BATS_FILE_TMPDIR/fx/x86/prog"
	assert_status 0
	assert_output_contains "libgreet.so.1"
	run "$s/cuda-xcc-patchelf" --version
	assert_output_contains "patchelf 0."
}

@test "patchelf: usage errors exit 2" {
	run xcc patchelf --print-needed
	assert_status 2
	run xcc patchelf --frobnicate x
	assert_status 2
	assert_output_contains "unknown option"
	run xcc patchelf --set-rpath
	assert_status 2
	run xcc patchelf --output o a b
	assert_status 2
	run xcc patchelf --page-size 1000 x
	assert_status 2
	run xcc patchelf --set-os-abi plan9 x
	assert_status 2
}

@test "patchelf: set-interpreter, shorter in place, longer by growing; both run" {
	local f
	f=$(fixture x86/hello)
	sz=$(size_of "$f")
	xcc patchelf --set-interpreter /lib64/ld-linux-x86-64.so.2 "$f"
	[ "$(size_of "$f")" -eq "$sz" ]
	xcc patchelf --set-interpreter /lib/x86_64-linux-gnu/../x86_64-linux-gnu/ld-linux-x86-64.so.2 "$f"
	run xcc patchelf --print-interpreter "$f"
	assert_output_equals "/lib/x86_64-linux-gnu/../x86_64-linux-gnu/ld-linux-x86-64.so.2"
	[ "$(size_of "$f")" -gt "$sz" ]
	run "$f"
	assert_status 0
	assert_output_equals "hello"
	lint_ok "$f"
}

@test "patchelf: set-interpreter on a non-PIE executable runs" {
	local f
	f=$(fixture x86/hello-nopie)
	xcc patchelf --set-interpreter /lib/x86_64-linux-gnu/../x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		--set-rpath /nowhere/at/all/but/long/enough "$f"
	run "$f"
	assert_output_equals "hello"
	lint_ok "$f"
}

@test "patchelf: set-rpath that fits is written in place" {
	local f
	f=$(fixture x86/prog-rpath)
	sz=$(size_of "$f")
	xcc patchelf --set-rpath '$ORIGIN/lib' "$f"
	[ "$(size_of "$f")" -eq "$sz" ]
	run xcc patchelf --print-rpath "$f"
	assert_output_equals '$ORIGIN/lib'
	run "$f"
	assert_status 0
	assert_output_equals "hello greet"
	lint_ok "$f"
}

@test "patchelf: set-rpath beyond the string table grows the file by little, and runs" {
	local f
	f=$(fixture x86/prog)
	sz=$(size_of "$f")
	rp='$ORIGIN/lib:/opt/a/rather/long/directory/that/cannot/fit/in/the/old/table'
	xcc patchelf --set-rpath "$rp" "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals "$rp"
	run "$f"
	assert_status 0
	assert_output_equals "hello greet"
	lint_ok "$f"
	# one page (4 KiB on x86_64) plus the new data
	[ "$(size_of "$f")" -le $((sz + 4096 + 4096)) ]
	readelf -dW "$f" | grep -q '(RUNPATH)'
}

@test "patchelf: a library grows by the new data only, and device-code sections never move" {
	local f
	f=$(fixture x86/libfat.so)
	before=$(readelf -SW "$f" | grep -E '\.nv_fatbin|\.nvFatBinSegment' | awk '{print $2, $4, $5}')
	[ -n "$before" ]
	sz=$(size_of "$f")
	xcc patchelf --set-rpath '$ORIGIN/../a/long/enough/path/to/need/a/new/string/table' \
		--add-needed libextra.so.7 --set-soname libfat-renamed.so.1 "$f"
	after=$(readelf -SW "$f" | grep -E '\.nv_fatbin|\.nvFatBinSegment' | awk '{print $2, $4, $5}')
	[ "$before" = "$after" ]
	[ "$(size_of "$f")" -le $((sz + 1024)) ]
	lint_ok "$f"
	run xcc patchelf --print-soname --print-needed "$f"
	assert_output_contains "libfat-renamed.so.1"
	assert_output_contains "libextra.so.7"
}

@test "patchelf: real CUDA libraries stay valid, loadable, fatbin in place" {
	local lib=/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13 s
	[ -e "$lib" ] || skip "no CUDA 13 at /usr/local/cuda"
	need python3 "to dlopen the result"
	s=$(scratch)
	cp "$lib" "$s/libcudart.so.13"
	before=$(readelf -SW "$s/libcudart.so.13" | grep -E 'nv_fatbin|nvFatBin' | awk '{print $2, $4, $5}')
	sz=$(size_of "$s/libcudart.so.13")
	xcc patchelf --set-rpath '$ORIGIN:/opt/some/where/else' "$s/libcudart.so.13"
	after=$(readelf -SW "$s/libcudart.so.13" | grep -E 'nv_fatbin|nvFatBin' | awk '{print $2, $4, $5}')
	[ "$before" = "$after" ]
	[ "$(size_of "$s/libcudart.so.13")" -le $((sz + 4096 + 65536)) ]
	lint_same "$lib" "$s/libcudart.so.13"
	python3 -c "import ctypes; ctypes.CDLL('$s/libcudart.so.13')"
}

# A library exporting SYM with run path RPATH, and a program that calls it;
# in $s. The linker merges the symbol's name into the run path's string
# when the name is its tail.
shared_string_pair() {
	local sym=$1 rpath=$2
	need cc "to build the library"
	s=$(scratch)
	printf 'int %s(void){return 42;}\n' "$sym" >"$s/lib.c"
	cc -shared -fPIC -o "$s/libshared.so" "$s/lib.c" -Wl,-soname,libshared.so \
		${rpath:+-Wl,-rpath="$rpath"}
	printf 'int %s(void); int main(void){return %s() == 42 ? 0 : 3;}\n' "$sym" "$sym" >"$s/m.c"
	cc -o "$s/m" "$s/m.c" -L"$s" -lshared
	LD_LIBRARY_PATH=$s "$s/m"
}

# The program still finds its symbol, and the library lints clean.
shared_string_intact() {
	local sym=$1
	run env LD_LIBRARY_PATH="$s" "$s/m"
	assert_status 0
	nm -D --defined-only "$s/libshared.so" | grep -qw "$sym"
	lint_ok "$s/libshared.so"
}

@test "patchelf: a run path equal to a symbol's name is never rewritten in place" {
	local s
	shared_string_pair foo ""
	xcc patchelf --set-rpath foo "$s/libshared.so"
	xcc patchelf --set-rpath bar "$s/libshared.so"
	run xcc patchelf --print-rpath "$s/libshared.so"
	assert_output_equals "bar"
	shared_string_intact foo
	# and a run path equal to the library's soname
	xcc patchelf --set-rpath libshared.so "$s/libshared.so"
	xcc patchelf --set-rpath /x "$s/libshared.so"
	run xcc patchelf --print-soname "$s/libshared.so"
	assert_output_equals "libshared.so"
	shared_string_intact foo
}

@test "patchelf: a shorter run path whose old string ends in a symbol's name appends" {
	local s
	shared_string_pair xccname /opt/xccname
	readelf -p .dynstr "$s/libshared.so" | grep -q '/opt/xccname'
	readelf -p .dynstr "$s/libshared.so" | grep -qE '\]  xccname$' && false
	xcc patchelf --set-rpath /a "$s/libshared.so"
	run xcc patchelf --print-rpath "$s/libshared.so"
	assert_output_equals "/a"
	shared_string_intact xccname
}

@test "patchelf: shrink-rpath leaves a symbol that shares the run path's string alone" {
	local s
	shared_string_pair xccname /opt/xccname
	xcc patchelf --shrink-rpath "$s/libshared.so"
	run xcc patchelf --print-rpath "$s/libshared.so"
	assert_output_equals ""
	shared_string_intact xccname
	# an unshared run path is still shrunk in place
	cc -shared -fPIC -o "$s/libshared.so" "$s/lib.c" -Wl,-rpath=/opt/elsewhere
	sz=$(size_of "$s/libshared.so")
	xcc patchelf --shrink-rpath "$s/libshared.so"
	[ "$(size_of "$s/libshared.so")" -eq "$sz" ]
	shared_string_intact xccname
}

@test "patchelf: add-rpath appends, force-rpath writes DT_RPATH, remove-rpath removes" {
	local f
	f=$(fixture x86/prog)
	xcc patchelf --set-rpath /first "$f"
	xcc patchelf --add-rpath '$ORIGIN/lib' "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals '/first:$ORIGIN/lib'
	readelf -dW "$f" | grep -q '(RUNPATH)'
	xcc patchelf --force-rpath --set-rpath '$ORIGIN/lib' "$f"
	readelf -dW "$f" | grep -q '(RPATH)'
	readelf -dW "$f" | grep -q '(RUNPATH)' && false
	run "$f"
	assert_output_equals "hello greet"
	xcc patchelf --remove-rpath "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals ""
	readelf -dW "$f" | grep -qE '\((RPATH|RUNPATH)\)' && false
	lint_ok "$f"
}

@test "patchelf: shrink-rpath keeps directories that provide a library, and allowed prefixes" {
	local f d
	f=$(fixture x86/prog)
	d=$(dirname "$f")
	mkdir -p "$d/empty" "$d/other"
	cp "$d/lib/libgreet.so.1" "$d/other/"
	xcc patchelf --set-rpath "$d/empty:$d/lib:\$ORIGIN/x:$d/other" "$f"
	xcc patchelf --shrink-rpath "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals "$d/lib:\$ORIGIN/x"
	xcc patchelf --set-rpath "$d/empty:$d/lib:$d/other" "$f"
	xcc patchelf --shrink-rpath --allowed-rpath-prefixes "$d/other" "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals "$d/other"
	lint_ok "$f"
}

@test "patchelf: shrink-rpath ignores a library of another machine" {
	local f d
	f=$(fixture x86/prog)
	d=$(dirname "$f")
	[ -e "$BATS_FILE_TMPDIR/fx/a64/lib/libgreet.so.1" ] || skip "no aarch64 fixtures"
	mkdir -p "$d/arm"
	cp "$BATS_FILE_TMPDIR/fx/a64/lib/libgreet.so.1" "$d/arm/"
	xcc patchelf --set-rpath "$d/arm:$d/lib" "$f"
	xcc patchelf --shrink-rpath "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals "$d/lib"
}

@test "patchelf: add-needed, remove-needed, replace-needed (with symbol versions)" {
	local f d
	f=$(fixture x86/prog)
	d=$(dirname "$f")
	cp "$d/lib/libgreet.so.1" "$d/lib/libgreet-renamed.so"
	xcc patchelf --set-rpath '$ORIGIN/lib' --replace-needed libgreet.so.1 libgreet-renamed.so \
		--add-needed libm.so.6 "$f"
	run xcc patchelf --print-needed "$f"
	assert_output_equals "libm.so.6
libgreet-renamed.so
libc.so.6"
	run "$f"
	assert_output_equals "hello greet"
	lint_ok "$f"
	# the version requirements name the renamed file too
	readelf -VW "$f" | grep -q 'File: libc.so.6'
	xcc patchelf --replace-needed libc.so.6 libc.so.6 --remove-needed libm.so.6 "$f"
	run xcc patchelf --print-needed "$f"
	assert_output_equals "libgreet-renamed.so
libc.so.6"
	run "$f"
	assert_output_equals "hello greet"
}

@test "patchelf: replace-needed renames the version requirement's file" {
	local f
	f=$(fixture x86/hello)
	xcc patchelf --replace-needed libc.so.6 /lib/x86_64-linux-gnu/libc.so.6 "$f"
	readelf -VW "$f" | grep -q 'File: /lib/x86_64-linux-gnu/libc.so.6'
	run "$f"
	assert_output_equals "hello"
	lint_ok "$f"
}

@test "patchelf: set-soname and print-soname; no-default-lib sets DF_1_NODEFLIB" {
	local f
	f=$(fixture x86/lib/libgreet.so.1)
	xcc patchelf --set-soname libgreet.so.42 "$f"
	run xcc patchelf --print-soname "$f"
	assert_output_equals "libgreet.so.42"
	xcc patchelf --no-default-lib "$f"
	readelf -dW "$f" | grep -E 'FLAGS_1' | grep -q NODEFLIB
	lint_ok "$f"
}

@test "patchelf: print, set and clear the executable stack; add-debug-tag; no-sort; clear-symbol-version" {
	local f lib
	f=$(fixture x86/prog)
	cp "$f" "$f.orig"
	run xcc patchelf --print-execstack "$f"
	assert_output_equals "execstack: -"
	xcc patchelf --set-execstack "$f"
	run xcc patchelf --print-execstack "$f"
	assert_output_equals "execstack: X"
	readelf -lW "$f" | grep GNU_STACK | grep -q RWE
	xcc patchelf --clear-execstack "$f"
	cmp "$f" "$f.orig"
	# the linker gives a program its DT_DEBUG: the program stays as it is,
	# the library it loads gets one
	xcc patchelf --no-sort --add-debug-tag "$f"
	cmp "$f" "$f.orig"
	lib=$(dirname "$f")/lib/libgreet.so.1
	readelf -dW "$lib" | grep -q '(DEBUG)' && false
	xcc patchelf --no-sort --add-debug-tag "$lib"
	readelf -dW "$lib" | grep -q '(DEBUG)'
	lint_ok "$lib"
	readelf --dyn-syms -W "$f" | grep -q ' printf@GLIBC'
	xcc patchelf --clear-symbol-version printf "$f"
	readelf --dyn-syms -W "$f" | grep -q ' printf@' && false
	readelf --dyn-syms -W "$f" | grep -q ' printf$'
	run env LD_LIBRARY_PATH="$(dirname "$f")/lib" "$f"
	assert_output_equals "hello greet"
	lint_ok "$f"
}

# A library with 300 functions and data, two symbol versions (one name at
# both) and a program that uses them, built with --hash-style=STYLE in DIR.
build_many_syms() {
	local dir=$1 style=$2 i
	mkdir -p "$dir"
	{
		for i in $(seq 1 300); do echo "int f$i(int x) { return x + $i; }"; done
		echo 'int counter = 7;'
		echo 'int old_api(void) { return 1; }'
		echo 'int new_api(void) { return 2; }'
		echo '__asm__(".symver old_api,api@V1");'
		echo '__asm__(".symver new_api,api@@V2");'
	} >"$dir/lib.c"
	printf 'V1 { global: f*; counter; api; local: *; };\nV2 { } V1;\n' >"$dir/lib.map"
	{
		echo '#include <stdio.h>'
		for i in $(seq 1 300); do echo "int f$i(int);"; done
		echo 'extern int counter; int api(void);'
		echo 'int main(void) { int s = counter + api();'
		for i in $(seq 1 300); do echo "s = f$i(s);"; done
		echo 'printf("%d\n", s); return 0; }'
	} >"$dir/main.c"
	gcc -shared -fPIC -Wl,--hash-style="$style" -Wl,--version-script="$dir/lib.map" \
		-Wl,-soname,libmany.so -o "$dir/libmany.so" "$dir/lib.c"
	gcc -Wl,--hash-style="$style" -o "$dir/main" "$dir/main.c" -L"$dir" -lmany
}

# The dynamic symbols of FILE, name@version, sorted.
dyn_syms() { nm -D "$1" | awk '{ print $NF }' | sort; }

@test "patchelf: rename-dynamic-symbols keeps hash tables, versions and relocations right; the program runs" {
	local s style
	need gcc "the test builds its own library"
	s=$(scratch)
	for style in gnu sysv both; do
		build_many_syms "$s/$style" "$style"
		cd "$s/$style"
		cp libmany.so libmany.so.orig
		cp main main.orig
		nm -D --defined-only libmany.so | awk '{ print $NF }' | cut -d@ -f1 | sort -u |
			awk '{ print $1, $1 "_renamed" }' >map
		nm -D --defined-only libmany.so | awk '{ print $NF }' | cut -d@ -f1 | sort -u |
			awk '{ print $1 "_renamed", $1 }' >rmap
		grep -qx 'f17 f17_renamed' map
		xcc patchelf --rename-dynamic-symbols map libmany.so main
		run env LD_LIBRARY_PATH=. LD_BIND_NOW=1 ./main
		assert_status 0
		assert_output_equals 45159
		run env LD_LIBRARY_PATH=. ./main
		assert_output_equals 45159
		nm -D libmany.so | grep -q ' f17_renamed@@V1$'
		nm -D libmany.so | grep -q ' api_renamed@V1$'
		nm -D libmany.so | grep -q ' api_renamed@@V2$'
		nm -D main | grep -q ' f300_renamed@V1$'
		nm -D main | grep -q ' f300@' && false
		readelf -rW main | grep -q 'counter_renamed'
		lint_ok libmany.so
		lint_ok main
		# the other program, not renamed, no longer finds its symbols
		run env LD_LIBRARY_PATH=. LD_BIND_NOW=1 ./main.orig
		assert_status 127
		# and renaming back gives the original symbols
		xcc patchelf --rename-dynamic-symbols rmap libmany.so main
		[ "$(dyn_syms libmany.so)" = "$(dyn_syms libmany.so.orig)" ]
		[ "$(dyn_syms main)" = "$(dyn_syms main.orig)" ]
		run env LD_LIBRARY_PATH=. LD_BIND_NOW=1 ./main.orig
		assert_output_equals 45159
		lint_ok libmany.so
		cd - >/dev/null
	done
}

@test "patchelf: rename-dynamic-symbols: a map naming nothing here changes nothing; bad maps exit 2" {
	local f
	f=$(fixture x86/lib/libgreet.so.1)
	cp "$f" "$f.orig"
	echo "NO_SUCH_SYMBOL OTHER" >"$f.map"
	xcc patchelf --rename-dynamic-symbols "$f.map" "$f"
	cmp "$f" "$f.orig"
	xcc patchelf --set-rpath /changed --rename-dynamic-symbols "$f.map" "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals /changed
	printf 'greet\n' >"$f.map"
	run xcc patchelf --rename-dynamic-symbols "$f.map" "$f"
	assert_status 2
	assert_output_contains "$f.map:1:"
	printf 'greet a\ngreet b\n' >"$f.map"
	run xcc patchelf --rename-dynamic-symbols "$f.map" "$f"
	assert_status 2
	assert_output_contains "appears twice"
	printf 'greet greet@V1\n' >"$f.map"
	run xcc patchelf --rename-dynamic-symbols "$f.map" "$f"
	assert_status 2
	assert_output_contains "version tag"
	run xcc patchelf --rename-dynamic-symbols "$f.missing" "$f"
	assert_status 2
	assert_output_contains "$f.missing"
}

@test "patchelf: rename-dynamic-symbols on aarch64 runs under qemu" {
	local f
	need qemu-aarch64 "to run the aarch64 program"
	f=$(fixture a64/prog "aarch64 cross compiler missing")
	echo "greet greet_a64" >"$f.map"
	xcc patchelf --rename-dynamic-symbols "$f.map" "$f" "$(dirname "$f")"/lib/libgreet.so.1
	nm -D "$f" | grep -q ' greet_a64$'
	run qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_BIND_NOW=1 \
		-E LD_LIBRARY_PATH="$(dirname "$f")/lib" "$f"
	assert_output_equals "hello greet"
	lint_ok "$f"
}

@test "patchelf: @FILE reads an option's argument from FILE" {
	local f
	f=$(fixture x86/prog)
	printf '%s' '$ORIGIN/lib:/from/a/file' >"$f.arg"
	xcc patchelf --set-rpath "@$f.arg" "$f"
	run xcc patchelf --print-rpath "$f"
	assert_output_equals '$ORIGIN/lib:/from/a/file'
	run xcc patchelf --set-rpath "@$f.missing" "$f"
	assert_status 1
	assert_output_contains "$f.missing"
}

@test "patchelf: print-os-abi and set-os-abi" {
	local f
	f=$(fixture x86/hello)
	run xcc patchelf --print-os-abi "$f"
	assert_output_equals "System V"
	xcc patchelf --set-os-abi FreeBSD "$f"
	run xcc patchelf --print-os-abi "$f"
	assert_output_equals "FreeBSD"
	readelf -h "$f" | grep -q 'FreeBSD'
	xcc patchelf --set-os-abi linux "$f"
	run xcc patchelf --print-os-abi "$f"
	assert_output_equals "Linux"
	for abi in "System V" HP-UX NetBSD "GNU Hurd" Solaris AIX IRIX Tru64 OpenBSD OpenVMS; do
		xcc patchelf --set-os-abi "$abi" "$f"
		run xcc patchelf --print-os-abi "$f"
		assert_output_equals "$abi"
	done
	# a code patchelf has no name for prints as patchelf prints it
	xcc patchelf --set-os-abi standalone "$f"
	run xcc patchelf --print-os-abi "$f"
	assert_output_equals "0xFF"
}

@test "patchelf: a new segment follows the file's own larger LOAD alignment" {
	local s
	need cc "to build the library"
	s=$(scratch)
	printf 'int f(void){return 1;}\n' >"$s/f.c"
	cc -shared -fPIC -Wl,-z,max-page-size=0x10000 -o "$s/lib.so" "$s/f.c"
	[ "$(readelf -lW "$s/lib.so" | awk '$1 == "LOAD" { print $NF }' | sort -u)" = 0x10000 ]
	xcc patchelf --set-rpath "/a/run/path/long/enough/to/need/a/new/string/table/$(printf '%0100d' 0)" "$s/lib.so"
	[ "$(readelf -lW "$s/lib.so" | awk '$1 == "LOAD" { print $NF }' | sort -u)" = 0x10000 ]
	lint_ok "$s/lib.so"
	# --page-size still decides
	cc -shared -fPIC -Wl,-z,max-page-size=0x10000 -o "$s/lib.so" "$s/f.c"
	xcc patchelf --page-size 4096 --set-rpath "/b/$(printf '%0100d' 0)" "$s/lib.so"
	[ "$(last_load_align "$s/lib.so")" = 0x1000 ]
}

@test "patchelf: --output writes a new file and leaves the input alone" {
	local f
	f=$(fixture x86/prog)
	sum=$(sha256sum < "$f")
	chmod 750 "$f"
	xcc patchelf --set-rpath '$ORIGIN/lib:/and/something/longer/than/before' --output "$f.out" "$f"
	[ "$(sha256sum < "$f")" = "$sum" ]
	[ "$(stat -c %a "$f.out")" = 750 ]
	run "$f.out"
	assert_output_equals "hello greet"
	[ -z "$(ls -A "$(dirname "$f")" | grep '^\.prog')" ]
}

@test "patchelf: --output onto a FIFO writes into it and leaves it a FIFO" {
	local f s
	f=$(fixture x86/prog)
	s=$(dirname "$f")
	mkfifo "$s/pipe"
	timeout 60 cat "$s/pipe" >"$s/received" &
	xcc patchelf --set-rpath '$ORIGIN/lib:/and/something/longer/than/before' --output "$s/pipe" "$f"
	wait
	[ -p "$s/pipe" ]
	cp "$f" "$s/expected"
	xcc patchelf --set-rpath '$ORIGIN/lib:/and/something/longer/than/before' "$s/expected"
	cmp "$s/expected" "$s/received"
	# nothing to change: the file goes through as it is
	timeout 60 cat "$s/pipe" >"$s/received" &
	xcc patchelf --output "$s/pipe" "$f"
	wait
	cmp "$f" "$s/received"
	[ -p "$s/pipe" ]
	[ -z "$(ls -A "$s" | grep '^\.pipe')" ]
}

@test "patchelf: several files and several operations in one call" {
	local a b s
	a=$(fixture x86/prog)
	s=$(dirname "$a")
	b=$s/prog2
	cp "$a" "$b"
	xcc patchelf --set-rpath '$ORIGIN/lib:/a/longer/path/than/fits' --add-needed libm.so.6 \
		--set-interpreter /lib/x86_64-linux-gnu/../x86_64-linux-gnu/ld-linux-x86-64.so.2 "$a" "$b"
	for f in "$a" "$b"; do
		run "$f"
		assert_output_equals "hello greet"
		run xcc patchelf --print-needed "$f"
		assert_output_contains "libm.so.6"
		lint_ok "$f"
	done
}

@test "patchelf: patching twice changes nothing the second time" {
	local f
	f=$(fixture x86/prog)
	ops=(--set-rpath '$ORIGIN/lib:/opt/long/enough/to/grow/the/string/table' --add-needed libm.so.6
		--set-soname prog.so
		--set-interpreter /lib/x86_64-linux-gnu/../x86_64-linux-gnu/ld-linux-x86-64.so.2)
	xcc patchelf "${ops[@]}" "$f"
	cp "$f" "$f.once"
	xcc patchelf "${ops[@]}" "$f"
	cmp "$f" "$f.once"
	run "$f"
	assert_output_equals "hello greet"
}

@test "patchelf: aarch64 program runs under qemu with a new interpreter and rpath" {
	need qemu-aarch64 "to run aarch64 programs"
	local f
	f=$(fixture a64/prog)
	[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || skip "no aarch64 C library"
	sz=$(size_of "$f")
	xcc patchelf --set-interpreter /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 \
		--set-rpath '$ORIGIN/lib:/usr/aarch64-linux-gnu/lib' "$f"
	run qemu-aarch64 "$f"
	assert_status 0
	assert_output_equals "hello greet"
	lint_ok "$f"
	[ "$(last_load_align "$f")" = 0x10000 ]
	# the program headers grew where they are: no 64 KiB-page gap in the file
	[ "$(readelf -hW "$f" | awk '/Start of program headers/ { print $5 }')" = 64 ]
	[ "$(size_of "$f")" -le $((sz + 4096)) ]
}

@test "patchelf: aarch64 library grows by at most one 64 KiB page plus data; --page-size" {
	local f sz
	f=$(fixture a64/lib/libgreet.so.1)
	sz=$(size_of "$f")
	cp "$f" "$f.4k"
	xcc patchelf --set-rpath '$ORIGIN/a/path/long/enough/to/need/a/new/table' "$f"
	[ "$(size_of "$f")" -le $((sz + 65536 + 1024)) ]
	[ "$(last_load_align "$f")" = 0x10000 ]
	lint_ok "$f"
	xcc patchelf --page-size 4096 --set-rpath '$ORIGIN/a/path/long/enough/to/need/a/new/table' "$f.4k"
	[ "$(last_load_align "$f.4k")" = 0x1000 ]
	if command -v qemu-aarch64 >/dev/null; then
		local d
		d=$(dirname "$f")
		cp "$BATS_FILE_TMPDIR/fx/a64/prog" "$d/prog"
		run qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH="$d" "$d/prog"
		assert_output_equals "hello greet"
	fi
}

@test "patchelf: 32-bit and big-endian libraries" {
	local f
	for name in lib32.so libbe.so; do
		[ -e "$BATS_FILE_TMPDIR/fx/$name" ] || continue
		f=$(fixture "$name")
		xcc patchelf --set-rpath '$ORIGIN/a/long/path/for/a/new/string/table' \
			--add-needed libextra.so.3 --set-soname "$name.9" "$f"
		run xcc patchelf --print-rpath --print-soname --print-needed "$f"
		assert_output_equals "$name.9
\$ORIGIN/a/long/path/for/a/new/string/table
libextra.so.3"
		readelf -dW "$f" | grep -q 'libextra.so.3'
		if command -v patchelf >/dev/null; then
			[ "$(patchelf --print-rpath "$f")" = '$ORIGIN/a/long/path/for/a/new/string/table' ]
		fi
		[ "$name" = libbe.so ] || lint_ok "$f"
		done_one=1
	done
	[ -n "${done_one:-}" ] || skip "neither gcc -m32 nor clang for powerpc64 works here"
}

@test "patchelf: not-ELF, truncated and corrupt files: clear error, file untouched" {
	local s f
	[ -e "$BATS_FILE_TMPDIR/fx/x86/prog" ] || skip "no x86_64 fixtures"
	s=$(scratch)
	echo "not an elf" > "$s/text"
	run xcc patchelf --set-rpath /x "$s/text"
	assert_status 1
	assert_output_contains "not an ELF file"
	for n in 4 20 63 64 200 1000 3000; do
		head -c $n "$BATS_FILE_TMPDIR/fx/x86/prog" > "$s/trunc"
		sum=$(sha256sum < "$s/trunc")
		for op in --print-needed --print-rpath "--set-rpath /a/b/c/d/e/f/g/h/i/j/k/l/m/n"; do
			# shellcheck disable=SC2086
			run xcc patchelf $op "$s/trunc"
			assert_status 1
			assert_output_contains "cuda-xcc:"
		done
		[ "$(sha256sum < "$s/trunc")" = "$sum" ]
	done
	# garbage after a valid header: the program header table points nowhere
	cp "$BATS_FILE_TMPDIR/fx/x86/prog" "$s/bad"
	printf '\377\377\377\177' | dd of="$s/bad" bs=1 seek=32 conv=notrunc 2>/dev/null
	run xcc patchelf --print-needed "$s/bad"
	assert_status 1
	assert_output_contains "truncated or corrupt"
	run xcc patchelf --print-needed "$s/missing-file"
	assert_status 1
	assert_output_contains "No such file"
}

# Write BYTES (hex pairs) into FILE at OFFSET.
poke() {
	local file=$1 off=$2 hex=$3 esc=
	while [ -n "$hex" ]; do esc="$esc\\x${hex:0:2}"; hex=${hex:2}; done
	# shellcheck disable=SC2059
	printf "$esc" | dd of="$file" bs=1 seek="$off" conv=notrunc 2>/dev/null
}

# The offset of field BYTE of section NAME's header in the 64-bit FILE.
shdr_field() {
	local shoff idx
	shoff=$(readelf -hW "$1" | awk '/Start of section headers/ { print $5 }')
	idx=$(readelf -SW "$1" | sed -n "s/^ *\[ *\([0-9]*\)\] $2 .*/\1/p")
	echo $((shoff + idx * 64 + $3))
}

@test "patchelf: corrupt section headers: a message naming the problem, exit 1, file untouched" {
	local s orig f sum what
	orig=$(fixture x86/prog)
	s=$(dirname "$orig")
	for what in shentsize shoff shstrndx name nonterm empty-names outside link; do
		f=$s/$what
		cp "$orig" "$f"
		case $what in
		shentsize) poke "$f" 58 3000 ;;
		shoff) poke "$f" 40 ffffff7f00000000 ;;
		shstrndx) poke "$f" 62 f000 ;;
		name) poke "$f" "$(shdr_field "$f" .dynsym 0)" ffff0000 ;;
		nonterm)
			off=$(readelf -SW "$f" | awk '$2 == ".shstrtab" { print strtonum("0x" $5) + strtonum("0x" $6) - 1 }')
			poke "$f" "$off" 41 ;;
		empty-names) poke "$f" "$(shdr_field "$f" .shstrtab 32)" 0000000000000000 ;;
		outside) poke "$f" "$(shdr_field "$f" .comment 24)" 0000000001000000 ;;
		link) poke "$f" "$(shdr_field "$f" .dynsym 40)" 7f000000 ;;
		esac
		sum=$(sha256sum <"$f")
		for op in "--set-rpath /a/b/c/d/e/f/g/h/i/j/k/l/m/n" "--output $s/out" \
			--print-execstack; do
			# shellcheck disable=SC2086
			run xcc patchelf $op "$f"
			assert_status 1
			case $what in
			shentsize) assert_output_contains "e_shentsize is 48, not 64" ;;
			shoff) assert_output_contains "the section header table" ;;
			shstrndx) assert_output_contains "e_shstrndx 240" ;;
			name) assert_output_contains "name (offset 65535) lies past the end" ;;
			nonterm) assert_output_contains "does not end with a NUL" ;;
			empty-names) assert_output_contains "section name table" ;;
			outside) assert_output_contains "lies outside the file" ;;
			link) assert_output_contains "links to section 127" ;;
			esac
			assert_output_contains "section headers are corrupt"
		done
		[ "$(sha256sum <"$f")" = "$sum" ]
		[ ! -e "$s/out" ]
	done
}

# Edit the program headers of the 64-bit little-endian FILE as a hostile
# input would: WHAT is issue (the fuzzer's find of issue 26: the first
# PT_LOAD's p_memsz 0x6300000000000bec, an odd p_align, no PT_INTERP),
# memsz (that p_memsz alone, no PT_INTERP), align (an odd p_align alone),
# overflow (a first PT_LOAD that ends past 2^64) or hole (no PT_INTERP,
# and a last PT_LOAD 8 GiB larger in memory than in the file).
hostile_phdrs() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
path, what = sys.argv[1:3]
b = bytearray(open(path, "rb").read())
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
loads = []
for i in range(phnum):
    o = phoff + i * phentsize
    p_type, = struct.unpack_from("<I", b, o)
    if p_type == 3 and what in ("issue", "memsz", "hole"):
        struct.pack_into("<I", b, o, 0)  # PT_INTERP becomes PT_NULL
    if p_type == 1:
        loads.append(o)
if what in ("issue", "align"):
    struct.pack_into("<Q", b, loads[0] + 48, 0x1001)  # p_align
if what in ("issue", "memsz"):
    struct.pack_into("<Q", b, loads[0] + 40, 0x6300000000000bec)  # p_memsz
if what == "overflow":
    struct.pack_into("<Q", b, loads[0] + 40, 0xffffffffffff0000)
if what == "hole":
    memsz, = struct.unpack_from("<Q", b, loads[-1] + 40)
    struct.pack_into("<Q", b, loads[-1] + 40, memsz + (8 << 30))
open(path, "wb").write(b)
PY
}

@test "patchelf: a layout that cannot be grown (huge p_memsz, odd p_align, overflow, a hole of GiBs) is refused, exit 1, nothing written" {
	need python3 "the hostile program headers are made with python3"
	local orig s f sum what
	orig=$(fixture x86/hello-nopie)
	s=$(dirname "$orig")
	for what in issue memsz align overflow hole; do
		f=$s/$what
		cp "$orig" "$f"
		hostile_phdrs "$f" "$what"
		sum=$(sha256sum <"$f")
		for op in "" "--output $s/out"; do
			# shellcheck disable=SC2086
			run xcc patchelf --add-rpath /opt/a/path/long/enough/to/need/a/new/string/table $op "$f"
			assert_status 1
			case $what in
			issue | align) assert_output_contains "program header 2 (PT_LOAD) has p_align 0x1001, not a power of two" ;;
			memsz) assert_output_contains "past the end of the file, after program header 2 (PT_LOAD) with p_vaddr 0x400000 and p_memsz 0x6300000000000bec" ;;
			overflow) assert_output_contains "(PT_LOAD) has p_vaddr 0x400000 and p_memsz 0xffffffffffff0000, which overflow the address space" ;;
			hole) assert_output_contains "bytes past the end of the file, after program header" ;;
			esac
			assert_output_contains "the file cannot be grown, nothing was written"
			[ "$(sha256sum <"$f")" = "$sum" ]
			[ ! -e "$s/out" ]
		done
		# The file still reads, and what needs no growth still works.
		run xcc patchelf --print-needed "$f"
		assert_status 0
		assert_output_equals "libc.so.6"
		run xcc patchelf --set-os-abi freebsd "$f"
		assert_status 0
	done
}

@test "patchelf: a string table without DT_STRSZ is not grown, exit 1, nothing written" {
	need python3 "the dynamic section is edited with python3"
	local f sum
	f=$(fixture x86/lib/libgreet.so.1)
	# DT_STRSZ (10) becomes DT_DEBUG (21), as the fuzzer's file of issue 26 had it.
	python3 - "$f" <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
for i in range(phnum):
    o = phoff + i * phentsize
    p_type, p_offset, p_filesz = struct.unpack_from("<I", b, o) + struct.unpack_from("<Q", b, o + 8) + struct.unpack_from("<Q", b, o + 32)
    if p_type == 2:
        for e in range(p_offset, p_offset + p_filesz, 16):
            if struct.unpack_from("<q", b, e)[0] == 10:
                struct.pack_into("<q", b, e, 21)
open(path, "wb").write(b)
PY
	sum=$(sha256sum <"$f")
	run xcc patchelf --add-rpath /opt/a/path/long/enough/to/need/a/new/string/table "$f"
	assert_status 1
	assert_output_contains "has DT_STRTAB but no DT_STRSZ, so the string table cannot grow"
	[ "$(sha256sum <"$f")" = "$sum" ]
}

@test "patchelf: a .dynamic section without PT_DYNAMIC is patched as patchelf does, with a warning" {
	local s
	need gcc "the test links its own library"
	s=$(scratch)
	cat >"$s/nodyn.ld" <<'LD'
PHDRS
{
  headers PT_PHDR PHDRS;
  text PT_LOAD FILEHDR PHDRS;
}
SECTIONS
{
  . = SIZEOF_HEADERS;
  .text : { *(.text) } :text
  .dynamic : { *(.dynamic) } :text
}
LD
	echo 'int f(void) { return 1; }' >"$s/f.c"
	gcc -shared -fPIC -nostdlib -Wl,-T"$s/nodyn.ld" -o "$s/nodyn.so" "$s/f.c"
	readelf -lW "$s/nodyn.so" | grep -q DYNAMIC && false
	run xcc patchelf --set-rpath "/a/rather/long/run/path/$s" "$s/nodyn.so"
	assert_status 0
	assert_output_contains "no PT_DYNAMIC program header"
	run xcc patchelf --print-rpath "$s/nodyn.so"
	assert_output_equals "/a/rather/long/run/path/$s"
	# the program header table moved with a PT_PHDR that says where
	[ "$(readelf -lW "$s/nodyn.so" 2>&1 | grep -c PHDR)" = 1 ]
	readelf -lW "$s/nodyn.so" 2>&1 | grep -qi 'error\|warning' && false
	if command -v patchelf >/dev/null; then
		[ "$(patchelf --print-rpath "$s/nodyn.so")" = "/a/rather/long/run/path/$s" ]
	fi
}

@test "patchelf: a failed patch leaves the file as it was" {
	local f
	f=$(fixture x86/lib/libgreet.so.1)
	sum=$(sha256sum < "$f")
	run xcc patchelf --set-rpath '/a/long/path/that/would/grow/the/file/for/sure' \
		--set-interpreter /lib/ld.so "$f"
	assert_status 1
	assert_output_contains "cannot find section '.interp'"
	[ "$(sha256sum < "$f")" = "$sum" ]
	f=$(fixture x86/hello-static)
	sum=$(sha256sum < "$f")
	run xcc patchelf --set-rpath /x "$f"
	assert_status 1
	assert_output_contains "statically linked"
	[ "$(sha256sum < "$f")" = "$sum" ]
}

@test "patchelf: a write that fails midway is undone (file size limit)" {
	local f
	f=$(fixture x86/prog)
	sum=$(sha256sum < "$f")
	sz=$(size_of "$f")
	# Writing past the current size fails with EFBIG (SIGXFSZ ignored).
	run bash -c 'trap "" XFSZ; ulimit -f $(( $2 / 1024 )); "$CUDA_XCC" patchelf --set-rpath \
		"/a/long/path/that/does/not/fit/in/the/string/table/at/all" "$1"' _ "$f" "$sz"
	assert_status 1
	assert_output_contains "left as it was"
	[ "$(sha256sum < "$f")" = "$sum" ]
	[ "$(size_of "$f")" -eq "$sz" ]
}

# run cuda-xcc ARGS... while DIR is read-only. Root writes through file modes, so it gets a
# read-only bind mount of DIR in a private mount namespace, gone when the command ends.
run_with_readonly_dir() {
	local dir=$1 ns
	shift
	if [ "$(id -u)" -ne 0 ]; then
		chmod -R a-w "$dir"
		run "$CUDA_XCC" "$@"
		chmod -R u+w "$dir"
		return 0
	fi
	if unshare -m true 2>/dev/null; then
		ns=(unshare -m)
	elif unshare -r -m true 2>/dev/null; then
		ns=(unshare -r -m)
	else
		skip "root cannot make a read-only mount here (unshare -m and unshare -r -m fail)"
	fi
	run "${ns[@]}" sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" &&
		shift && exec "$CUDA_XCC" "$@"' _ "$dir" "$@"
}

@test "patchelf: a read-only file is refused, not half-written" {
	local f d sum why
	f=$(fixture x86/prog)
	d=$(dirname "$f")
	sum=$(sha256sum < "$f")
	why="Read-only file system"
	[ "$(id -u)" -eq 0 ] || why="Permission denied"
	run_with_readonly_dir "$d" patchelf --set-rpath '/a/long/path/that/does/not/fit/in/the/table' \
		--add-needed libm.so.6 "$f"
	assert_status 1
	assert_output_equals "cuda-xcc: $f: $why"
	[ "$(sha256sum < "$f")" = "$sum" ]
	# --output into the read-only directory: refused, and no temporary file left behind
	run_with_readonly_dir "$d" patchelf --set-rpath /x --output "$d/prog.out" "$f"
	assert_status 1
	assert_output_equals "cuda-xcc: $d/prog.out: $why"
	[ "$(sha256sum < "$f")" = "$sum" ]
	[ "$(ls -A "$d")" = "$(printf 'lib\nprog')" ]
	# the same commands patch the file once it is writable again
	xcc patchelf --set-rpath '/a/long/path/that/does/not/fit/in/the/table' --add-needed libm.so.6 "$f"
	[ "$(sha256sum < "$f")" != "$sum" ]
}

# Issue 16 §7: cuda-xcc patchelf against Debian's patchelf, on the fixtures and
# CUDA's own libraries, with random operation sequences from a fixed seed
# (tests/lib/patchelf_diff.py says what is compared).
@test "patchelf: random sequences give the same answers and nm -D as Debian's patchelf, and programs still run" {
	need patchelf "the reference implementation (Debian's patchelf)"
	need nm "binutils"
	local fx=$BATS_FILE_TMPDIR/fx s files=() runs=() f
	s=$(scratch)
	for f in x86/prog x86/prog-rpath x86/lib/libgreet.so.1 x86/libfat.so a64/prog \
		a64/lib/libgreet.so.1 libbe.so; do
		if [ -f "$fx/$f" ]; then files+=("$fx/$f"); fi
	done
	for f in /usr/local/cuda/lib64/libcudart.so.[0-9]* /usr/local/cuda/lib64/libnvblas.so.[0-9]* \
		/usr/local/cuda/lib64/libcufftw.so.[0-9]*; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then files+=("$f"); fi
	done
	[ "${#files[@]}" -gt 0 ] || skip "no fixture could be built here"
	if [ -f "$fx/x86/prog" ]; then
		runs+=(--run "$fx/x86/prog=env LD_LIBRARY_PATH=$fx/x86/lib {}")
	fi
	if [ -f "$fx/a64/prog" ] && command -v qemu-aarch64 >/dev/null; then
		runs+=(--run "$fx/a64/prog=qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$fx/a64/lib {}")
	fi
	run python3 "$XCC_SRCDIR/tests/lib/patchelf_diff.py" --xcc "$CUDA_XCC" --work "$s" \
		--seed 16 --rounds 27 "${runs[@]}" "${files[@]}"
	echo "$output" | tail -n 1 | sed 's/^/# /' >&3
	assert_status 0
	assert_output_contains "27 sequences"
}
