#!/usr/bin/env bash
# Installs what is missing, builds and runs every test, in three passes:
#   1. Release build: every test (unit, gl on Mesa's llvmpipe without a GPU, physics, mpi, fault).
#   2. AddressSanitizer + UBSan build (build-asan/): the unit and gl tests again, GL included (the
#      end-to-end command tests run the sanitized streamsolve), and those labelled sanitize; any
#      report fails the test.
#   3. The fuzz targets (clang, build-fuzz/), 10 s each on their corpus (tools/run_fuzz.sh; longer runs
#      by hand: tools/run_fuzz.sh 600).
# SS_SKIP_ASAN=1 leaves out pass 2, SS_SKIP_FUZZ=1 pass 3, while iterating.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
tools/install_deps.sh --test --fuzz
# SS_TEST_SHARDS=4: each GoogleTest program runs as 4 processes, not one per test (tests/CMakeLists.txt).
# SS_BUILD_TESTS=ON: the README's first command configures the same folder with it OFF (it builds
# only the streamsolve command), and a cached OFF would leave no test here.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSS_BUILD_TESTS=ON -DSS_TEST_SHARDS=4 >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure --no-tests=error -j"$jobs" --timeout 900)
if [ "${SS_SKIP_ASAN:-0}" != 1 ]; then
  # -O1 for the libraries, whose loops the tests spend their time in; the run pipelines, the
  # command and the test files, which compile about four times faster at -O0 with AddressSanitizer,
  # take -O0 (ss_sanitizer_unoptimized in their CMakeLists). -g1: line tables only (a report still
  # names file and line).
  # Only what the unit and gl tests run is built (target ss_sanitizer_tests).
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DSS_SANITIZE=ON -DSS_BUILD_TESTS=ON -DSS_TEST_SHARDS=4 >/dev/null
  cmake --build build-asan -j"$jobs" --target ss_sanitizer_tests
  # UBSAN halt_on_error: a report fails the test (by default UBSan prints and goes on).
  # Leak reports from the GL driver and Open MPI: the sanitizer build keeps every library loaded
  # (src/util/keep_libraries_loaded.cpp), so their globals stay visible; tests/support/lsan.supp
  # lists the blocks Open MPI itself never frees, each explained.
  # intercept_tls_get_addr=0: with it, LeakSanitizer's stop-the-world tracer read a garbage dynamic-TLS
  # range of a GL/MPI library and crashed ("Tracer caught signal 11", 3-rank heat_mpi runs under
  # ctest); without it LeakSanitizer skips dynamic TLS, which can only add reports, never hide one.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$PWD/../tests/support/lsan.supp:print_suppressions=0" \
    ctest -L 'unit|gl|sanitize' --output-on-failure --no-tests=error -j"$jobs" --timeout 900)
fi
if [ "${SS_SKIP_FUZZ:-0}" != 1 ]; then
  tools/run_fuzz.sh 10
fi
