#pragma once
// Internal: the shader texts embedded at build time (generated EmbeddedShaders.cpp).
#include <optional>
#include <string_view>

namespace myriad::gl::detail {
[[nodiscard]] std::optional<std::string_view> embeddedShader(std::string_view name) noexcept;
}
