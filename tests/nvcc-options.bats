#!/usr/bin/env bats
# nvcc's option table (src/use/nvcc_options.c), held against real nvcc's --help and nvcc
# itself, and the driver reading every spelling of an option the same.
load lib/common

setup() {
	export XDG_DATA_HOME="$BATS_TEST_TMPDIR/data"
	unset CUDA_XCC_SYSROOT
}

# nvcc's --help ($1: its text) as "LONG SHORT value|flag" lines ("-" for no short name):
# an option heading is "--long <what>   (-short)"; a value is anything between the two.
help_options() {
	awk '/^--/ {
		short = $NF; n = NF
		if (short ~ /^\(-.*\)$/) { gsub(/[()]/, "", short); n = NF - 1 } else { short = "-" }
		if (short == "-" && $NF == $1) n = 1
		print $1, short, (n > 1 ? "value" : "flag")
	}' "$1"
}

# The options whose --help heading shows no value though nvcc takes one (nvcc 13.0 says so
# for "-MF=x" and "-qpp-config=x": no "no argument expected").
help_hides_value=" -MF -qpp-config "

# Each option of help text $1 that the table ($2, test-tool nvcc-options) lacks or reads
# otherwise, one line each; nothing when they agree.
table_disagrees() {
	local long short kind entry
	while read -r long short kind; do
		entry=$(awk -v l="$long" -v s="$short" '$2 == l && $1 == s' <<< "$2" | head -1)
		if [ -z "$entry" ]; then
			echo "missing: $short $long"
			continue
		fi
		[[ $help_hides_value == *" $short "* ]] && kind=value
		case "$(awk '{ print $3 }' <<< "$entry")" in
		value | joined) [ "$kind" = value ] || echo "the table says $long takes a value" ;;
		flag) [ "$kind" = flag ] || echo "the table says $long takes no value" ;;
		esac
	done < <(help_options "$1")
}

nvcc13() {
	local nvcc=${XCC_SYSTEM_CUDA:-/usr/local/cuda}/bin/nvcc
	need "$nvcc" "NVIDIA's CUDA 13.0"
	"$nvcc" --version | grep -q "release 13.0" || skip "$nvcc is not CUDA 13.0"
	echo "$nvcc"
}

@test "nvcc-options: every option nvcc 13.0's --help lists is in the table, with its spellings and whether it takes a value" {
	local nvcc table bad
	nvcc=$(nvcc13)
	"$nvcc" --help > "$BATS_TEST_TMPDIR/help"
	table=$(test_tool nvcc-options)
	# the heading parse itself: a list that long, and two known headings read right
	[ "$(help_options "$BATS_TEST_TMPDIR/help" | wc -l)" -gt 100 ]
	help_options "$BATS_TEST_TMPDIR/help" | grep -qx -- "--compiler-bindir -ccbin value"
	help_options "$BATS_TEST_TMPDIR/help" | grep -qx -- "--no-align-double - flag"
	bad=$(table_disagrees "$BATS_TEST_TMPDIR/help" "$table")
	echo "$bad"
	[ -z "$bad" ]
	# and the check fails on a table without -ccbin
	bad=$(table_disagrees "$BATS_TEST_TMPDIR/help" "$(grep -v -- ' --compiler-bindir ' <<< "$table")")
	[ "$bad" = "missing: -ccbin --compiler-bindir" ]
}

@test "nvcc-options: nvcc 13.0 takes a value after '=' in each spelling exactly where the table says" {
	local nvcc table bad= short long kind rest w out
	nvcc=$(nvcc13)
	need x86_64-linux-gnu-g++-12 "CUDA 13.0's host compiler"
	printf '__global__ void k() {}\n' > "$BATS_TEST_TMPDIR/k.cu"
	"$nvcc" --help > "$BATS_TEST_TMPDIR/help"
	table=$(test_tool nvcc-options)
	while read -r short long kind rest; do
		grep -q -- "^$long " "$BATS_TEST_TMPDIR/help" || continue # another release's
		for w in "$short" "$long"; do
			[ "$w" != - ] || continue
			out=$("$nvcc" -dryrun -ccbin x86_64-linux-gnu-g++-12 -c "$BATS_TEST_TMPDIR/k.cu" "$w=x" 2>&1 >/dev/null | grep -v '^#' || true)
			case "$out" in
			*"Unknown option"*) bad+="nvcc does not know $w; " ;;
			*"no argument expected"*) [ "$kind" = flag ] || bad+="$w takes no value; " ;;
			*) [ "$kind" != flag ] || bad+="$w takes a value; " ;;
			esac
		done
	done <<< "$table"
	echo "$bad"
	[ -z "$bad" ]
}

@test "nvcc-options: Debian's nvcc 11.8 and 12.4 --help list no option the table lacks" {
	need dpkg-deb
	local cache deb dir table bad checked=0
	table=$(test_tool nvcc-options)
	for cache in "${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}" "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; do
		deb=$(ls "$cache"/nvidia-cuda-toolkit_*_amd64.deb 2>/dev/null | head -1)
		[ -n "$deb" ] || continue
		dir=$BATS_TEST_TMPDIR/$(basename "$deb" .deb)
		mkdir -p "$dir"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" ./usr/lib/nvidia-cuda-toolkit/bin/nvcc
		"$dir/usr/lib/nvidia-cuda-toolkit/bin/nvcc" --help > "$dir/help"
		bad=$(table_disagrees "$dir/help" "$table")
		echo "$deb: $bad"
		[ -z "$bad" ]
		checked=$((checked + 1))
	done
	[ "$checked" -gt 0 ] || skip "no nvidia-cuda-toolkit .deb in $cache (scripts/fetch-debian-cuda.sh fetches them)"
}

# The value each value-taking option is tried with: one the driver accepts where it reads it.
sample_value() {
	case "$1" in
	ccbin) command -v x86_64-linux-gnu-g++-12 ;;
	output) echo app2 ;;
	gencode) echo arch=compute_90,code=sm_90 ;;
	code | arch) echo sm_90 ;;
	rdc) echo true ;;
	cudart) echo shared ;;
	target-dir) echo x86_64-linux ;;
	arbin) echo x86_64-linux-gnu-ar ;;
	*) echo v ;;
	esac
}

@test "driver: every value-taking option gives the same plan in each of nvcc's spellings" {
	need x86_64-linux-gnu-g++-12 "CUDA 13.0's x86_64 host compiler"
	local table short long kind role rest v ctx form forms ref bad= n=0
	table=$(test_tool nvcc-options)
	while read -r short long kind role rest; do
		[ "$kind" != flag ] || continue
		v=$(sample_value "$role")
		# Two GPUs, -dlto and only objects: a link, which a value taken for an input file
		# (a source to compile) turns into a refusal (exit 2). -gencode and -code name the
		# GPUs themselves.
		ctx=(-arch sm_80,sm_90)
		case "$role" in gencode | code) ctx=() ;; esac
		forms=("$long=$v" "$long $v")
		[ "$short" = - ] || forms+=("$short=$v" "$short $v")
		[ "$kind" != joined ] || forms+=("$short$v")
		ref=
		for form in "${forms[@]}"; do
			read -r -a words <<< "$form"
			run xcc --target x86_64 --cuda 13.0 "${ctx[@]}" -dlto "${words[@]}" a.o b.o -o app -###
			if [ "$status" -ne 0 ]; then
				bad+="[$form: exit $status: $output] "
				continue
			fi
			# the plan, less the option as written
			output=${output/ $form / }
			[ -n "$ref" ] || ref=$output
			[ "$output" = "$ref" ] || bad+="[$form: $output, not $ref] "
			n=$((n + 1))
		done
	done <<< "$table"
	echo "$bad"
	[ -z "$bad" ]
	[ "$n" -gt 200 ]
}

@test "driver: the spelling of -ccbin, -gencode and -default-stream does not change the plan (issue 36)" {
	need x86_64-linux-gnu-g++-12 "CUDA 13.0's x86_64 host compiler"
	local g one two
	g=$(command -v x86_64-linux-gnu-g++-12)
	# A device link of objects for two GPUs, the host compiler two words or one.
	run xcc --target x86_64 --cuda 13.0 -ccbin "$g" -arch sm_80,sm_90 -dlto a.o b.o -o app -###
	assert_status 0
	two=$output
	run xcc --target x86_64 --cuda 13.0 -ccbin="$g" -arch sm_80,sm_90 -dlto a.o b.o -o app -###
	assert_status 0
	one=$output
	[ "${two/-ccbin $g/-ccbin=$g}" = "$one" ]
	assert_output_contains "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90"
	# -dlto beside -gencode where nvcc only links: nvcc 11.8 and 13.0 link it.
	run xcc --target x86_64 --cuda 13.0 -dlto -gencode arch=compute_90,code=sm_90 a.o b.o -o app -###
	assert_status 0
	assert_output_contains " -dlto -gencode arch=compute_90,code=sm_90 a.o b.o -o app"
	# -arch lto_90 at a host link: the device link makes SASS (nvlink refuses lto_90).
	run xcc --target x86_64 --cuda 13.0 -arch lto_90 -ccbin "$g" k.o main.o -o prog -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_90,code=sm_90 "
	[[ "$output" != *code=lto_90* ]]
	run xcc --target x86_64 --cuda 13.0 -arch lto_90 -default-stream per-thread k.o main.o -o prog -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_90,code=sm_90 "
	assert_output_contains " -default-stream per-thread k.o main.o -o prog"
	[[ "$output" != *code=lto_90* ]]
}

@test "check-link: an nvcc link command is read by nvcc's table: --output-file, -o=FILE, and -dlink links no program" {
	need aarch64-linux-gnu-gcc "links the program"
	local d=$BATS_TEST_TMPDIR
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	mkdir -p "$d/bin"
	# an nvcc that links m.c into the file named by the last argument
	cat > "$d/bin/nvcc" <<-EOS
	#!/bin/sh
	for a in "\$@"; do out=\$a; done
	exec aarch64-linux-gnu-gcc -o "\${out#-o=}" "$d/m.c"
	EOS
	chmod +x "$d/bin/nvcc"
	run xcc check-link --target jetson -- "$d/bin/nvcc" k.o --output-file "$d/p1"
	assert_status 0
	assert_output_contains "warning: no runtime floor is known for --target jetson"
	run xcc check-link --target jetson --jetpack 5.1 --strict -- "$d/bin/nvcc" k.o "-o=$d/p2"
	assert_status 1
	assert_output_contains "newer than JetPack 5.1"
	[ ! -e "$d/p2" ]
	# a device link writes an object, no program: nothing to check
	run xcc check-link --target jetson --jetpack 5.1 --strict -- "$d/bin/nvcc" -dlink k.o -o "$d/dl.o"
	assert_status 0
	assert_output_equals ""
}
