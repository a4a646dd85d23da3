#include "myriad/util/Log.h"

#include <cstdio>
#include <memory>
#include <mutex>

namespace myriad {
namespace {

std::mutex& callbackMutex() {
    static std::mutex mutex;
    return mutex;
}

// Held by shared_ptr so a message in flight keeps its callback alive while another thread
// replaces it: the lock is held only to copy the pointer, never while the callback runs.
std::shared_ptr<const LogCallback>& currentCallback() {
    static std::shared_ptr<const LogCallback> callback;
    return callback;
}

const char* levelName(LogLevel level) {
    switch (level) {
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warning: return "warning";
    case LogLevel::Error: return "error";
    }
    return "?";
}

} // namespace

void setLogCallback(LogCallback callback) {
    auto next = callback ? std::make_shared<const LogCallback>(std::move(callback)) : nullptr;
    std::lock_guard lock(callbackMutex());
    currentCallback() = std::move(next);
}

void log(LogLevel level, std::string_view message) {
    std::shared_ptr<const LogCallback> callback;
    {
        std::lock_guard lock(callbackMutex());
        callback = currentCallback();
    }
    if (callback) {
        (*callback)(level, message);
        return;
    }
    if (level >= LogLevel::Warning) {
        std::fprintf(stderr, "myriad %s: %.*s\n", levelName(level), static_cast<int>(message.size()),
                     message.data());
    }
}

} // namespace myriad
