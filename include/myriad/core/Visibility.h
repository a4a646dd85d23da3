#pragma once
/** @file
 *  Per-instance visibility opt-ins of an InstancedMeshNode: culling, back-to-front sorting and
 *  picking (docs/visibility.md). The drawing defaults keep a batch what it always was: culled
 *  and sorted as one. Picking defaults to per instance, as three.js's Raycaster reports the
 *  instanceId it hit; testing the batch as one box is the cheaper opt-in. */
#include <cstdint>

namespace myriad {

/** How a batch's instances are culled against each view. */
enum class InstanceCulling : std::uint8_t {
    /** The default: the batch is one sphere around every instance, drawn whole or not at all. */
    Off,
    /** Each drawn instance's bounding sphere is tested against the view frustum on the CPU
     *  (src/core/InstanceCulling.cpp); the draw reads instances through the resulting
     *  visible-index list, so records, handles and every stream stay where they are. */
    Cpu,
    /** The same test on the GPU: a compute pass per (view, batch) computes each drawn
     *  instance's sphere from its record and writes the visible-index list and an indirect draw
     *  command, drawn with glDrawElementsIndirect; nothing comes back to the CPU, and no CPU
     *  pass over instances. Draws the same instances as Cpu. A blended batch sorted back to
     *  front (sortBackToFront) is culled on the CPU instead: sorting needs the list there.
     *  The record buffer is read as one storage block: Renderer::render() throws CapacityError
     *  for a batch whose capacity() * 64 bytes exceeds GL_MAX_SHADER_STORAGE_BLOCK_SIZE (at
     *  least 128 MiB by the spec, two million instances; desktop drivers allow far more). */
    Gpu,
};

/** What Scene::pick() tests a batch against. */
enum class PickMode : std::uint8_t {
    /** The cheaper opt-in: the node's world bounding box, like any MeshNode; O(1) per batch,
     *  and the hit names no instance (PickHit::instance empty). */
    Bounds,
    /** The default: each drawn instance's box, then the mesh's triangles in that instance's
     *  space; the hit names the instance (PickHit::instance, PickHit::handle). O(drawn
     *  instances) box tests per pick, plus the triangles of each instance whose box the ray
     *  crosses. */
    Instances,
};

/** The visibility opt-ins of one batch: culling and sorting off, picking per instance by
 *  default. A value type, copied in. */
struct InstanceVisibility {
    InstanceCulling culling = InstanceCulling::Off;  ///< per-instance frustum culling; Off: the batch as one
    /** In the blended pass, draw the batch's instances back to front by view depth (each frame,
     *  through the same visible-index list as culling), so overlapping translucent instances
     *  blend in order from any side. Ignored for opaque batches. Default: record order. */
    bool sortBackToFront = false;
    PickMode pickMode = PickMode::Instances;  ///< what Scene::pick() tests: each instance, or the node's box
};

} // namespace myriad
