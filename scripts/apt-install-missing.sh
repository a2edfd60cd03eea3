# Sourced by the setup scripts: install_missing LABEL [APT-OPTION...] -- PACKAGE...
# installs, with apt-get, those of the packages that are not installed yet.
install_missing() {
  local label=$1
  shift
  local options=()
  while [[ $1 != -- ]]; do
    options+=("$1")
    shift
  done
  shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "$label: installing ${missing[*]}"
    apt-get update -qq
    apt-get install -y -qq "${options[@]}" "${missing[@]}" >/dev/null
  fi
  echo "$label: all packages present"
}
