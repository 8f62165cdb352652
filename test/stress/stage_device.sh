#!/usr/bin/env bash
# Here: build the stress harness as a static binary and stage it, with
# test/device/stress.sh, into .device/ (git-ignored, carried to the GPU
# machine, which has no Go). test/device/stage.sh stages the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
mkdir -p .device
CGO_ENABLED=0 go build -ldflags='-s -w' -o .device/stress ./test/stress
cp test/device/stress.sh .device/stress.sh
ls -la .device/stress .device/stress.sh
