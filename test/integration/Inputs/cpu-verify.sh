#!/bin/sh
# The real verifier, measuring on the CPU too: so that libtorch-tidy --verify
# runs harnesses on a machine without a GPU.
exec "$REAL_VERIFY" --measure-on-cpu "$@"
