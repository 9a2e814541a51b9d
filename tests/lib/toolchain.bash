# A Jetson CUDA 12.6.3 sysroot of nothing but its sysroot.json, at $1: all the
# toolchain verb reads (check-link and run read it too, through the path the
# generated files hand them). tests/toolchain.bats, hostile-paths.bats and
# output-files.bats share it.
toolchain_sysroot() {
	mkdir -p "$1/bin"
	cat > "$1/sysroot.json" <<-'EOS'
	{"format": 1, "cuda": "12.6.3", "target": "jetson", "tag": "linux-aarch64",
	 "target_dir": "aarch64-linux", "host_compiler": "aarch64-linux-gnu-g++-12",
	 "capabilities": ["8.7"], "components": []}
	EOS
}
