#!/usr/bin/env bats
load lib/common

@test "gpus: the whole table lists every capability" {
	run xcc gpus
	assert_status 0
	for c in 3.5 5.3 7.2 8.7 8.8 9.0a 10.0f 10.1 11.0f 12.1a; do
		assert_output_contains "$c "
	done
}

@test "gpus: --cuda 13.0 drops Maxwell to Volta and marks the default set" {
	run xcc gpus --cuda 13.0
	assert_status 0
	[[ "$output" != *"sm_72 "* ]]
	[[ "$output" != *"sm_50 "* ]]
	assert_output_contains "sm_110"
	run xcc gpus --cuda 13.0 --json
	echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
dflt = [r["capability"] for r in rows if r["default"]]
assert dflt == ["7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "12.0", "12.1"], dflt
'
}

@test "gpus: --target jetson lists only Jetson boards" {
	run xcc gpus --target jetson --cuda 12.6 --json
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert [r["capability"] for r in rows] == ["5.3", "6.2", "7.2", "8.7"], rows
assert all(r["jetson"] for r in rows)
'
}

@test "gpus: with --target and --cuda, exactly what flags accepts (one source of truth)" {
	run xcc gpus --target jetson --cuda 13.0 --json
	assert_status 0
	caps=$(echo "$output" | python3 -c 'import json,sys; print(" ".join(r["sm"] for r in json.load(sys.stdin)))')
	[[ " $caps " != *" sm_87 "* ]]
	[[ " $caps " == *" sm_110 "* ]]
	# gpus lists through flags_resolve (cmd_gpus.c), so agreement holds for
	# every pair by construction; one pair per target checks the command
	# lines (every pair was 200 runs, a minute of each CI pass).
	for tv in jetson/12.6 sbsa/13.0 x86_64/11.8; do
		t=${tv%/*} v=${tv#*/}
		run xcc gpus --target "$t" --cuda "$v" --json
		assert_status 0
		for sm in $(echo "$output" | python3 -c 'import json,sys; print(" ".join(r["sm"] for r in json.load(sys.stdin)))'); do
			run xcc flags --target "$t" --cuda "$v" -arch "$sm"
			echo "$t $v $sm: $output"
			assert_status 0
		done
	done
}

@test "gpus: --target sbsa serves Thor and, from 13.2, Orin" {
	run xcc gpus --target sbsa --cuda 13.0
	assert_output_contains "sm_110"
	[[ "$output" != *"sm_87 "* ]]
	run xcc gpus --target sbsa --cuda 13.2
	assert_output_contains "sm_87 "
	run xcc gpus --target x86_64 --cuda 13.2
	[[ "$output" != *"sm_110 "* ]]
}

@test "gpus: json fields" {
	run xcc gpus --json
	echo "$output" | python3 -c '
import json, sys
rows = {r["capability"]: r for r in json.load(sys.stdin)}
r = rows["7.2"]
assert r["jetson"] and r["min_cuda"] == "10.0" and r["max_cuda"] == "12.9", r
assert rows["9.0a"]["arch_specific"] and not rows["9.0a"]["family_specific"]
assert rows["10.0f"]["family_specific"]
assert rows["6.0"]["default_until"] == "12.3"
assert rows["8.6"]["max_cuda"] is None
'
}

@test "gpus: bad arguments" {
	run xcc gpus --cuda x
	assert_status 2
	assert_output_contains "'x' is not a CUDA version"
	run xcc gpus --target moon
	assert_status 2
	assert_output_contains "unknown target 'moon'"
	run xcc gpus extra
	assert_status 2
}
