#!/usr/bin/env bats
# Random command lines against the binary: each must end in 0, 1 or 2, never in a crash
# (134, 139) or a sanitizer's report (86, 87 in make check-sanitizers), nor hang. The words
# are the verbs, every option each verb's --help names, and values that reach the usage
# and validation paths; nothing can reach the network (a dead proxy), the user's store
# (HOME and XDG_* are the test's) or run a real tool (PATH is empty).
# XCC_CLI_FUZZ_SEED and XCC_CLI_FUZZ_RUNS repeat or lengthen a run.
load lib/common

@test "cli fuzz: 300 seeded random command lines exit 0, 1 or 2, none crashes or hangs" {
	need timeout "bounds each run (coreutils)"
	d=$(scratch)
	mkdir -p "$d/home" "$d/empty" "$d/dir" "$d/work"
	cp /bin/true "$d/elf"
	printf 'not an elf\n' > "$d/text"
	verbs=(gpus flags sysroot fatbin patchelf autopatch toolchain run doctor check-link help)
	# Each verb's options, as its --help names them (the driver's: the top --help's).
	declare -A verb_opts
	opts=()
	for v in "${verbs[@]}" driver; do
		case $v in help) continue ;; driver) h=$("$CUDA_XCC" --help 2>&1) ;; *) h=$("$CUDA_XCC" "$v" --help 2>&1) ;; esac
		verb_opts[$v]=$(echo "$h" | grep -o -- '\(^\| \|\[\)-\{1,2\}[a-zA-Z#][a-zA-Z0-9-]*' | tr -d ' [' | sort -u | tr '\n' ' ')
		read -r -a o <<< "${verb_opts[$v]}"
		opts+=("${o[@]}")
	done
	[ "${#opts[@]}" -gt 50 ]
	words=(create info list verify cmake meson flags --help --version -v -### --dry-run
		--target jetson sbsa x86_64 riscv --cuda 11.8 12.4 13.0 99 --jetpack 6.0 5.1.2
		-arch sm_87 sm_90a 8.7 all all-major default sm_ bogus, ,, --ptx none highest all
		--sysroot "$d/dir" "$d/none" "$d/text" --target-fs "$d/dir" "$d/elf" "$d/text" ""
		-o "$d/work/out" --output "$d/work/out2" --dest "$d/work/dest" --from "$d/text"
		--mirror http://127.0.0.1:9/ file:///nonexistent --jobs 0 1 -1 99999999999
		--device ssh://127.0.0.1:9 ssh://-x ssh://[::1]:9 ssh://u@h:0 --lib "$d/elf"
		--max-expand 1 1k 1Q --progress never always x -- - = ' ' $'\n' '%s%n' ./x)
	timeout=$(command -v timeout)
	seed=${XCC_CLI_FUZZ_SEED:-26}
	runs=${XCC_CLI_FUZZ_RUNS:-300}
	RANDOM=$seed
	bad=0
	for ((i = 0; i < runs; i++)); do
		args=()
		# Mostly a verb first (driver mode otherwise), then 0-7 words: half of them
		# the verb's own options, some any verb's, the rest values.
		v=driver
		if ((RANDOM % 8)); then v=${verbs[RANDOM % ${#verbs[@]}]}; args+=("$v"); fi
		read -r -a own <<< "${verb_opts[$v]:-}"
		for ((n = RANDOM % 8; n > 0; n--)); do
			r=$((RANDOM % 6))
			if ((r < 3 && ${#own[@]})); then
				args+=("${own[RANDOM % ${#own[@]}]}")
			elif ((r == 3)); then
				args+=("${opts[RANDOM % ${#opts[@]}]}")
			else
				args+=("${words[RANDOM % ${#words[@]}]}")
			fi
		done
		set +e
		env -i -C "$d/work" HOME="$d/home" XDG_CACHE_HOME="$d/home/cache" \
			XDG_DATA_HOME="$d/home/data" PATH="$d/empty" \
			http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
			HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
			${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
			${LSAN_OPTIONS:+LSAN_OPTIONS="$LSAN_OPTIONS"} \
			${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
			"$timeout" 20 "$CUDA_XCC" "${args[@]}" < /dev/null > "$d/out" 2>&1
		st=$?
		set -e
		case $st in
		0 | 1 | 2) ;;
		*)
			bad=$((bad + 1))
			printf 'run %d (seed %d) exit %d: cuda-xcc' "$i" "$seed" "$st" >&2
			printf ' %q' "${args[@]}" >&2
			printf '\n' >&2
			head -c 2000 "$d/out" >&2
			;;
		esac
	done
	[ "$bad" -eq 0 ]
}
