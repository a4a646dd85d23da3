#include "myriad/gl/LiveObjects.h"

#include "gl/GlCommon.h"

#include <atomic>

namespace myriad::gl {
namespace {

std::atomic<std::int64_t> g_counts[7];

} // namespace

namespace detail {

void countObject(ObjectKind kind, int delta) noexcept {
    g_counts[static_cast<int>(kind)].fetch_add(delta, std::memory_order_relaxed);
}

} // namespace detail

LiveObjectCounts liveObjectCounts() noexcept {
    auto get = [](detail::ObjectKind kind) {
        return g_counts[static_cast<int>(kind)].load(std::memory_order_relaxed);
    };
    return {get(detail::ObjectKind::Buffer), get(detail::ObjectKind::VertexArray),
            get(detail::ObjectKind::Program), get(detail::ObjectKind::Texture),
            get(detail::ObjectKind::Framebuffer), get(detail::ObjectKind::Sync),
            get(detail::ObjectKind::Sampler)};
}

} // namespace myriad::gl
