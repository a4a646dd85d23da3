#include "myriad/gl/View.h"

#include "myriad/gl/OffscreenTarget.h"

namespace myriad::gl {

View View::of(const Camera& camera, const OffscreenTarget& target) {
    View view;
    view.camera = &camera;
    view.framebuffer = target.framebufferId();
    view.viewport = {0, 0, target.width(), target.height()};
    view.depthTexture = target.depthTextureId();
    switch (target.format()) {
    case TargetFormat::Srgb8Alpha8: view.targetEncoding = TargetEncoding::Srgb; break;
    case TargetFormat::Rgba8: view.targetEncoding = TargetEncoding::Linear; break;
    case TargetFormat::Rgba16Float: view.targetEncoding = TargetEncoding::Float; break;
    }
    view.velocity = target.hasVelocity();
    return view;
}

View View::of(const Camera& camera, std::uint32_t width, std::uint32_t height) {
    View view;
    view.camera = &camera;
    view.viewport = {0, 0, width, height};
    return view;
}

} // namespace myriad::gl
