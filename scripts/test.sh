#!/usr/bin/env bash
# Builds, then runs every test suite through ctest (lit suites: checkers on
# mock headers, driver, integration on the real LibTorch headers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
start=$(date +%s)
"$root/scripts/build.sh"
cd "$build"
# Every real-header test must run, not be skipped as unsupported.
export LIBTORCH_TIDY_REQUIRE_REAL_HEADERS=1
ctest --output-on-failure -j "$(nproc)" "$@"
echo "test.sh: done in $(( $(date +%s) - start )) s"
