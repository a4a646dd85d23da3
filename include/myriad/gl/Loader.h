#pragma once
/** @file
 *  Loading the OpenGL 4.5 core entry points (glad) for the current context.
 *
 *  HeadlessContext and Window call loadGl() themselves; call it yourself only when you made the
 *  context with something else (SDL, Qt, your own EGL), after making it current.
 *  Thread safety: call on the context's thread. The entry points are process-wide (glad), so
 *  every context myriad draws with must be GL 4.5 core from the same driver. */
namespace myriad::gl {

/** A function pointer as returned by eglGetProcAddress / glfwGetProcAddress. */
using ProcAddress = void (*)();
/** The platform's lookup, e.g. eglGetProcAddress or glfwGetProcAddress. */
using ProcAddressLoader = ProcAddress (*)(const char* name);

/** Loads every GL 4.5 core entry point through @p loader and checks the current context.
 *  @throws GlError if no context is current, the context is below 4.5, or an entry point is
 *  missing; the message gives the version and renderer the driver reported. */
void loadGl(ProcAddressLoader loader);

/** True once loadGl() succeeded in this process. */
[[nodiscard]] bool isGlLoaded() noexcept;

/** Throws GlError naming @p function unless GL is loaded and a GL 4.5 context is current on
 *  this thread. Costs one glGetIntegerv. */
void requireCurrentContext(const char* function);

} // namespace myriad::gl
