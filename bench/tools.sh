# Sourced by the benches that compare with NVIDIA's cuobjdump (fatbin.sh, check.sh).
# bench_find_xcc TOP: $xcc, else the build's binary or the one on PATH.
bench_find_xcc() {
	local c
	if [ -z "$xcc" ]; then
		for c in "$1/build/src/cuda-xcc" "$1/src/cuda-xcc" "$(command -v cuda-xcc || true)"; do
			[ -n "$c" ] && [ -x "$c" ] && { xcc=$c; break; }
		done
	fi
	[ -n "$xcc" ] && [ -x "$xcc" ] || { echo "$0: no cuda-xcc binary; build it or pass --xcc PATH" >&2; exit 2; }
}
# bench_find_cuobjdump DEBDIR SCRATCH: $cuobjdump, else PATH, /usr/local/cuda/bin, else the
# one in DEBDIR's nvidia-cuda-toolkit .deb, unpacked into SCRATCH.
bench_find_cuobjdump() {
	local deb
	if [ -z "$cuobjdump" ]; then
		cuobjdump=$(command -v cuobjdump || true)
		[ -z "$cuobjdump" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && cuobjdump=/usr/local/cuda/bin/cuobjdump
		if [ -z "$cuobjdump" ]; then
			deb=$(ls "$1"/nvidia-cuda-toolkit_*_amd64.deb 2>/dev/null | head -n1 || true)
			if [ -n "$deb" ]; then
				dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$2" ./usr/bin/cuobjdump
				cuobjdump=$2/usr/bin/cuobjdump
			fi
		fi
	fi
	[ -n "$cuobjdump" ] || { echo "$0: no cuobjdump (give --cuobjdump, or run scripts/fetch-debian-cuda.sh)" >&2; exit 2; }
}
