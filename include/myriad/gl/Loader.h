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

/** The platform's "which context is current on this thread" (eglGetCurrentContext,
 *  glfwGetCurrentContext, wglGetCurrentContext ...), returning null when none is. */
using CurrentContextQuery = void* (*)();

/** Loads every GL 4.5 core entry point through @p loader and checks the current context.
 *  @param loader the platform's lookup (eglGetProcAddress, glfwGetProcAddress ...), called
 *  once per entry point while loadGl() runs and not kept (null: GlError).
 *  @param currentContext lets requireCurrentContext() ask the platform, not GL, whether a
 *  context is current: calling GL with no context current is undefined behaviour (Mesa returns
 *  zeros, other drivers crash). HeadlessContext and Window pass theirs; null: the check trusts
 *  the caller and only reads GL's version.
 *  @throws GlError if no context is current, the context is below 4.5, or an entry point is
 *  missing; the message gives the version and renderer the driver reported. */
void loadGl(ProcAddressLoader loader, CurrentContextQuery currentContext = nullptr);

/** True once loadGl() succeeded in this process. */
[[nodiscard]] bool isGlLoaded() noexcept;

/** Throws GlError naming @p function unless GL is loaded and a GL 4.5 context is current on
 *  this thread. Asks the platform first (the CurrentContextQuery given to loadGl()), so it
 *  makes no GL call when no context is current; then reads GL_MAJOR_VERSION and
 *  GL_MINOR_VERSION (two glGetIntegerv) only the first time it sees that context on this
 *  thread (after each loadGl()), so a steady frame makes no glGet. Contexts are told apart by
 *  the platform's handle; with no CurrentContextQuery the version is read once per thread and
 *  loadGl(), and the caller is trusted to keep a 4.5 context current. */
void requireCurrentContext(const char* function);

} // namespace myriad::gl
