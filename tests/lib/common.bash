# Shared by every .bats file. The binary under test comes from $CUDA_XCC
# (make check sets it; make check-static points it at the static build).
: "${XCC_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${CUDA_XCC:=$XCC_SRCDIR/src/cuda-xcc}"
export XCC_SRCDIR CUDA_XCC

xcc() { "$CUDA_XCC" "$@"; }
# The suite's helper (tests/helper/test-tool.c): fetch and unpack on their own.
test_tool() { "$XCC_TEST_TOOL" "$@"; }

# Skip (with the reason) when a tool this test needs is missing; CI installs
# them all, so nothing is skipped there.
need() {
	local tool=$1 why=${2:-}
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed${why:+ ($why)}"
}

# Per-test scratch directory, removed by bats.
scratch() {
	mkdir -p "$BATS_TEST_TMPDIR/s"
	echo "$BATS_TEST_TMPDIR/s"
}

# A free TCP port on 127.0.0.1, for a server a test starts.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

assert_status() {
	if [ "$status" -ne "$1" ]; then
		echo "expected exit status $1, got $status; output:" >&2
		echo "$output" >&2
		return 1
	fi
}

assert_output_contains() {
	case "$output" in
	*"$1"*) ;;
	*) echo "output does not contain '$1':" >&2; echo "$output" >&2; return 1 ;;
	esac
}

assert_output_equals() {
	if [ "$output" != "$1" ]; then
		printf 'expected: %s\ngot:      %s\n' "$1" "$output" >&2
		return 1
	fi
}

# Make sysroot $1's records agree with themselves again after a test edited them, as
# create writes them: sysroot.files' sha256 and sysroot.json's digest of itself. What the
# test then checks is the tree against records that are consistent, as a sysroot made so
# would have.
sysroot_resign() {
	python3 - "$1" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
meta = json.load(open(d + "/sysroot.json"))
meta.pop("digest", None)
meta["files_sha256"] = hashlib.sha256(open(d + "/sysroot.files", "rb").read()).hexdigest()
text = json.dumps(meta, separators=(",", ":"), ensure_ascii=False)
meta["digest"] = hashlib.sha256(text.encode()).hexdigest()
# A new file renamed over it: a hard-linked copy's original stays as it was.
open(d + "/sysroot.json.new", "w").write(json.dumps(meta, indent=1) + "\n")
os.replace(d + "/sysroot.json.new", d + "/sysroot.json")
PY
}

# The words of the exec line of an nvcc script that a wrapper wrote (exec WORD... "$@"), as
# sh reads them, one per line: what the script runs, whatever the quoting.
nvcc_words() {
	local line
	line=$(sed -n 's/^exec \(.*\) "\$@"$/\1/p' "$1")
	if [ -z "$line" ]; then
		echo "nvcc_words: no exec line in $1" >&2
		return 1
	fi
	eval "set -- $line"
	printf '%s\n' "$@"
}
