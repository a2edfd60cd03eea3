#!/usr/bin/env bash
# Installs the Debian -dev packages whose headers the labelled projects of
# bench/real-code.py include (run as root; installs only what is missing).
# Not part of CI: the benchmark runs by hand (docs/accuracy.md).
#
#   libopencv-dev     pytorch/examples custom-dataset, transfer-learning
#                     (their CI installs it too); LibTorchPlayground
#   libboost-log-dev, libboost-mpi-dev, mpi-default-dev
#                     LibTorchPlayground (Boost.Log, Boost.MPI, mpi.h);
#                     pytorch/examples dist-mnist (mpi.h)
#
# Dependencies the projects fetch at build time at a given version (argparse,
# cxxopts 2.2.0, stb) are not Debian's: repos.tsv names them in its deps
# column and real-code.py extracts them from the mirror like the projects.
# Alpha-Zero's USE_GPU code wants a CUDA toolkit's headers in
# /usr/local/cuda/include, which Debian does not provide here.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(libopencv-dev libboost-log-dev libboost-mpi-dev mpi-default-dev)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/apt-install-missing.sh"
install_missing setup-deps --no-install-recommends -- "${packages[@]}"
