# One real sysroot per end-to-end file, made once in setup_file from the Debian
# packages the file's own debs function lists; the tests read what became of it
# from $E2E_STATE: "ok DIR", "skip WHY" (no packages) or "fail WHY" (create failed).

# e2e_make_sysroot LABEL REUSE MIN_DEBS FETCH_COMMAND [create options...]
# REUSE, when not empty, is an existing sysroot to take instead.
e2e_make_sysroot() {
	local label=$1 reuse=$2 min=$3 fetch=$4 s=$BATS_FILE_TMPDIR/S from=() d found
	shift 4
	export E2E_STATE=$BATS_FILE_TMPDIR/state
	if [ -n "$reuse" ]; then
		echo "ok $reuse" > "$E2E_STATE"
		return 0
	fi
	found=$(debs | wc -l)
	if [ "$found" -lt "$min" ]; then
		echo "skip the $label .debs are not in $(deb_cache) (run $fetch)" > "$E2E_STATE"
		return 0
	fi
	while read -r d; do from+=(--from "$d"); done < <(debs)
	if "$CUDA_XCC" sysroot create --dest "$s" --progress never "$@" "${from[@]}" \
		> "$BATS_FILE_TMPDIR/create.log" 2>&1; then
		echo "ok $s" > "$E2E_STATE"
	else
		echo "fail sysroot create failed: $(tail -5 "$BATS_FILE_TMPDIR/create.log")" > "$E2E_STATE"
	fi
}

# The whole CUDA 11.8 sysroot (cuda118_debs, XCC_E2E_SYSROOT=DIR reuses one) of
# tests/e2e.bats and of the files that need only a real nvcc 11.8.
e2e_make_cuda118_sysroot() {
	e2e_make_sysroot "CUDA 11.8" "${XCC_E2E_SYSROOT:-}" 3 "scripts/fetch-debian-cuda.sh" --target sbsa --cuda 11.8
}

# What a setup_file recorded in state file $1 ("ok VALUE", "skip WHY" or
# "fail WHY"): VALUE in $E2E_VALUE, or the test skipped, or failed.
e2e_state_take() {
	local state word rest
	state=$(cat "$1")
	word=${state%% *}
	rest=${state#* }
	case "$word" in
	ok) E2E_VALUE=$rest ;;
	skip) skip "$rest" ;;
	*) echo "$rest" >&2; return 1 ;;
	esac
}

# Set S to the file's sysroot, or skip the test (no packages), or fail it.
e2e_sysroot() {
	e2e_state_take "$E2E_STATE"
	export S=$E2E_VALUE
}

# Debian 12's CUDA 11.8 packages (scripts/fetch-debian-cuda.sh), in the
# order it prints them: the cache, and the packages of a whole sysroot
# (libnvvm4 last, when there).
cuda118_cache() { echo "${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}"; }
cuda118_debs() {
	local c
	c=$(cuda118_cache)
	ls "$c"/nvidia-cuda-toolkit_11.8.*_amd64.deb "$c"/nvidia-cuda-dev_11.8.*_arm64.deb \
		"$c"/libcudart11.0_11.8.*_arm64.deb 2>/dev/null
	cuda118_libnvvm
}
# Debian's libnvvm4 (the build machine's libnvvm.so, for -dlto's device link), when the
# cache has it: caches fetched before scripts/fetch-debian-cuda.sh took it lack it.
cuda118_libnvvm() {
	ls "$(cuda118_cache)"/libnvvm4_11.8.*_amd64.deb 2>/dev/null || true
}
