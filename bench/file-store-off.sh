# Sourced by the benchmarks that time what a create extracts (extract, fsync, deb). Since the
# file store (issue 41), a create of a request made before is made from links to the files
# it stored, and extracts nothing: these turn the store off for a build that has it. A build
# from before the store has neither the store nor the option.

# XCC: prints --no-file-store where XCC's sysroot create takes it, else nothing.
file_store_off() {
	if "$1" sysroot create --help 2>&1 | grep -q -e '--no-file-store'; then
		echo --no-file-store
	fi
}
