#pragma once
// A log of GL calls for tests: swaps glad's global function pointers (glad_glXxx, generated into
// the build tree by cmake/Glad.cmake) for logging wrappers that forward to the originals, and
// puts the originals back when it is destroyed. The library and the tests link one static glad,
// so the library's calls go through the wrappers too.
//
//     test::GlCallLog log;                     // hooks defaultFunctions() below
//     MYRIAD_GL_CALL_LOG_HOOK(log, glUniform1f);  // any other glad function, one line
//     renderer.render(scene, camera, target);
//     for (const test::GlCall& call : log.callsTo("glFenceSync")) ...
//
// One log at a time (the pointers are process-wide); constructing a second throws. Single
// thread: the GL context's. The log only observes: arguments and results pass through unchanged.
#include <glad/gl.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace myriad::test {

/** One logged call. Arguments and the result are kept as 64 bits each: integers and enums
 *  (signed ones sign-extended), pointers and GLsync as their address, floats as a double's bits;
 *  argument<T>(i) / resultAs<T>() convert back. */
struct GlCall {
    std::uint64_t sequence = 0;         ///< 0, 1, 2 ... in call order, over every hooked function
    std::string function;               ///< "glCopyNamedBufferSubData"
    std::vector<std::uint64_t> arguments;
    std::optional<std::uint64_t> result;  ///< empty for void functions
    std::string text;                   ///< "#12 glFenceSync(37143, 0) -> 0x5581..."

    template <typename T>
    [[nodiscard]] T argument(std::size_t index) const {
        return fromBits<T>(arguments.at(index));
    }
    template <typename T>
    [[nodiscard]] T resultAs() const {
        return fromBits<T>(result.value());
    }

    template <typename T>
    static std::uint64_t toBits(T value) noexcept {
        if constexpr (std::is_pointer_v<T>) {
            return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(value));
        } else if constexpr (std::is_floating_point_v<T>) {
            return std::bit_cast<std::uint64_t>(static_cast<double>(value));
        } else if constexpr (std::is_signed_v<T>) {
            return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
        } else {
            return static_cast<std::uint64_t>(value);
        }
    }
    template <typename T>
    static T fromBits(std::uint64_t bits) noexcept {
        if constexpr (std::is_pointer_v<T>) {
            return reinterpret_cast<T>(static_cast<std::uintptr_t>(bits));
        } else if constexpr (std::is_floating_point_v<T>) {
            return static_cast<T>(std::bit_cast<double>(bits));
        } else if constexpr (std::is_signed_v<T>) {
            return static_cast<T>(static_cast<std::int64_t>(bits));
        } else {
            return static_cast<T>(bits);
        }
    }
};

class GlCallLog;

namespace detail {

template <typename T>
void appendValue(std::ostringstream& out, T value) {
    if constexpr (std::is_pointer_v<T>) {
        out << (value == nullptr ? "null" : "0x") ;
        if (value != nullptr) {
            out << std::hex << reinterpret_cast<std::uintptr_t>(value) << std::dec;
        }
    } else if constexpr (std::is_same_v<T, GLboolean> || std::is_same_v<T, signed char> ||
                         std::is_same_v<T, char>) {
        out << static_cast<int>(value);
    } else {
        out << value;
    }
}

/** The wrapper of one glad pointer: Pointer is &glad_glXxx; the specialisation below takes the
 *  function's signature apart. */
template <auto* Pointer, typename Function = std::remove_pointer_t<decltype(Pointer)>>
struct Hook;

template <auto* Pointer, typename Result, typename... Args>
struct Hook<Pointer, Result(GLAD_API_PTR*)(Args...)> {
    using FunctionPointer = Result(GLAD_API_PTR*)(Args...);
    static inline FunctionPointer original = nullptr;
    static inline std::string name;

    static Result GLAD_API_PTR wrapper(Args... args);
};

} // namespace detail

/** The log. Hooks are installed by the constructor (defaultFunctions()) and by hook(); the
 *  destructor restores every pointer it changed, last first. */
class GlCallLog {
public:
    struct NoFunctions {};

    /** Hooks defaultFunctions(). Needs GL loaded (a context made current once).
     *  @throws std::logic_error if another GlCallLog is alive. */
    GlCallLog() : GlCallLog(NoFunctions{}) { hookDefaultFunctions(); }
    /** Hooks nothing yet: add functions with hook() / MYRIAD_GL_CALL_LOG_HOOK. */
    explicit GlCallLog(NoFunctions) {
        if (active() != nullptr) {
            throw std::logic_error("test::GlCallLog: one log at a time");
        }
        active() = this;
    }
    ~GlCallLog() {
        for (auto restore = m_restore.rbegin(); restore != m_restore.rend(); ++restore) {
            (*restore)();
        }
        active() = nullptr;
    }
    GlCallLog(const GlCallLog&) = delete;
    GlCallLog& operator=(const GlCallLog&) = delete;

    /** Logs calls through glad pointer @p Pointer (&glad_glXxx) under @p name. A pointer glad
     *  left null (function not loaded) or one already hooked is left alone. */
    template <auto* Pointer>
    void hook(std::string_view name) {
        using H = detail::Hook<Pointer>;
        if (*Pointer == nullptr || *Pointer == &H::wrapper) {
            return;
        }
        H::original = *Pointer;
        H::name = std::string(name);
        *Pointer = &H::wrapper;
        m_restore.emplace_back([] {
            *Pointer = H::original;
            H::original = nullptr;
        });
    }

    /** The functions the default constructor hooks: buffer uploads and copies, mapping, sync
     *  objects, barriers, texture uploads, instanced draws. */
    void hookDefaultFunctions();

    [[nodiscard]] const std::vector<GlCall>& calls() const noexcept { return m_calls; }
    /** The calls to @p function, in order. */
    [[nodiscard]] std::vector<GlCall> callsTo(std::string_view function) const {
        std::vector<GlCall> found;
        for (const GlCall& call : m_calls) {
            if (call.function == function) {
                found.push_back(call);
            }
        }
        return found;
    }
    /** Forgets the calls logged so far; sequence numbers keep counting. */
    void clear() noexcept { m_calls.clear(); }
    /** Every call, one a line (for INFO()). */
    [[nodiscard]] std::string dump(std::size_t maxLines = 200) const {
        std::string out;
        for (std::size_t i = 0; i < m_calls.size() && i < maxLines; ++i) {
            out += m_calls[i].text;
            out += '\n';
        }
        if (m_calls.size() > maxLines) {
            out += "... " + std::to_string(m_calls.size() - maxLines) + " more\n";
        }
        return out;
    }

    /** Appends a call; the hooks' end of the log. */
    void record(std::string_view function, std::vector<std::uint64_t> arguments,
                std::optional<std::uint64_t> result, std::string argumentText, std::string resultText) {
        GlCall call;
        call.sequence = m_next++;
        call.function = std::string(function);
        call.arguments = std::move(arguments);
        call.result = result;
        call.text = "#" + std::to_string(call.sequence) + " " + call.function + "(" + argumentText + ")";
        if (result) {
            call.text += " -> " + resultText;
        }
        m_calls.push_back(std::move(call));
    }

    /** The live log, or null. */
    static GlCallLog*& active() noexcept {
        static GlCallLog* instance = nullptr;
        return instance;
    }

private:
    std::vector<GlCall> m_calls;
    std::vector<std::function<void()>> m_restore;
    std::uint64_t m_next = 0;
};

template <auto* Pointer, typename Result, typename... Args>
Result GLAD_API_PTR detail::Hook<Pointer, Result(GLAD_API_PTR*)(Args...)>::wrapper(Args... args) {
    auto log = [&](std::optional<std::uint64_t> result, std::string resultText) {
        GlCallLog* const target = GlCallLog::active();
        if (target == nullptr) {
            return;
        }
        std::ostringstream text;
        [[maybe_unused]] std::size_t index = 0;
        ((text << (index++ == 0 ? "" : ", "), appendValue(text, args)), ...);
        target->record(name, {GlCall::toBits(args)...}, result, text.str(), std::move(resultText));
    };
    if constexpr (std::is_void_v<Result>) {
        original(args...);
        log(std::nullopt, {});
    } else {
        const Result result = original(args...);
        std::ostringstream text;
        appendValue(text, result);
        log(GlCall::toBits(result), text.str());
        return result;
    }
}

/** Hooks glad_<function> under the name "<function>": MYRIAD_GL_CALL_LOG_HOOK(log, glUniform1f).
 *  (# and ## do not expand the glXxx -> glad_glXxx macro.) */
#define MYRIAD_GL_CALL_LOG_HOOK(log, function) (log).hook<&glad_##function>(#function)

inline void GlCallLog::hookDefaultFunctions() {
    MYRIAD_GL_CALL_LOG_HOOK(*this, glNamedBufferStorage);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glNamedBufferSubData);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glCopyNamedBufferSubData);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glMapNamedBufferRange);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glFlushMappedNamedBufferRange);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glUnmapNamedBuffer);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glFenceSync);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glClientWaitSync);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glWaitSync);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glDeleteSync);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glMemoryBarrier);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glTextureSubImage2D);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glDrawElementsInstancedBaseInstance);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glDrawElementsInstanced);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glDrawArraysInstanced);
    MYRIAD_GL_CALL_LOG_HOOK(*this, glMultiDrawElementsIndirect);  // the table-driven path
}

/** Checks the upload rule on a log: for every pair of glCopyNamedBufferSubData calls out of
 *  @p stagingBuffer whose source ranges overlap, the later one must come after a glFenceSync
 *  issued after the earlier copy and a glClientWaitSync on that fence that returned
 *  GL_ALREADY_SIGNALED or GL_CONDITION_SATISFIED (OpenGL 4.5 section 4.1: a signalled fence means
 *  every command before it completed). Copies only reveal the ring's reuse: the CPU wrote the
 *  bytes just before the later copy, so the guard must precede that copy.
 *  @return one line per unguarded pair; empty when the rule holds. O(copies^2) comparisons. */
/** The first @p max of @p lines, one per line: what a failed call-log check prints. */
inline std::string joined(const std::vector<std::string>& lines, std::size_t max = 10) {
    std::string out;
    for (std::size_t i = 0; i < lines.size() && i < max; ++i) {
        out += lines[i] + "\n";
    }
    return out;
}

/** glGetIntegerv(@p name) of one value, for tests that read GL state back. */
inline GLint integer(GLenum name) {
    GLint value = 0;
    glGetIntegerv(name, &value);
    return value;
}

inline std::vector<std::string> unguardedStagingRewrites(const GlCallLog& log, GLuint stagingBuffer) {
    struct Copy {
        std::uint64_t sequence;
        std::uint64_t begin;
        std::uint64_t end;
        std::uint64_t guardedBelow;  ///< copies with a smaller sequence are known complete
        std::string text;
    };
    std::vector<Copy> copies;
    std::vector<std::pair<GLsync, std::uint64_t>> fences;  // live sync -> glFenceSync's sequence
    std::uint64_t guardedBelow = 0;
    for (const GlCall& call : log.calls()) {
        if (call.function == "glFenceSync") {
            std::erase_if(fences, [&](const auto& f) { return f.first == call.resultAs<GLsync>(); });
            fences.emplace_back(call.resultAs<GLsync>(), call.sequence);
        } else if (call.function == "glClientWaitSync") {
            const GLenum status = call.resultAs<GLenum>();
            if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) {
                for (const auto& [sync, created] : fences) {
                    if (sync == call.argument<GLsync>(0)) {
                        guardedBelow = std::max(guardedBelow, created);
                    }
                }
            }
        } else if (call.function == "glDeleteSync") {
            std::erase_if(fences, [&](const auto& f) { return f.first == call.argument<GLsync>(0); });
        } else if (call.function == "glCopyNamedBufferSubData" &&
                   call.argument<GLuint>(0) == stagingBuffer) {
            const auto begin = static_cast<std::uint64_t>(call.argument<GLintptr>(2));
            copies.push_back({call.sequence, begin,
                              begin + static_cast<std::uint64_t>(call.argument<GLsizeiptr>(4)),
                              guardedBelow, call.text});
        }
    }
    std::vector<std::string> unguarded;
    for (std::size_t later = 0; later < copies.size(); ++later) {
        for (std::size_t earlier = 0; earlier < later; ++earlier) {
            const Copy& a = copies[earlier];
            const Copy& b = copies[later];
            if (a.begin < b.end && b.begin < a.end && a.sequence >= b.guardedBelow) {
                unguarded.push_back(b.text + " rewrites the source of " + a.text +
                                    " with no signalled fence between them");
            }
        }
    }
    return unguarded;
}

/** A GPU that is never done when asked without waiting: while alive, glClientWaitSync with a
 *  zero timeout (a poll) answers GL_TIMEOUT_EXPIRED without asking the driver, which GL allows
 *  for any fence not yet known signalled; waits with a timeout go to the driver. So code that
 *  relies on polls finding llvmpipe done at once (a GPU never behind) shows its real waits.
 *  Make it before a GlCallLog, so the log records the answers the library saw. One at a time. */
class LaggingGpu {
public:
    LaggingGpu() {
        if (original() != nullptr) {
            throw std::logic_error("test::LaggingGpu: one at a time");
        }
        original() = glad_glClientWaitSync;
        glad_glClientWaitSync = &clientWaitSync;
    }
    ~LaggingGpu() {
        glad_glClientWaitSync = original();
        original() = nullptr;
    }
    LaggingGpu(const LaggingGpu&) = delete;
    LaggingGpu& operator=(const LaggingGpu&) = delete;

private:
    static PFNGLCLIENTWAITSYNCPROC& original() noexcept {
        static PFNGLCLIENTWAITSYNCPROC pointer = nullptr;
        return pointer;
    }
    static GLenum GLAD_API_PTR clientWaitSync(GLsync sync, GLbitfield flags, GLuint64 timeout) {
        return timeout == 0 ? GLenum{GL_TIMEOUT_EXPIRED} : original()(sync, flags, timeout);
    }
};

/** Hooks what unfencedMappedRewrites() and unbarrieredBufferAccesses() read, beyond
 *  defaultFunctions(): where buffers are bound for reading (vertex buffers, buffer textures,
 *  storage blocks), the calls that read them (draws, dispatches) and the CPU's other buffer
 *  calls (reads back, clears). */
inline void hookReadersAndBufferAccess(GlCallLog& log) {
    MYRIAD_GL_CALL_LOG_HOOK(log, glVertexArrayVertexBuffer);
    MYRIAD_GL_CALL_LOG_HOOK(log, glTextureBufferRange);
    MYRIAD_GL_CALL_LOG_HOOK(log, glBindBufferRange);
    MYRIAD_GL_CALL_LOG_HOOK(log, glBindBufferBase);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawArraysInstancedBaseInstance);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawElementsIndirect);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDispatchCompute);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetNamedBufferSubData);
    MYRIAD_GL_CALL_LOG_HOOK(log, glClearNamedBufferData);
    MYRIAD_GL_CALL_LOG_HOOK(log, glClearNamedBufferSubData);
}

namespace detail {

inline bool isReadingCall(const std::string& function) {
    return function == "glDrawElementsInstancedBaseInstance" || function == "glDrawElementsInstanced" ||
           function == "glDrawArraysInstanced" || function == "glDrawArraysInstancedBaseInstance" ||
           function == "glDrawElementsIndirect" || function == "glMultiDrawElementsIndirect" ||
           function == "glDispatchCompute";
}

inline bool isSignalled(const GlCall& call) {
    const GLenum status = call.resultAs<GLenum>();
    return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED;
}

/** Records that the call numbered @p sequence read @p region: (region, last reader) pairs. */
inline void markRead(std::vector<std::pair<std::uint64_t, std::uint64_t>>& lastRead, std::uint64_t region,
                     std::uint64_t sequence) {
    const auto read = std::find_if(lastRead.begin(), lastRead.end(), [&](const auto& r) { return r.first == region; });
    if (read == lastRead.end()) {
        lastRead.emplace_back(region, sequence);
    } else {
        read->second = sequence;
    }
}

/** What the fences of a call log say has completed: feed it every call in order (see());
 *  guardedBelow is then the sequence below which every command is known complete (the
 *  newest fence a glClientWaitSync saw signalled; fences signal in order). */
struct FenceHistory {
    std::vector<std::pair<GLsync, std::uint64_t>> fences;  ///< live sync -> glFenceSync's sequence
    std::uint64_t guardedBelow = 0;
    /** @return true when @p call was a fence call (made, waited on, deleted). */
    bool see(const GlCall& call) {
        if (call.function == "glFenceSync") {
            std::erase_if(fences, [&](const auto& f) { return f.first == call.resultAs<GLsync>(); });
            fences.emplace_back(call.resultAs<GLsync>(), call.sequence);
        } else if (call.function == "glClientWaitSync") {
            if (isSignalled(call)) {
                for (const auto& [sync, created] : fences) {
                    if (sync == call.argument<GLsync>(0)) {
                        guardedBelow = std::max(guardedBelow, created);
                    }
                }
            }
        } else if (call.function == "glDeleteSync") {
            std::erase_if(fences, [&](const auto& f) { return f.first == call.argument<GLsync>(0); });
        } else {
            return false;
        }
        return true;
    }
};

} // namespace detail

/** The fence rule of unfencedMappedRewrites() for a mapped buffer whose regions are each
 *  viewed by a buffer texture of their own (glTextureBufferRange, made once), the reader
 *  choosing a region by binding its texture to a unit (a particle pool's three parts, a sort
 *  order's): a write into a region shows as the first binding of its texture after another
 *  region of @p mappedBuffer was bound (on any unit); it must follow a signalled fence issued
 *  after that region's last reader. A draw reads the regions bound on units at the time.
 *  Needs hookReadersAndBufferAccess() and glBindTextureUnit hooked.
 *  @return one line per unfenced rewrite; empty: the rule holds. */
inline std::vector<std::string> unfencedRegionSwitches(const GlCallLog& log, GLuint mappedBuffer) {
    detail::FenceHistory history;
    const std::uint64_t& guardedBelow = history.guardedBelow;
    std::vector<std::pair<GLuint, std::uint64_t>> views;   // texture -> region (its offset)
    std::vector<std::pair<GLuint, std::uint64_t>> units;   // unit -> region bound there
    std::vector<std::pair<std::uint64_t, std::uint64_t>> lastRead;  // region -> last reader's sequence
    std::optional<std::uint64_t> current;  // the region bound last
    std::vector<std::string> unfenced;
    for (const GlCall& call : log.calls()) {
        if (history.see(call)) {
            continue;
        }
        if (call.function == "glTextureBufferRange") {
            const auto texture = call.argument<GLuint>(0);
            std::erase_if(views, [&](const auto& v) { return v.first == texture; });
            if (call.argument<GLuint>(2) == mappedBuffer) {
                views.emplace_back(texture, static_cast<std::uint64_t>(call.argument<GLintptr>(3)));
            }
        } else if (call.function == "glBindTextureUnit") {
            const auto unit = call.argument<GLuint>(0);
            std::erase_if(units, [&](const auto& u) { return u.first == unit; });
            const auto view = std::find_if(views.begin(), views.end(),
                                           [&](const auto& v) { return v.first == call.argument<GLuint>(1); });
            if (view == views.end()) {
                continue;
            }
            const std::uint64_t region = view->second;
            units.emplace_back(unit, region);
            if (current && *current != region) {
                const auto read = std::find_if(lastRead.begin(), lastRead.end(), [&](const auto& r) { return r.first == region; });
                if (read != lastRead.end() && guardedBelow <= read->second) {
                    unfenced.push_back(call.text + " binds the region at byte " + std::to_string(region) +
                                       ", rewritten with no signalled fence issued after its last reader #" +
                                       std::to_string(read->second));
                }
            }
            current = region;
        } else if (detail::isReadingCall(call.function)) {
            for (const auto& [unit, region] : units) {
                detail::markRead(lastRead, region, call.sequence);
            }
        }
    }
    return unfenced;
}

/** Checks the fence rule for a persistently mapped buffer the CPU rewrites in regions of
 *  @p regionBytes (a streaming batch's three parts) while draws read another region: every
 *  write into a region must follow a glClientWaitSync that saw signalled a fence issued after
 *  the region's last reader (OpenGL 4.5 section 4.1: a signalled fence means every command
 *  before it completed; fences signal in order, so a later one covers an earlier one).
 *  The CPU's writes are not GL calls; they show as the move of a binding point (a vertex
 *  array's binding, a buffer texture, an indexed storage binding) from one region of
 *  @p mappedBuffer to another: the renderer writes a region just before it points its readers
 *  there; the first binding point to move there shows the write, the others follow it. A
 *  reader is a draw, which reads every region some binding point holds at the time
 *  (conservative: a binding left behind counts as read), or a dispatch, which reads the
 *  regions held by indexed bindings (storage blocks).
 *  Needs hookReadersAndBufferAccess(). @return one line per unfenced rewrite; empty: rule holds. */
inline std::vector<std::string> unfencedMappedRewrites(const GlCallLog& log, GLuint mappedBuffer,
                                                       std::uint64_t regionBytes) {
    detail::FenceHistory history;
    const std::uint64_t& guardedBelow = history.guardedBelow;
    std::vector<std::pair<std::string, std::uint64_t>> bindings;  // binding point -> region
    std::vector<std::pair<std::uint64_t, std::uint64_t>> lastRead;  // region -> last reader's sequence
    std::vector<std::string> unfenced;
    auto bind = [&](const GlCall& call, std::string point, GLuint buffer, std::uint64_t offset) {
        auto it = std::find_if(bindings.begin(), bindings.end(), [&](const auto& b) { return b.first == point; });
        if (buffer != mappedBuffer) {
            if (it != bindings.end()) {
                bindings.erase(it);
            }
            return;
        }
        const std::uint64_t region = offset / regionBytes;
        if (it == bindings.end()) {
            bindings.emplace_back(std::move(point), region);  // a new binding point: no move, no write shown
            return;
        }
        const bool heldElsewhere = std::any_of(bindings.begin(), bindings.end(), [&](const auto& b) {
            return b.first != it->first && b.second == region;
        });
        if (it->second != region && !heldElsewhere) {
            const auto read = std::find_if(lastRead.begin(), lastRead.end(), [&](const auto& r) { return r.first == region; });
            if (read != lastRead.end() && guardedBelow <= read->second) {
                unfenced.push_back(call.text + " points at region " + std::to_string(region) +
                                   ", rewritten with no signalled fence issued after its last reader #" +
                                   std::to_string(read->second));
            }
        }
        it->second = region;
    };
    for (const GlCall& call : log.calls()) {
        if (history.see(call)) {
            continue;
        }
        if (call.function == "glVertexArrayVertexBuffer") {
            bind(call, "vertex-array " + std::to_string(call.argument<GLuint>(0)) + "." + std::to_string(call.argument<GLuint>(1)),
                 call.argument<GLuint>(2), static_cast<std::uint64_t>(call.argument<GLintptr>(3)));
        } else if (call.function == "glTextureBufferRange") {
            bind(call, "texture " + std::to_string(call.argument<GLuint>(0)), call.argument<GLuint>(2),
                 static_cast<std::uint64_t>(call.argument<GLintptr>(3)));
        } else if (call.function == "glBindBufferRange" || call.function == "glBindBufferBase") {
            const bool range = call.function == "glBindBufferRange";
            bind(call, "indexed " + std::to_string(call.argument<GLenum>(0)) + "." + std::to_string(call.argument<GLuint>(1)),
                 call.argument<GLuint>(2), range ? static_cast<std::uint64_t>(call.argument<GLintptr>(3)) : 0);
        } else if (detail::isReadingCall(call.function)) {
            const bool dispatch = call.function == "glDispatchCompute";
            for (const auto& [point, region] : bindings) {
                if (dispatch && point.rfind("indexed ", 0) != 0) {
                    continue;  // compute reads storage blocks, not vertex arrays or the draw's textures
                }
                detail::markRead(lastRead, region, call.sequence);
            }
        }
    }
    return unfenced;
}

/** Checks the barrier rule for buffers shaders write (OpenGL 4.5, "Shader Memory Access Synchronization"): after a
 *  dispatch, every buffer bound as a storage block (glBindBufferBase/Range on
 *  GL_SHADER_STORAGE_BUFFER; conservatively, read-only ones too) may hold shader writes, and
 *  the CPU's next glNamedBufferSubData, glGetNamedBufferSubData, glCopyNamedBufferSubData
 *  (source or destination), glClearNamedBuffer(Sub)Data or glMapNamedBufferRange on it must
 *  come after a glMemoryBarrier with GL_BUFFER_UPDATE_BARRIER_BIT (or GL_ALL_BARRIER_BITS).
 *  Needs hookReadersAndBufferAccess(). @return one line per access without the barrier. */
inline std::vector<std::string> unbarrieredBufferAccesses(const GlCallLog& log) {
    std::vector<std::pair<GLuint, GLuint>> storage;  // binding index -> buffer
    std::vector<std::pair<GLuint, std::uint64_t>> written;  // buffer -> the dispatch's sequence
    std::vector<std::string> found;
    auto access = [&](const GlCall& call, GLuint buffer) {
        for (const auto& [name, dispatch] : written) {
            if (name == buffer) {
                found.push_back(call.text + " touches buffer " + std::to_string(buffer) + ", written by dispatch #" +
                                std::to_string(dispatch) + ", with no GL_BUFFER_UPDATE_BARRIER_BIT between");
            }
        }
    };
    for (const GlCall& call : log.calls()) {
        const std::string& f = call.function;
        if ((f == "glBindBufferBase" || f == "glBindBufferRange") && call.argument<GLenum>(0) == GL_SHADER_STORAGE_BUFFER) {
            std::erase_if(storage, [&](const auto& b) { return b.first == call.argument<GLuint>(1); });
            storage.emplace_back(call.argument<GLuint>(1), call.argument<GLuint>(2));
        } else if (f == "glDispatchCompute") {
            for (const auto& [index, buffer] : storage) {
                if (buffer != 0 && std::none_of(written.begin(), written.end(), [&](const auto& w) { return w.first == buffer; })) {
                    written.emplace_back(buffer, call.sequence);
                }
            }
        } else if (f == "glMemoryBarrier") {
            const GLbitfield bits = call.argument<GLbitfield>(0);
            if ((bits & GL_BUFFER_UPDATE_BARRIER_BIT) != 0 || bits == GL_ALL_BARRIER_BITS) {
                written.clear();
            }
        } else if (f == "glNamedBufferSubData" || f == "glGetNamedBufferSubData" || f == "glClearNamedBufferData" ||
                   f == "glClearNamedBufferSubData" || f == "glMapNamedBufferRange") {
            access(call, call.argument<GLuint>(0));
        } else if (f == "glCopyNamedBufferSubData") {
            access(call, call.argument<GLuint>(0));
            access(call, call.argument<GLuint>(1));
        }
    }
    return found;
}

/** The GL name of the first buffer among 1..@p searchUpTo whose label is @p label, or 0.
 *  (glGetObjectLabel on names that are not buffers raises GL_INVALID_VALUE; the error is
 *  cleared.) */
inline GLuint bufferLabelled(std::string_view label, GLuint searchUpTo = 4096) {
    std::vector<GLchar> text(label.size() + 2);
    for (GLuint name = 1; name <= searchUpTo; ++name) {
        if (glIsBuffer(name) == GL_FALSE) {
            continue;
        }
        GLsizei length = 0;
        glGetObjectLabel(GL_BUFFER, name, static_cast<GLsizei>(text.size()), &length, text.data());
        if (static_cast<std::size_t>(length) == label.size() &&
            std::memcmp(text.data(), label.data(), label.size()) == 0) {
            return name;
        }
    }
    return 0;
}

} // namespace myriad::test
