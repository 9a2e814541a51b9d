#!/usr/bin/env bats
load lib/common

@test "gpus: placeholder" {
	run xcc --version
	assert_status 0
}
