#!/usr/bin/env bash
# The GPU run, prepared here and run there in one command each
# (docs/verifier.md, "The GPU run"):
#   scripts/gpu-verify.sh prepare OUTDIR [--real-project SRC_DIR ...]
#   scripts/gpu-verify.sh run OUTDIR RESULTDIR [--budget SECONDS]
# Exit codes: 0 done, 1 a step failed (the summary says which), 2 bad input.
set -euo pipefail
exec python3 "$(dirname "$0")/gpu_verify.py" "$@"
