#!/usr/bin/env bash
# Makes the relocatable bundle: a tarball with bin/rooftop (and bin/rooftop_gpu_tests where
# CUDA was built), share/rooftop/{templates,specs} and lib/ with the shared libraries the
# binaries load from this machine, found through ldd (glibc's own libraries stay behind:
# every Linux has them). The binaries carry RPATH $ORIGIN/../lib, so the unpacked bundle
# runs anywhere on x86-64 Linux with glibc >= this machine's; a GPU needs only its driver.
#
# usage: ci/make-bundle.sh BUILD_DIR OUT.tar.gz [--with-cuda-libs]
#   --with-cuda-libs  also carry cuBLASLt (about 540 MB) for machines without the CUDA
#                     toolkit; without it, rooftop finds cuBLASLt on the machine (README).
set -euo pipefail
build=${1:?usage: make-bundle.sh BUILD_DIR OUT.tar.gz [--with-cuda-libs]}
out=${2:?usage: make-bundle.sh BUILD_DIR OUT.tar.gz [--with-cuda-libs]}
with_cuda_libs=${3:-}
name=rooftop-$(git -C "$(dirname "$0")/.." describe --always --dirty 2>/dev/null || echo local)-linux-x86_64
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name

# The program and its data; the development files (library, headers, CMake package) stay out.
cmake --install "$build" --prefix "$root" --component Unspecified >/dev/null
mkdir -p "$root/lib"
for exe in "$root"/bin/*; do
  ldd "$exe" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libresolv.so.*|libutil.so.*) ;;
    *) cp -L "$lib" "$root/lib/" ;;
  esac
done
if [[ $with_cuda_libs == --with-cuda-libs ]]; then
  cuda_lib=$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/../lib64
  cp -L "$cuda_lib"/libcublasLt.so.* "$root/lib/"
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
