#!/usr/bin/env bash
# Runs the README's two commands, exactly as the README writes them, in a minimal Debian 12
# root made from Debian's packages: a package that only the build machine happens to have
# (libdnnl-dev's CMake config needing OpenCL, once) fails here instead of on a new user's
# machine. Needs root (chroot, mounts) and Debian's mirror; it fails, never skips, when the
# root cannot be made.
#
#   ci/fresh-debian.sh            both commands: the main job (install, build rooftop,
#                                 characterize, run, report) and the tests (install --tests,
#                                 build, ctest); then the .deb the tests made, installed with
#                                 apt-get in a second minimal root, and its rooftop run
#   ci/fresh-debian.sh --first    the main job only
#   ci/fresh-debian.sh --second   the tests only
#   ci/fresh-debian.sh --keep     leave the root in $TMPDIR for a look afterwards
#
# DEBIAN_MIRROR overrides http://deb.debian.org/debian (the security suite is taken from
# the same host's debian-security).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
first=true second=true keep=false
for arg in "$@"; do
  case "$arg" in
    --first) second=false ;;
    --second) first=false ;;
    --keep) keep=true ;;
    *) echo "ci/fresh-debian.sh: unknown argument '$arg' (use --first, --second, --keep)" >&2; exit 2 ;;
  esac
done

fail() { echo "ci/fresh-debian.sh: FAILED: $*" >&2; exit 1; }
say() { echo "fresh-debian [$(date -u +%H:%M:%S), $((SECONDS / 60))m$((SECONDS % 60))s] $*"; }

[ "$(id -u)" = 0 ] || fail "needs root to make and enter a Debian root (chroot, mounts); run it with sudo"
if ! command -v mmdebstrap >/dev/null; then
  say "installing mmdebstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null; } ||
    fail "could not install mmdebstrap, so no root can be made"
fi

# The README's commands: the first two ```sh blocks under "## Two commands".
mapfile -t readme_commands < <(awk '
  /^## Two commands/ { section = 1; next }
  section && /^## / { exit }
  section && /^```sh$/ { block = 1; next }
  section && block && /^```$/ { block = 0; next }
  section && block && NF { print }' "$src/README.md")
[ "${#readme_commands[@]}" = 2 ] ||
  fail "README.md's '## Two commands' section should hold two one-line sh blocks; found ${#readme_commands[@]} lines"

work=$(mktemp -d "${TMPDIR:-/var/tmp}/rooftop-fresh-debian.XXXXXX")
root="$work/root"
cleanup() {
  # The mounts live in a private mount namespace that ended with its chroot; refuse to
  # delete through one that is somehow still there (the path compared as text, not a pattern).
  local mounts
  mounts=$(findmnt -ln -o TARGET)
  if [[ $'\n'"$mounts" == *$'\n'"$work"* ]]; then
    echo "ci/fresh-debian.sh: something is still mounted under $work; left in place" >&2
  elif $keep; then
    echo "ci/fresh-debian.sh: the root is kept in $root"
  else
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
say "making a minimal Debian 12 root (mmdebstrap --variant=apt) in $root from $mirror"
# ccache is CI's alone (the README's commands neither need nor name it): the two commands'
# builds share one cache, -Werror left out of its key, so the tests' build (ci preset) reuses
# the objects of the first (default preset). A missing header still fails: ccache preprocesses
# whatever its manifest cannot vouch for.
mmdebstrap --quiet --variant=apt --mode=root --include=ccache bookworm "$root" \
  "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb ${mirror%/debian}/debian-security bookworm-security main" ||
  fail "mmdebstrap could not make the root (is $mirror reachable?)"
say "the root has $(chroot "$root" dpkg-query -f '.\n' -W | wc -l) packages; no compiler: $(chroot "$root" sh -c 'command -v g++ cmake || echo none')"

# The checkout as it is: tracked and untracked files that git does not ignore, and .git
# (the commit recorded in results). Build folders and node_modules stay behind.
mkdir -p "$root/root/rooftop"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -cf - .git) | tar -C "$root/root/rooftop" -xf -
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# The network's trust anchors are this machine's, not a package's: a TLS proxy's CA (npm's
# registry is reached through one here) goes in as the host has it, and ca-certificates
# adds it to the root's store when install-deps.sh installs that package.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -L /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
# The variables that point programs at a CA bundle go in with the file they name; a bundle
# that install-deps.sh's ca-certificates regenerates is replaced there, with the proxy's CA in.
ca_env=()
for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE REQUESTS_CA_BUNDLE; do
  f=${!v:-}
  [ -n "$f" ] && [ -f "$f" ] || continue
  [ -e "$root$f" ] || { mkdir -p "$(dirname "$root$f")" && cp -L "$f" "$root$f"; }
  ca_env+=("$v=$f")
done

build_env=(CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_DIR=/root/.cache/ccache CCACHE_IGNOREOPTIONS=-Werror)
run_in_root() {  # run_in_root COMMAND [ROOT [VAR=VALUE...]]: one README command, from the checkout, as a new user would
  local command=$1 in_root=${2:-$root}
  shift $(($# < 2 ? $# : 2))
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    mount -t proc proc "$1/proc"
    mount --rbind /sys "$1/sys"
    mount --rbind /dev "$1/dev"
    root=$1 command=$2
    shift 2
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" "$@" \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      /bin/bash -c "cd /root/rooftop 2>/dev/null || cd /root; set -euo pipefail && $command"' _ "$in_root" "$command" "${ca_env[@]}" "$@"
}

if $first; then
  say "README, first command (the main job):"
  echo "  \$ ${readme_commands[0]}"
  run_in_root "${readme_commands[0]}" "$root" "${build_env[@]}" || fail "the README's first command failed in a fresh Debian 12 root"
  say "first command passed; report.html: $(stat -c %s "$root/root/rooftop/report.html") bytes"
  # README, "Use rooftop in your project": the install works from the first command's build.
  run_in_root "cmake --install build --prefix /tmp/rooftop-prefix >/dev/null && test -f /tmp/rooftop-prefix/lib/librooftop.so && test -f /tmp/rooftop-prefix/lib/cmake/rooftop/rooftopConfig.cmake" ||
    fail "cmake --install build after the README's first command failed"
  say "cmake --install after the first command: the program, the library and the CMake package installed"
fi
if $second; then
  say "README, second command (build and pass the tests):"
  echo "  \$ ${readme_commands[1]}"
  run_in_root "${readme_commands[1]}" "$root" "${build_env[@]}" || fail "the README's second command failed in a fresh Debian 12 root"
  say "second command passed; the compiler cache: $(chroot "$root" env CCACHE_DIR=/root/.cache/ccache ccache -s | grep -E '^ *(Hits|Misses):' | tr -s ' ' | paste -sd ' ')"
  # The .deb the tests made (downstream.package_deb), installed by apt-get in a second clean
  # root: its dependencies come from Debian's mirror, nothing from the build.
  deb=$(compgen -G "$root/root/rooftop/build-ci/package-out/rooftop_*_amd64.deb" | head -n 1 || true)
  [ -n "$deb" ] || fail "the tests made no .deb (build-ci/package-out; see downstream.package_deb)"
  pkgroot="$work/pkgroot"
  say "installing $(basename "$deb") with apt-get in a second minimal Debian 12 root"
  mmdebstrap --quiet --variant=apt --mode=root bookworm "$pkgroot" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb ${mirror%/debian}/debian-security bookworm-security main" ||
    fail "mmdebstrap could not make the package's root"
  cp "$deb" "$pkgroot/tmp/"
  run_in_root "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb") >/dev/null && rooftop --version && rooftop run --suite gemm --shape 96x80x72 --dtype fp32 --repetitions 2 --min-time 0.01 && test -f /usr/include/rooftop/rooftop.hpp" "$pkgroot" ||
    fail "the .deb did not install or run in a clean Debian 12 root"
  say "the .deb installed with its dependencies and ran"
fi
say "PASSED: the README's commands work on a fresh Debian 12"
