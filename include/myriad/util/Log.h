#pragma once
/** @file
 *  Diagnostics that are not errors: KHR_debug output, performance notes, context details.
 *
 *  Thread safety: setLogCallback() may be called from any thread; the callback may be invoked
 *  from any thread that uses myriad (the GL driver may call it from its own), so it must be
 *  reentrant. The default callback writes warnings and errors to stderr.
 */
#include <functional>
#include <string_view>

namespace myriad {

/** How serious a message is; the default callback prints Warning and Error only. */
enum class LogLevel { Debug, Info, Warning, Error };

/** Receives one message; the view is valid only during the call. */
using LogCallback = std::function<void(LogLevel level, std::string_view message)>;

/** Replaces the callback; an empty function restores the default (stderr, Warning and above). */
void setLogCallback(LogCallback callback);

/** Sends one message to the current callback. */
void log(LogLevel level, std::string_view message);

} // namespace myriad
