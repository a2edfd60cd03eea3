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
#   libopencv-dev also: OpenSplat, ssd.libtorch, libtorch-faster-rcnn, CANES,
#                     SemanticSegmentation-Libtorch, nerf-libtorch, maskrcnn_benchmark.cpp
#   nlohmann-json3-dev OpenSplat, build-your-own-llm, LibTorch_QMC (all fetch or
#                     vendor nlohmann/json 3.x as a submodule or FetchContent)
#   libnanoflann-dev, libcxxopts-dev
#                     OpenSplat (FetchContent nanoflann 1.5.5, cxxopts 3.2.0; Debian
#                     has 1.4.3 and 3.1.1, enough for the labelled files)
#   libeigen3-dev     mhubii/ppo_libtorch, Cpp_Raylib_Libtorch_SnakeAI (find_package Eigen3)
#   libhdf5-dev       CANES (H5Cpp.h, /usr/include/hdf5/serial)
#   libpoco-dev       SemanticSegmentation-Libtorch (Poco JSON; Windows builds vendor 1.9.4)
#   libomp-19-dev     LibTorch_QMC (OpenMP: omp.h for clang 19, which -fopenmp makes
#                     ATen/ParallelOpenMP.h include)
#   python3-dev, pybind11-dev
#                     SchNet_LibTorch_CUDA, libtorch-faster-rcnn (torch/extension.h;
#                     the LibTorch 2.6 headers here do not ship pybind11)
#
# Dependencies the projects fetch at build time at a given version (argparse,
# cxxopts 2.2.0, stb) are not Debian's: repos.tsv names them in its deps
# column and real-code.py extracts them from the mirror like the projects.
# Alpha-Zero's USE_GPU code wants a CUDA toolkit's headers in
# /usr/local/cuda/include, which Debian does not provide here (nor do the
# CUDA-configured rows of OpenSplat, ssd.libtorch, libtorch-faster-rcnn, CANES,
# maskrcnn_benchmark.cpp). raylib, implot, imgui, plog and rapidjson (a newer
# one than Debian's 1.1.0, which clang rejects) are deps entries too.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(libopencv-dev libboost-log-dev libboost-mpi-dev mpi-default-dev
          nlohmann-json3-dev libnanoflann-dev libcxxopts-dev libeigen3-dev libhdf5-dev
          libpoco-dev libomp-19-dev python3-dev pybind11-dev)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/apt-install-missing.sh"
install_missing setup-deps --no-install-recommends -- "${packages[@]}"
