#!/usr/bin/env bats
load lib/common
