#!/usr/bin/env bats
load lib/common

@test "flags: placeholder" {
	run xcc --version
	assert_status 0
}
