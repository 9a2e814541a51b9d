#!/usr/bin/env bats
load lib/common

@test "cli: --version names the package" {
	run xcc --version
	assert_status 0
	[[ "$output" =~ ^cuda-xcc\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "cli: --version --verbose names each library with its version" {
	run xcc --version --verbose
	assert_status 0
	[[ "${lines[0]}" =~ ^cuda-xcc\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	[[ "$output" =~ libcurl\ [0-9]+\.[0-9]+\.[0-9]+\ \(TLS:\ [A-Za-z]+/[0-9] ]]
	[[ "$output" =~ libarchive\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[[ "$output" =~ nettle\ [0-9]+\.[0-9]+ ]]
	[[ "$output" =~ cJSON\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[[ "$output" =~ libelf\ 0\.[0-9]+ ]]
	run xcc --version --bogus
	assert_status 2
	assert_output_contains "--bogus"
}

@test "cli: --help lists the commands and the exit codes" {
	run xcc --help
	assert_status 0
	assert_output_contains "gpus"
	assert_output_contains "flags"
	assert_output_contains "2 usage or validation error"
}

@test "cli: no arguments is a usage error" {
	run xcc
	assert_status 2
	assert_output_contains "Usage: cuda-xcc"
}

@test "cli: per-command help, both spellings" {
	run xcc flags --help
	assert_status 0
	assert_output_contains "Usage: cuda-xcc flags"
	run xcc help gpus
	assert_status 0
	assert_output_contains "Usage: cuda-xcc gpus"
	run xcc help nosuch
	assert_status 2
}

@test "cli: the test suite's debug helper is no product command" {
	run xcc --help
	assert_status 0
	[[ "$output" != *debug* ]]
	run xcc help debug
	assert_status 2
	run xcc debug sha256 "$XCC_SRCDIR/README.md"
	assert_status 2
	run test_tool sha256 "$XCC_SRCDIR/README.md"
	assert_status 0
}

@test "cli: the man page renders without warnings" {
	need man "apt-get install man-db"
	run env MANWIDTH=80 man --warnings -l "$XCC_SRCDIR/doc/cuda-xcc.1"
	assert_status 0
	assert_output_contains "cuda-xcc"
	[[ "$output" != *warning* ]]
}

@test "cli: configure names the Debian package of a missing library" {
	need pkg-config
	[ -x "$XCC_SRCDIR/configure" ] || skip "no configure script (run autoreconf -fi)"
	d=$(scratch)
	cd "$d"
	PKG_CONFIG_LIBDIR="$d/empty" run "$XCC_SRCDIR/configure" -q
	assert_status 1
	assert_output_contains "libelf >= 0.170 was not found by pkg-config. On Debian or Ubuntu: apt-get install libelf-dev"
}
