#!/usr/bin/env bash
# Installs what myriad needs to build and test on Debian 12, as root or through sudo.
# Does nothing (and needs no root) when everything is already there.
set -euo pipefail

packages=(
    g++ cmake ninja-build pkg-config git
    python3-glad            # generates the GL 4.5 + EGL loader at configure time
    libglm-dev libstb-dev libtinygltf-dev nlohmann-json3-dev
    libglfw3-dev            # windows for the examples
    libxrandr-dev           # X11 headers GLFW/glfw3native.h needs (glfw::Window::nativeHandle)
    libegl-dev libegl1 libegl-mesa0 libgl1-mesa-dri libgl-dev   # headless EGL + llvmpipe
    catch2 libbenchmark-dev
    doxygen                 # the API reference (scripts/docs.sh, target myriad_docs)
    xvfb xauth              # a virtual X server: the windowed examples are tested under it
    clang-14 libclang-rt-14-dev llvm-14   # libFuzzer + sanitizer runtimes, llvm-symbolizer (scripts/fuzz.sh)
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "myriad: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo_cmd=(sudo)
    else
        echo "myriad: these Debian packages are missing and there is no sudo: ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
