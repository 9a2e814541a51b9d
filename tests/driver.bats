#!/usr/bin/env bats
load lib/common

@test "driver: placeholder" {
	run xcc --version
	assert_status 0
}
