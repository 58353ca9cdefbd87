#!/usr/bin/env bash
# Builds the tools into one self-contained archive for a machine that has none of Debian's
# packages: the GPU device machine, whose image holds CUDA and PyTorch but no LLVM, ONNX or
# Protobuf libraries, and which gets only the working tree and 64 MiB of carried files.
#
# LLVM is linked statically (CLUSTUNE_STATIC_LLVM: only the components clustune uses, none of the
# shared libLLVM's Z3, ICU and libxml2); the other shared libraries the tools load (ONNX,
# Protobuf, spdlog, fmt, the C++ runtime) travel in lib/, found through the executables'
# $ORIGIN/../lib run path. glibc and the NVIDIA driver are the target machine's own. The neural
# kernels are built for generic x86-64 (CLUSTUNE_NATIVE_NN=OFF): the device's CPU is unknown here.
# CUDA's libdevice travels too, for kernels that call exp, erf and the like.
#
#   scripts/gpu_bundle.sh [ARCHIVE]     default: bundle/clustune-bundle.tar.xz
#
# On the device: tar xJf bundle/clustune-bundle.tar.xz (scripts/gpu_check.sh does it). The
# archive is xz -9 on one thread, whose 64 MiB window shares the LLVM code the tools have in
# common: about 20 MB for six tools.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
archive=${1:-$root/bundle/clustune-bundle.tar.xz}
build=${CLUSTUNE_BUNDLE_BUILD:-$root/build-bundle}
tools=(clustune-run clustune-measure clustune-worker clustune-tune clustune-partition
  clustune-unit-tests)

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLUSTUNE_STATIC_LLVM=ON \
  -DCLUSTUNE_NATIVE_NN=OFF -DCLUSTUNE_WERROR=ON >/dev/null
ninja -C "$build" "${tools[@]}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/clustune/bin" "$stage/clustune/lib" "$stage/clustune/share"
for tool in "${tools[@]}"; do
  strip -o "$stage/clustune/bin/$tool" "$build/bin/$tool"
done
# Every shared library the tools load, but glibc's own (the target's loader must match its libc)
# and the driver (dlopen'ed from the target's system).
for library in $(ldd "${tools[@]/#/$build/bin/}" | awk '/=>/ { print $3 }' | sort -u); do
  case $(basename "$library") in
  libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux* | libcuda.so*) ;;
  *) strip -o "$stage/clustune/lib/$(basename "$library")" "$(readlink -f "$library")" ;;
  esac
done
libdevice=${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc
if [[ -f $libdevice ]]; then
  cp "$libdevice" "$stage/clustune/share/"
else
  echo "gpu_bundle: no libdevice at $libdevice; kernels that call exp or erf need the target's" >&2
fi
git -C "$root" rev-parse HEAD >"$stage/clustune/COMMIT" 2>/dev/null || true
uname -m >"$stage/clustune/ARCH"

# The bundle must not need this machine: every library resolves inside it or to glibc.
missing=$(LD_LIBRARY_PATH= ldd "$stage"/clustune/bin/* | grep -v -E "=> $stage|linux-vdso|ld-linux|lib(c|m|dl|pthread|rt)\.so" | grep '=>' || true)
if [[ -n $missing ]]; then
  echo "gpu_bundle: libraries resolved outside the bundle:" >&2
  echo "$missing" >&2
  exit 1
fi

mkdir -p "$(dirname "$archive")"
tar -C "$stage" -cf - clustune | xz -9 -T1 >"$archive.tmp"
mv "$archive.tmp" "$archive"
echo "$archive: $(du -h "$archive" | cut -f1) ($(du -sh "$stage/clustune" | cut -f1) unpacked)"
