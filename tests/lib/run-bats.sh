#!/bin/sh
# Run one .bats file with TAP output for automake's TAP driver.
exec bats --tap "$1"
