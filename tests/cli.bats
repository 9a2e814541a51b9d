#!/usr/bin/env bats
load lib/common

@test "cli: placeholder" {
	run xcc --version
	assert_status 0
}
