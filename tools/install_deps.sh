#!/usr/bin/env bash
# Installs the Debian 12 packages streamsolve needs to build, run and test. Idempotent: when every
# package is already there it only checks (about a second) and installs nothing.
#   tools/install_deps.sh          build + run (headless GL through Mesa or the NVIDIA driver)
#   tools/install_deps.sh --test   also what the tests need (python3-meshio for the VTU read-back,
#                                  xvfb for the GLFW-window path)
#   tools/install_deps.sh --tools  also gmsh (tools/make_meshes.sh, tools/bench_mesh_read.sh),
#                                  petsc4py (tools/cg_petsc.py, tools/compare_cg.sh) and openfoam
#                                  (tools/cavity_icofoam.sh, tools/cavity_simplefoam.sh)
#   tools/install_deps.sh --fuzz   also clang 14 with libFuzzer (libclang-rt-14-dev holds
#                                  libclang_rt.fuzzer) and its OpenMP (libomp-14-dev), for
#                                  tools/run_fuzz.sh (cmake -DSS_FUZZ=ON)
set -euo pipefail
packages=(cmake g++ make libglew-dev libglfw3-dev libglm-dev libegl-dev libgl-dev libgl1-mesa-dri
          libegl-mesa0 libgtest-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev zlib1g-dev libpng-dev
          libopenmpi-dev openmpi-bin libmetis-dev libmuparser-dev pkg-config
          libsuitesparse-dev libdeflate-dev)
for arg in "$@"; do
  case "$arg" in
    --test) packages+=(python3 python3-meshio python3-numpy xvfb xauth) ;;
    --tools) packages+=(gmsh python3 python3-meshio python3-numpy time python3-petsc4py openfoam) ;;
    --fuzz) packages+=(clang-14 libclang-rt-14-dev libomp-14-dev) ;;
    *) echo "install_deps.sh: unknown option '$arg' (--test, --tools, --fuzz)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps.sh: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install_deps.sh: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
