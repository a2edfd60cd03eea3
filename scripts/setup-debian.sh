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
  # Unit tests of the pure functions; with doctest and Catch2, the real
  # test frameworks whose registered tests the checks leave alone.
  libgtest-dev doctest-dev catch2
  # The verifier runs snippets in a bubblewrap sandbox.
  bubblewrap
)
source "$(dirname "${BASH_SOURCE[0]}")/apt-install-missing.sh"
install_missing setup -- "${packages[@]}"

# Real LibTorch 2.6 headers for the integration tests, next to Debian's 1.13:
# Debian trixie's libtorch-dev unpacked into the checkout, nothing installed.
# A private apt list and state (same mirror as the machine's own sources) keep
# the machine's bookworm apt state as it is. Only analysis and -fsyntax-only
# use them: trixie's libraries need a newer glibc.
torch2_fetch() {
  local dir=$1 uri
  # The machine's Debian mirror (not its security mirror), deb822 or one-line.
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    uri=$(awk '$1 == "URIs:" && $2 !~ /security/ {print $2; exit}' \
      /etc/apt/sources.list.d/debian.sources)
  else
    uri=$(awk '$1 == "deb" {for (i = 2; i <= NF; ++i)
                 if ($i ~ /^[a-z+]+:\/\// && $i !~ /security/) {print $i; exit}}' \
      /etc/apt/sources.list 2>/dev/null)
  fi
  local apt=$dir/apt
  rm -rf "$apt" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
  [[ -n $uri ]] || { echo "no Debian mirror in the machine's apt sources" >"$apt/log"; return 1; }
  echo "deb $uri trixie main" > "$apt/sources.list"
  local opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
              -o Acquire::Languages=none -qq)
  apt-get "${opts[@]}" --error-on=any update >"$apt/log" 2>&1 &&
    (cd "$apt/debs" && apt-get "${opts[@]}" download libtorch-dev >>"$apt/log" 2>&1) || return 1
  local deb version
  deb=$(ls "$apt"/debs/libtorch-dev_*.deb 2>/dev/null | head -n 1)
  [[ -n $deb ]] || return 1
  version=$(dpkg-deb -f "$deb" Version)
  [[ $version == 2.6.* ]] || { echo "trixie's libtorch-dev is $version, not 2.6" >>"$apt/log"; return 1; }
  rm -rf "$dir/usr" && dpkg -x "$deb" "$dir" && echo "$version" > "$dir/VERSION" && rm -rf "$apt"
}
torch2=$(cd "$(dirname "$0")/.." && pwd)/third_party/libtorch-2.6
if [[ ${LIBTORCH_TIDY_SKIP_TORCH2:-0} == 1 ]]; then
  # For builds without the tests (a project's own CI installing the tool).
  echo "setup: LibTorch 2.6 test headers skipped (LIBTORCH_TIDY_SKIP_TORCH2=1)"
elif [[ $(cat "$torch2/VERSION" 2>/dev/null) == 2.6.* &&
      -f $torch2/usr/include/torch/csrc/api/include/torch/torch.h ]]; then
  echo "setup: LibTorch $(cat "$torch2/VERSION") headers present in $torch2"
else
  mkdir -p "$torch2"
  torch2_fetch "$torch2" || {
    echo "setup: error: could not download Debian trixie's libtorch-dev (LibTorch 2.6 headers for the tests) into $torch2; see $torch2/apt/log" >&2
    exit 1
  }
  echo "setup: LibTorch $(cat "$torch2/VERSION") headers unpacked into $torch2"
fi
