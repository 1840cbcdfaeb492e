#!/usr/bin/env bash
# Builds the fuzz targets (clang, SS_FUZZ=ON: libFuzzer + AddressSanitizer + UBSan) into build-fuzz/
# and runs each for SECONDS (default 60) on its corpus: the seeds (tests/fuzz/seeds.txt,
# tests/fuzz/seeds/<target>/), the saved regressions and what earlier runs found
# (build-fuzz/corpus/<target>/), with its dictionary (tests/fuzz/dict/<target>.dict).
#   tools/run_fuzz.sh [SECONDS] [TARGET...]     (targets: default all; JOBS=2 runs two at a time)
# Fails on any finding: crash, sanitizer report, exception other than ss::Error, leak, an input
# slower than 10 s, or more than 2048 MB. A finding is copied to tests/fuzz/regressions/<target>/
# (replayed by the fuzz_regression ctest from then on) and its log kept in build-fuzz/logs/.
# Needs clang-14 and libclang-rt-14-dev (tools/install_deps.sh --fuzz).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
all=(gmsh22_ascii gmsh22_binary gmsh41_ascii gmsh41_binary netgen gzip heat_case flow_case)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
jobs="${JOBS:-2}"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
cc="${CC:-clang-14}"
cxx="${CXX:-clang++-14}"

CC="$cc" CXX="$cxx" cmake -S "$root" -B "$build" -DSS_FUZZ=ON -DSS_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" >/dev/null
cmake --build "$build" -j"$jobs" --target ss_fuzz_targets

mkdir -p "$build/logs" "$build/artifacts"
# The corpus of one target: seeds and regressions copied in (kept across runs, grown by libFuzzer).
prepare_corpus() {
  local t="$1" dir="$build/corpus/$1"
  mkdir -p "$dir"
  while read -r name path; do
    [[ "$name" == "$t" ]] && cp -f "$root/$path" "$dir/seed_$(basename "$path")"
  done < <(grep -v '^#' "$root/tests/fuzz/seeds.txt")
  for d in seeds regressions; do
    [ -d "$root/tests/fuzz/$d/$t" ] && find "$root/tests/fuzz/$d/$t" -maxdepth 1 -type f ! -name '.*' \
      -exec cp -f {} "$dir/" \;
  done
  return 0
}

run_one() {
  local t="$1" log="$build/logs/$1.log" art="$build/artifacts/$1/"
  rm -rf "$art" && mkdir -p "$art"  # earlier findings are in tests/fuzz/regressions already
  prepare_corpus "$t"
  local status=0
  "$build/tests/fuzz/fuzz_$t" "$build/corpus/$t" -dict="$root/tests/fuzz/dict/$t.dict" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$art" -print_final_stats=1 >"$log" 2>&1 || status=$?
  local stats
  stats="$(grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units' "$log" | tr '\n' ' ')"
  if [ "$status" -ne 0 ] || ls "$art" | grep -q .; then
    mkdir -p "$root/tests/fuzz/regressions/$t"
    for f in "$art"*; do [ -f "$f" ] && cp -f "$f" "$root/tests/fuzz/regressions/$t/"; done
    echo "run_fuzz.sh: $t: FINDING (exit $status), see $log; input(s) copied to tests/fuzz/regressions/$t/"
    grep -m3 -E 'ERROR|SUMMARY|runtime error|terminate' "$log" || true
    return 1
  fi
  echo "run_fuzz.sh: $t: ${seconds}s, no finding: $stats"
}

# At most $jobs targets at a time; a slot is refilled as soon as any target ends.
rm -f "$build"/logs/*.failed
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  { run_one "$t" || touch "$build/logs/$t.failed"; } &
done
wait
if ls "$build"/logs/*.failed >/dev/null 2>&1; then
  echo "run_fuzz.sh: findings in $(cd "$build/logs" && ls *.failed | sed 's/\.failed$//' | tr '\n' ' ')(see above)"
  exit 1
fi
echo "run_fuzz.sh: all ${#targets[@]} targets clean for ${seconds}s each"
