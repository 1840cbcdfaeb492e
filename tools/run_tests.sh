#!/usr/bin/env bash
# Installs what is missing, builds (Release) and runs every test: unit (CPU), gl (headless GL: Mesa's
# llvmpipe without a GPU), then the unit tests again under AddressSanitizer + UBSan.
# Set SS_SKIP_ASAN=1 to leave out the sanitizer pass while iterating.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
tools/install_deps.sh --test
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs" --timeout 900)
if [ "${SS_SKIP_ASAN:-0}" != 1 ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSS_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs" --target streamsolve ss_unit_tests
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest -L unit --output-on-failure -j"$jobs" --timeout 900)
fi
