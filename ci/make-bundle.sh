#!/usr/bin/env bash
# Makes the relocatable bundle: a tarball with bin/rooftop (and bin/rooftop_gpu_tests where
# CUDA was built), share/rooftop/{templates,specs} and lib/ with the shared libraries the
# binaries load from this machine, found through ldd (glibc's own libraries stay behind:
# every Linux has them). The binaries carry RPATH $ORIGIN/../lib, so the unpacked bundle
# runs anywhere on x86-64 Linux with glibc >= this machine's; a GPU needs only its driver.
#
# usage: ci/make-bundle.sh BUILD_DIR OUT.tar.gz [--with-cuda-libs | --with-hip-libs]
#   --with-cuda-libs  also carry cuBLASLt (about 540 MB) for machines without the CUDA
#                     toolkit; without it, rooftop finds cuBLASLt on the machine (docs/build.md).
#   --with-hip-libs   a HIP build (docs/build.md, "AMD GPUs"): also carry the code-object library
#                     the HIP runtime opens at run time (libamd_comgr.so.2, with LLVM: about
#                     200 MB), for machines without ROCm; without it, the machine's is used.
set -euo pipefail
build=${1:?usage: make-bundle.sh BUILD_DIR OUT.tar.gz [--with-cuda-libs | --with-hip-libs]}
out=${2:?usage: make-bundle.sh BUILD_DIR OUT.tar.gz [--with-cuda-libs | --with-hip-libs]}
with_libs=${3:-}
name=rooftop-$(git -C "$(dirname "$0")/.." describe --always --dirty 2>/dev/null || echo local)-linux-x86_64
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name

# The program and its data; the development files (library, headers, CMake package) stay out.
cmake --install "$build" --prefix "$root" --component Unspecified >/dev/null
mkdir -p "$root/lib"
carry() {  # carry FILE...: each file and the libraries it links, glibc's own left out
  for file in "$@"; do
    echo "$file"
    ldd "$file" | awk '/=> \// {print $3}'
  done | sort -u | while read -r lib; do
    case $(basename "$lib") in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libresolv.so.*|libutil.so.*) ;;
      *) [[ $lib == "$root"/* ]] || cp -L "$lib" "$root/lib/" ;;
    esac
  done
}
carry "$root"/bin/*
if [[ $with_libs == --with-cuda-libs ]]; then
  cuda_lib=$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/../lib64
  cp -L "$cuda_lib"/libcublasLt.so.* "$root/lib/"
fi
if [[ $with_libs == --with-hip-libs ]]; then
  # The HIP runtime opens it with dlopen, which ldd does not see.
  comgr=$(/sbin/ldconfig -p | awk '/libamd_comgr\.so\.2 /{print $NF; exit}')
  [ -n "$comgr" ] || { echo "make-bundle: libamd_comgr.so.2 not found (apt-get install libamd-comgr2)" >&2; exit 1; }
  carry "$comgr"
fi
# Every binary must resolve every library from the bundle or the system's glibc.
for exe in "$root"/bin/*; do
  if LD_LIBRARY_PATH= ldd "$exe" | grep -q "not found"; then
    echo "make-bundle: $exe has unresolved libraries:" >&2
    ldd "$exe" | grep "not found" >&2
    exit 1
  fi
done
tar -C "$stage" -czf "$out.tmp" "$name"
mv "$out.tmp" "$out"
echo "wrote $out ($(du -h "$out" | cut -f1)): $name/bin/rooftop"
