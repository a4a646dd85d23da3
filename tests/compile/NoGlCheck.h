// Included after each core header: fails the build if a GL, EGL or GLFW header came with it.
#if defined(__gl_h_) || defined(GLAD_GL_H_) || defined(__glext_h_) || defined(GL_VERSION_1_0)
#error "a myriad core header pulled in an OpenGL header"
#endif
#if defined(__egl_h_) || defined(GLAD_EGL_H_) || defined(EGL_VERSION_1_0)
#error "a myriad core header pulled in an EGL header"
#endif
#if defined(_glfw3_h_) || defined(GLFW_VERSION_MAJOR)
#error "a myriad core header pulled in a GLFW header"
#endif
