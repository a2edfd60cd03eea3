#!/usr/bin/env bash
# Builds and runs the benchmarks; each prints its speedup and the verdict by
# the verifier's own rule (torchtidy::judge, runtime-verify/Verdict.h).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
echo "== torch-zero-grad: zero-filled vs reset gradients =="
"$build/bench/bench_zero_grad" "$@"
echo "== torch-debug-api-enabled: anomaly mode on vs off =="
"$build/bench/bench_anomaly_mode"
echo "== torch-conv-bias-before-batchnorm: conv bias on vs off =="
"$build/bench/bench_conv_bias"
echo "== torch-unfused-pointwise: hand-written formulas vs the fused ops =="
"$build/bench/bench_unfused_pointwise"
