#!/usr/bin/env bash
# Robustness fuzzing (issue 9; docs/robustness.md), on one core:
#   1. torch-tidy-fuzzer, a libFuzzer target that runs every torch-* check,
#      the fix-its and the findings/SARIF exports in-process under ASan and
#      UBSan, mutating the test inputs (test/checkers, test/integration,
#      examples, fuzz/seeds), for FUZZ_TIME seconds;
#   2. fuzz/mutate_driver.py: DRIVER_RUNS mutated inputs through the real
#      libtorch-tidy binary (plain, --fix, --export-findings/--export-sarif),
#      each under a time limit.
# Crashes, hangs and failed exports are saved under $FUZZ_WORK/artifacts
# (libFuzzer) and $FUZZ_WORK/driver/crashes; the script exits 1 if any.
#
#   bash scripts/fuzz.sh                      # defaults: 40 min of libFuzzer, then up to 1500 driver runs
#   FUZZ_TIME=300 DRIVER_RUNS=100 bash scripts/fuzz.sh    # a quick one (DRIVER_RUNS=0: no driver)
#   bash scripts/fuzz.sh --replay FILE...     # one input through the fuzzer, verbose
#
# Environment: FUZZ_BUILD_DIR (/tmp/build-fuzz; its libraries are
# instrumented), FUZZ_DRIVER_BUILD_DIR (/tmp/build-fuzz-driver, a plain
# build for the driver as shipped), FUZZ_WORK (/tmp/fuzz-work),
# FUZZ_TIME (2400 s of wall time), FUZZ_TIMEOUT (20 s: a hang),
# FUZZ_RSS_MB (4096), DRIVER_RUNS (1500), DRIVER_TIME (1200 s), JOBS (2, for
# the build), FUZZ_SEED (libFuzzer's -seed; 0: random).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-/tmp/build-fuzz}
driver_build=${FUZZ_DRIVER_BUILD_DIR:-/tmp/build-fuzz-driver}
work=${FUZZ_WORK:-/tmp/fuzz-work}
max_time=${FUZZ_TIME:-2400}
timeout=${FUZZ_TIMEOUT:-20}
rss=${FUZZ_RSS_MB:-4096}
driver_runs=${DRIVER_RUNS:-1500}
driver_time=${DRIVER_TIME:-1200}
seed=${FUZZ_SEED:-0}

# libFuzzer comes with clang-19 (libclang-common-19-dev depends on
# libclang-rt-19-dev); CI does not fuzz, so setup-debian.sh needs no more.
if [ ! -f "$(clang++-19 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
  echo "fuzz.sh: libFuzzer not found: apt-get install libclang-rt-19-dev" >&2
  exit 2
fi

# Build: the fuzz target (instrumented) and the real driver (as shipped).
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++-19 -DLIBTORCH_TIDY_FUZZ=ON \
    -DLIBTORCH_TIDY_BUILD_RUNTIME=OFF >/dev/null
fi
nice -n 10 cmake --build "$build" -j "${JOBS:-2}" --target torch-tidy-fuzzer
fuzzer=$build/fuzz/torch-tidy-fuzzer
driver=$driver_build/driver/libtorch-tidy

# A snapshot of the mock headers (edits of the tests during a run must not
# invalidate the PCHs), one PCH per mock version, and the seed corpus: the
# test inputs with their CHECK lines blanked (their RUN lines pick the mock
# version), plus fuzz/seeds.
# The corpus ($work/corpus) is kept from run to run; the rest is made anew.
inputs=$root/test/checkers/Inputs
mock=$work/mock
mkdir -p "$work"
rm -rf "$mock" "$work/pch" "$work/seeds" "$work/scratch"
cp -r "$inputs/libtorch" "$mock"
mkdir -p "$work/pch" "$work/seeds" "$work/corpus" "$work/artifacts" "$work/scratch"
for v in v1.13 v2.1 unversioned; do
  clang++-19 -x c++-header -std=c++17 \
    -isystem "$mock/$v/include/torch/csrc/api/include" \
    -isystem "$mock/common/include" \
    -isystem "$mock/common/include/torch/csrc/api/include" \
    -fpch-instantiate-templates "$root/fuzz/prefix.h" -o "$work/pch/$v.pch"
done
for f in "$root"/test/checkers/*.cpp "$root"/test/integration/*.cpp \
         "$root"/examples/*.cpp "$root"/fuzz/seeds/*.cpp; do
  sed -E 's#//[[:space:]]*CHECK-[A-Z0-9-]+:.*#//#' "$f" \
    > "$work/seeds/$(basename "$(dirname "$f")")-$(basename "$f")"
done

export LIBTORCH_TIDY_FUZZ_MOCK=$mock
export LIBTORCH_TIDY_FUZZ_PCH=$work/pch
export LIBTORCH_TIDY_FUZZ_WORK=$work/scratch
export LIBTORCH_TIDY_FUZZ_EXTRA=$inputs/gtest:$inputs/conv-helpers
# Clang keeps some allocations to the end of the process on purpose.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ "${1:-}" = "--replay" ]; then
  shift
  LIBTORCH_TIDY_FUZZ_VERBOSE=1 exec "$fuzzer" "$@"
fi

# 1. libFuzzer, one process (no -jobs/-workers: the machine is shared). Fork
# mode with one worker keeps going after a crash, so one run collects them
# all.
echo "fuzz.sh: libFuzzer for $max_time s, hang = ${timeout} s"
start=$(date +%s)
set +e
/usr/bin/time -f "%U %S" -o "$work/libfuzzer.cpu" \
nice -n 10 "$fuzzer" "$work/corpus" "$work/seeds" \
  -dict="$root/fuzz/torch.dict" -max_len=16384 -timeout="$timeout" \
  -rss_limit_mb="$rss" -max_total_time="$max_time" \
  -seed="$seed" -detect_leaks=0 -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -artifact_prefix="$work/artifacts/" -close_fd_mask=1 -print_final_stats=1 \
  > "$work/libfuzzer.log" 2>&1
fuzz_rc=$?
set -e
fuzz_secs=$(( $(date +%s) - start ))
# Fork mode's last status line: "#RUNS: cov: ... exec/s: ... crashes: N".
last=$(grep -E '^#[0-9]+: cov:' "$work/libfuzzer.log" | tail -1 || true)
fuzz_n=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
artifacts=$(find "$work/artifacts" -type f | wc -l)
# time(1) puts "Command exited with non-zero status N" first when it did.
cpu=$(tail -1 "$work/libfuzzer.cpu" 2>/dev/null | awk '{printf "%d", $1 + $2}')
cpu=${cpu:-0}
echo "fuzz.sh: libFuzzer: ${fuzz_n:-0} inputs in ${fuzz_secs} s wall, ${cpu} s CPU" \
     "($(( ${fuzz_n:-0} / (fuzz_secs > 0 ? fuzz_secs : 1) )) exec/s wall," \
     "$(( ${fuzz_n:-0} / (cpu > 0 ? cpu : 1) )) per CPU second)," \
     "$artifacts crash/timeout/oom artifacts (exit $fuzz_rc); log: $work/libfuzzer.log"
echo "fuzz.sh: last status: $last"

# 2. The real driver, as shipped (not instrumented), with the same PCHs.
driver_rc=0
if [ "$driver_runs" -gt 0 ]; then
  # A fuzz build instruments the driver's libraries: the driver as shipped
  # comes from a plain build of its own.
  if [ ! -f "$driver_build/build.ninja" ]; then
    cmake -S "$root" -B "$driver_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER=clang++-19 -DLIBTORCH_TIDY_BUILD_RUNTIME=OFF \
      -DLIBTORCH_TIDY_BUILD_TESTS=OFF >/dev/null
  fi
  nice -n 10 cmake --build "$driver_build" -j "${JOBS:-2}" --target libtorch-tidy
  echo "fuzz.sh: the driver, up to $driver_runs mutated inputs or $driver_time s"
  set +e
  nice -n 10 python3 "$root/fuzz/mutate_driver.py" --driver "$driver" \
    --mock "$mock" --pch "$work/pch" --seeds "$work/seeds" --out "$work/driver" \
    --extra-include "$inputs/gtest" "$inputs/conv-helpers" \
    --runs "$driver_runs" --max-time "$driver_time" --time-limit "$timeout" \
    | tee "$work/driver.log"
  driver_rc=${PIPESTATUS[0]}
  set -e
fi

echo "fuzz.sh: total $(( $(date +%s) - start )) s"
if [ "$artifacts" -gt 0 ] || [ "$driver_rc" -ne 0 ]; then
  echo "fuzz.sh: FOUND PROBLEMS: $work/artifacts, $work/driver/crashes" \
       "(replay one with: bash scripts/fuzz.sh --replay FILE)"
  exit 1
fi
echo "fuzz.sh: no crash, hang or export failure"
