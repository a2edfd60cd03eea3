#!/usr/bin/env bash
# Installs what libtorch-tidy needs on Debian bookworm (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  cmake ninja-build g++ python3
  clang-19 clang-tools-19 clang-tidy-19 libclang-19-dev libclang-cpp19-dev
  llvm-19-dev llvm-19-tools
  libtorch-dev nlohmann-json3-dev
  # The tests validate the SARIF output against its JSON schema.
  python3-jsonschema
  # A clang-tidy of another major version: the plugin must refuse it.
  clang-tidy-14
  # The pre-commit hook is tested with the real tool.
  pre-commit git
  # The verifier runs snippets in a bubblewrap sandbox.
  bubblewrap
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "setup: all packages present"
