#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` in the build folder makes it; it must hold the program,
# the library, the public header, the CMake package and the data, depend on the Debian
# packages the binaries link (dpkg-shlibdeps), and its rooftop must run once unpacked.
# ci/fresh-debian.sh then installs it with apt-get in a clean Debian root.
#
# usage: package_deb.sh BUILD_DIR
set -euo pipefail
build=$1
cd "$build"
rm -rf package-out
cpack -G DEB --config CPackConfig.cmake >cpack.log 2>&1 || { cat cpack.log; exit 1; }
deb=$(ls package-out/rooftop_*_amd64.deb)
echo "package: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb" | tee package-out/info.txt
depends=$(grep '^ Depends:' package-out/info.txt || true)
for lib in libdnnl libbenchmark libfmt libsqlite3 libre2 libgomp; do
  [[ $depends == *"$lib"* ]] || { echo "the package does not depend on $lib: $depends"; exit 1; }
done
dpkg-deb --contents "$deb" >package-out/contents.txt
for f in ./usr/bin/rooftop ./usr/lib/librooftop.so ./usr/include/rooftop/rooftop.hpp ./usr/include/rooftop/types.hpp \
         ./usr/lib/cmake/rooftop/rooftopConfig.cmake ./usr/lib/cmake/rooftop/rooftopPerfTest.cmake \
         ./usr/share/rooftop/templates/report.html.mustache ./usr/share/rooftop/specs/; do
  grep -q " $f" package-out/contents.txt || { echo "the package lacks $f"; cat package-out/contents.txt; exit 1; }
done
rm -rf package-out/root && dpkg-deb -x "$deb" package-out/root
package-out/root/usr/bin/rooftop --version
package-out/root/usr/bin/rooftop list | grep "^  gemm " >/dev/null
echo "package: OK"
