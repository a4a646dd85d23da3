// The real test is that this executable builds (see CMakeLists.txt); running it reports that.
#include <cstdio>

int main() {
    std::puts("every myriad core header compiled alone, without GL, EGL or GLFW");
    return 0;
}
