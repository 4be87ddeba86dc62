#!/usr/bin/env bash
# Installs what sched2cu needs on a fresh Debian/Ubuntu development or CI machine: C++ header
# libraries from the distribution, the build tools, Debian's chromium (for the browser test of
# the HTML pages), and Triton 3.6 (only for dumping TTGIR; no GPU needed). It never downloads anything but distribution and PyPI packages. Idempotent.
set -euo pipefail

need_apt=()
pkgs=(nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev ninja-build cmake clang)
# Chromium renders the HTML pages of `sched2cu show` and `--html` in the browser test
# (tests/show/browser_test.py, skipped without it). Debian packages the browser as `chromium`;
# Ubuntu's `chromium-browser` is only a wrapper around a snap, which containers cannot run.
if grep -qx 'ID=debian' /etc/os-release 2>/dev/null; then
  pkgs+=(chromium)
elif ! command -v chromium >/dev/null 2>&1; then
  echo "install_deps: note: no chromium (Debian's package); the browser test will be skipped" >&2
fi
for pkg in "${pkgs[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  echo "install_deps: apt-get install ${need_apt[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  echo "install_deps: error: nvcc (CUDA 13) not found on PATH; install the CUDA toolkit" >&2
  exit 1
fi

if ! python3 -c 'import triton, sys; sys.exit(triton.__version__ != "3.6.0")' 2>/dev/null; then
  echo "install_deps: pip install triton==3.6.0" >&2
  python3 -m pip install -q triton==3.6.0 || echo "install_deps: warning: triton 3.6.0 not installed; TTGIR re-dump tests will be skipped" >&2
fi
