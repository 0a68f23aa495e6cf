#!/usr/bin/env bash
# Installs every Debian package listed in third_party/debian-packages.txt.
# Idempotent: when everything is present it does nothing (no apt-get update).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
manifest="$here/third_party/debian-packages.txt"

mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$manifest" | grep -v '^$')

missing=()
for p in "${pkgs[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == installed ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
[[ $(id -u) == 0 ]] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
