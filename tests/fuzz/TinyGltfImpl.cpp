// tinygltf compiled from Debian's header into the glTF fuzzer, instrumented: see
// StbImageImpl.cpp for why. stb_image's implementation lives in StbImageImpl.cpp.
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
