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
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup-deps: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup-deps: all packages present"
