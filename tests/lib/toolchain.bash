# one_file_sysroot DIR TARGET CUDA HOST_COMPILER CAPABILITY: a sysroot of nothing
# but its sysroot.json, at DIR: all the toolchain verb reads (check-link and run read
# it too, through the path the generated files hand them), and enough for the CMake
# toolchain file's configure-time checks.
one_file_sysroot() {
	local tag=linux-aarch64 dir=aarch64-linux
	if [ "$2" = sbsa ]; then tag=linux-sbsa dir=sbsa-linux; fi
	mkdir -p "$1/bin"
	printf '{"format": 1, "cuda": "%s", "target": "%s", "tag": "%s",\n "target_dir": "%s", "host_compiler": "%s",\n "capabilities": ["%s"], "components": []}\n' \
		"$3" "$2" "$tag" "$dir" "$4" "$5" > "$1/sysroot.json"
}

# A Jetson CUDA 12.6.3 one, at $1: tests/toolchain.bats, hostile-paths.bats and
# output-files.bats share it.
toolchain_sysroot() { one_file_sysroot "$1" jetson 12.6.3 aarch64-linux-gnu-g++-12 8.7; }
