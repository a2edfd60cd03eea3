#!/usr/bin/env bash
# The main job on the bundled examples: build, analyze examples/ with both
# hosts, show each finding and the code its fix-its produce, then build and
# run the fixed program to show it still trains, and verify every fix on the
# example program itself (program mode: a verdict per finding, measured).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
# Only what the demo runs (the test command builds the test suites); the
# build's progress shows as one line that keeps being rewritten.
echo "== building the plugin, the driver, the verifier and three benchmarks =="
progress() {
  if [ -t 1 ]; then
    while IFS= read -r line; do printf '\r%s\033[K' "${line:0:${COLUMNS:-100}}"; done
    echo
  else
    awk '/^\[[0-9]+\/[0-9]+\]/ && n++ % 20 == 0 { print; fflush() }'
  fi
}
build_log=$(mktemp)
if ! "$root/scripts/build.sh" LibTorchTidyModule libtorch-tidy \
    libtorch-tidy-verify bench_zero_grad bench_anomaly_mode bench_conv_bias \
    2>&1 | tee "$build_log" | progress; then
  tail -n 30 "$build_log"
  echo "demo.sh: the build failed (the whole log: $build_log)" >&2
  exit 1
fi
rm -f "$build_log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples" "$work/examples"
cmake -S "$work/examples" -B "$work/build" -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null

echo "== findings (clang-tidy-19 with the plugin) =="
clang-tidy-19 --load="$build/plugin/LibTorchTidyModule.so" --checks='-*,torch-*' \
  -p "$work/build" "$work/examples/train_cifar_like.cpp" 2>/dev/null

echo "== applying the fix-its (libtorch-tidy --fix) =="
"$build/driver/libtorch-tidy" --checks='-*,torch-*' --fix \
  -p "$work/build" "$work/examples/train_cifar_like.cpp" 2>&1 | grep "applied" || true
diff -u "$root/examples/train_cifar_like.cpp" "$work/examples/train_cifar_like.cpp" \
  --label before --label after || true

echo "== the fixed program still builds and trains =="
cmake --build "$work/build" >/dev/null
"$work/build/train_cifar_like" --epochs 1 --batches-per-epoch 4

echo "== analysis and verification on the program itself (libtorch-tidy --verify --run) =="
# Program mode (docs/verifier.md): the example is built with CMake, then
# each finding's fix (and all fixes together) is built into a scratch copy
# of it and the training command is timed against the unfixed program,
# interleaved. The user's copy below is only read.
cp -r "$root/examples" "$work/program"
# With Clang, as the project builds itself: the verifier's scratch builds then
# precompile LibTorch's headers once and each variant rebuilds in seconds.
cmake -S "$work/program" -B "$work/program-build" -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
mkdir -p "$root/build/reports"
"$build/driver/libtorch-tidy" --checks='-*,torch-*' -p "$work/program-build" --quiet \
  --verify --run '{build}/train_cifar_like --epochs 1 --batches-per-epoch 4' \
  --verify-html="$root/build/reports/verify.html" \
  --verify-json="$root/build/reports/verify.json" \
  "$work/program/train_cifar_like.cpp" 2>/dev/null | grep -v "^ \|warning:\|note:" || true
echo "(report: build/reports/verify.html and verify.json)"

echo "== measured gains of the fixes (bench/, side by side in one run) =="
"$build/bench/bench_zero_grad" --rounds 10
"$build/bench/bench_anomaly_mode" --rounds 8
"$build/bench/bench_conv_bias" --rounds 10
