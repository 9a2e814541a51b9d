#!/bin/bash
# sysroot create --from-device's pull against rsync -a of the same files over the same sshd,
# in one run:
#
#   bench/from-device.sh [--xcc BINARY] [--board DIR] [REPS]      (REPS=3 by default)
#
# The board is tests/lib/fake-board.bash's (made here, about a minute, unless --board names
# one it made before), served by the test suite's own sshd on 127.0.0.1 (tests/lib/sshd.bash;
# as root it logs in the user cuda-xcc-test, which scripts/setup.sh makes). Each repetition
# times, into a fresh cache and a fresh directory:
#   full       the first pull of the board (everything copied) and rsync -a --files-from of
#              exactly the files and links that pull copied;
#   unchanged  the same pull again (nothing to copy) and the same rsync again.
# The pull's time is the one cuda-xcc prints ("in N s": probe, listing, copy, snapshot and
# the target side's archive; the host side's planning is not counted); rsync's is its wall
# time. Prints each time and the ratios of the medians (pull / rsync: below 1 is faster).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
xcc=${CUDA_XCC:-$src/build/src/cuda-xcc}
board=''
reps=3
while [ $# -gt 0 ]; do
	case $1 in
	--xcc) xcc=$(realpath "$2"); shift 2 ;;
	--board) board=$(realpath "$2"); shift 2 ;;
	-*) echo "usage: bench/from-device.sh [--xcc BINARY] [--board DIR] [REPS]" >&2; exit 2 ;;
	*) reps=$1; shift ;;
	esac
done
[ -x "$xcc" ] || { echo "from-device.sh: $xcc is not an executable: build it or give --xcc" >&2; exit 2; }
for tool in rsync ssh sshd python3; do
	command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
		{ echo "from-device.sh: needs $tool" >&2; exit 2; }
done
# sshd.bash's helpers from the test suite, with its skips as failures here.
need() { command -v "$1" >/dev/null || { echo "from-device.sh: needs $1 ($2)" >&2; exit 2; }; }
skip() { echo "from-device.sh: $*" >&2; exit 2; }
. "$src/tests/lib/sshd.bash"
. "$src/tests/lib/fake-board.bash"
work=''
cleanup() {
	stop_sshd
	[ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
start_sshd
work=$(mktemp -d /tmp/bench-from-device.XXXXXX)
if [ -z "$board" ]; then
	# Where the sshd's user reaches it.
	board=$SSHD_DIR/board
	state=$(XCC_SRCDIR=$src fake_board_state "$board" "$work/board.log")
	[ "$state" = ok ] || { echo "from-device.sh: no board: ${state#* }" >&2; exit 2; }
fi
port=${SSH_DEVICE##*:}
host_debs=()
while read -r d; do host_debs+=(--from "$d"); done < <(fake_board_host_debs)
[ ${#host_debs[@]} -gt 0 ] || { echo "from-device.sh: no host packages in $(fake_board_trixie)" >&2; exit 2; }

# The pull into cache $1: prints its own time, in seconds.
pull() {
	"$xcc" sysroot create --from-device "$SSH_DEVICE" --device-root "$board" \
		--ssh-config "$SSH_CONFIG" --cache "$1" --progress never --dry-run "${host_debs[@]}" \
		> "$work/pull.log" 2>&1 || { cat "$work/pull.log" >&2; exit 1; }
	sed -n 's/.* files copied .*, in \([0-9.]*\) s: .*/\1/p' "$work/pull.log"
}

# rsync -a of the list $1 into $2: prints its wall time, in seconds.
rsync_files() {
	local t0 t1
	t0=$(date +%s.%N)
	rsync -a -e "ssh -F $SSH_CONFIG -p $port" --files-from="$1" \
		"$SSH_USER@127.0.0.1:$board/" "$2/"
	t1=$(date +%s.%N)
	python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$t0" "$t1"
}

median() { python3 -c 'import statistics, sys; print(f"{statistics.median(map(float, sys.argv[1:])):.3f}")' "$@"; }

full_p=() full_r=() same_p=() same_r=()
for i in $(seq "$reps"); do
	c=$work/cache-$i
	full_p+=("$(pull "$c")")
	mirror=$(echo "$c"/boards/*/mirror)
	(cd "$mirror" && find . \( -type f -o -type l \) -printf '%P\n') > "$work/list"
	files=$(wc -l < "$work/list")
	bytes=$(du -sb --apparent-size "$mirror" | cut -f1)
	mkdir -p "$work/rsync-$i"
	full_r+=("$(rsync_files "$work/list" "$work/rsync-$i")")
	same_p+=("$(pull "$c")")
	same_r+=("$(rsync_files "$work/list" "$work/rsync-$i")")
	echo "run $i: $files files, $bytes bytes: full pull ${full_p[-1]} s, rsync -a ${full_r[-1]} s;" \
		"unchanged pull ${same_p[-1]} s, rsync -a ${same_r[-1]} s"
	rm -rf "$c" "$work/rsync-$i"
done
fp=$(median "${full_p[@]}") fr=$(median "${full_r[@]}") sp=$(median "${same_p[@]}") sr=$(median "${same_r[@]}")
ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}")' "$1" "$2"; }
echo "full copy: pull $fp s, rsync -a $fr s: ratio $(ratio "$fp" "$fr") (pull / rsync)"
echo "unchanged: pull $sp s, rsync -a $sr s: ratio $(ratio "$sp" "$sr") (pull / rsync)"
