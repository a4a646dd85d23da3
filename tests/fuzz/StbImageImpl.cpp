// stb_image compiled from Debian's header into the fuzzers, instrumented.
//
// Debian ships stb_image (libstb.so) and tinygltf (libtinygltf.so) as prebuilt shared
// libraries without coverage or AddressSanitizer: linked as they are, libFuzzer would see no
// edges inside the PNG/JPEG decoders, the JSON parser or the GLB splitter, and ASan would miss
// an overflow there. Defining the implementations here (and in TinyGltfImpl.cpp) puts
// instrumented copies of the same source version into each fuzzer executable; the linker binds
// myriad's calls to them (a definition in the executable wins over a shared library's).
// Built only by tests/fuzz/CMakeLists.txt when MYRIAD_FUZZ_INSTRUMENTED_DEPS is on.
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
