# Sourced by bench/extract.sh, bench/overlap.sh and bench/fsync.sh: the redist-shaped mirror
# they measure, built once in $bench/mirror (tests/fixtures/make-redist.sh)
# and reused while $libs stay the same. Besides the small toolkit fixtures
# it holds the real CUDA libraries of /usr/local/cuda packed as components
# (machine code: xz gets them to about half, as NVIDIA's archives): at
# least 500 MB of .tar.xz.
# In: here, bench, libs, cuda. Out: mirror, manifest, components.
libdir=/usr/local/cuda/targets/x86_64-linux/lib
[ -d "$libdir" ] || { echo "bench: no $libdir (a CUDA 13 toolkit)" >&2; exit 2; }
mirror=$bench/mirror
manifest=$mirror/redistrib_$cuda.json
if [ ! -f "$manifest" ] || [ "$(cat "$bench/libs" 2>/dev/null)" != "$libs" ]; then
	echo "building the mirror in $mirror (once; reused by later runs)..." >&2
	rm -rf "$mirror" "$bench/payload"
	payload_args=
	components=
	for lib in $libs; do
		name=bench_${lib%%.so*}
		mkdir -p "$bench/payload/$name"
		cp -L "$libdir/$lib" "$bench/payload/$name/"
		payload_args="$payload_args --payload $name=$bench/payload/$name"
		components="$components${components:+,}$name"
	done
	# shellcheck disable=SC2086
	"$here/tests/fixtures/make-redist.sh" "$mirror" --cuda "$cuda" --tags linux-x86_64 \
		--xz-level "${XZ_LEVEL:-1}" $payload_args >/dev/null
	rm -rf "$bench/payload"
	echo "$libs" > "$bench/libs"
	echo "$components" > "$bench/components"
fi
components=$(cat "$bench/components")

# The archives create takes from the mirror (what its plan lists: paths under
# $mirror) in $archives, their number in $n_archives and their bytes in
# $archive_bytes. In: xcc.
plan_archives() {
	plan=$("$xcc" sysroot create --target x86_64 --cuda "$cuda" --from "$manifest" \
		--components "$components" --dry-run)
	archives=$(echo "$plan" | sed -n 's/.* \(\/[^ ]*\.tar\.xz\) -> .*/\1/p')
	archive_bytes=0
	for a in $archives; do archive_bytes=$((archive_bytes + $(stat -c %s "$a"))); done
	n_archives=$(echo "$archives" | wc -l)
}

# Which xz decoder each side uses: liblzma's decoder got about twice as fast
# in 5.6, so a ratio means little without the two versions (the static
# binary embeds its own, scripts/build-static.sh).
print_decoders() { # CUDA_XCC
	printf 'xz decoders: cuda-xcc liblzma %s, tar -xJf liblzma %s\n' \
		"$("$1" --version --verbose 2>/dev/null | sed -n 's/^  liblzma \([0-9.]*\).*/\1/p' | head -n 1)" \
		"$(xz --version 2>/dev/null | sed -n 's/^liblzma \([0-9.]*\).*/\1/p')"
}
