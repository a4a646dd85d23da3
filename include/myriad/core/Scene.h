#pragma once
/** @file
 *  A scene: the root node plus what lights it and what it is cleared to. */
#include "myriad/core/Environment.h"
#include "myriad/core/Picking.h"
#include "myriad/core/SceneNode.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace myriad {

class LightNode;

/** Which faces of a caster draw into a shadow map (the design card's `casterFaces` and
 *  `directionalCasterFaces`; Unity's and Godot's shadow casting "two sided" choice): the
 *  face culled while casters are drawn is the other one. A double-sided material, and a node
 *  with SceneNode::castsShadowFromEveryFace(), casts with both whatever this says. */
enum class CasterFaces : std::uint8_t {
    Front,  ///< front faces cast, back faces culled, as the colour views draw them (the default)
    Back,   ///< back faces cast, front faces culled: a closed mesh's shadow starts at its far
            ///< side, which keeps acne off lit faces (Real-Time Rendering 4th ed., 7.4)
    Both,   ///< nothing culled: every face casts (open meshes, single-sided walls)
};

/** The shadow map of a DirectionalLight (docs/shadows.md). Off by default: a scene without
 *  shadows draws and compiles exactly as before.
 *
 *  When on, every Renderer::render() adds one depth-only view from the light per cascade
 *  before the frame's own views: an orthographic box along the light, fitted around the
 *  colour views' frusta over the cascade's slice of @ref distance from their eyes and snapped
 *  to whole texels (so the shadows do not shimmer as the camera moves), drawn into its layer
 *  of a mapSize x mapSize 32-bit float depth array texture with the frame's one upload. Nodes with SceneNode::castsShadow() draw into it (an
 *  InstancedMeshNode in one draw, each instance at its own place, instances masked with
 *  InstancedMeshNode::setCastsShadow(index, false) left out); Lit materials of nodes with
 *  SceneNode::receivesShadow() darken where it is occluded (each fragment reads the cascade
 *  its view depth falls in): only the light's term, ambient stays. Unlit materials neither
 *  receive nor change.
 *
 *  Biases are in shadow-map texels (one texel is 2 * radius / mapSize world units, where the
 *  radius is that of the cascade's box), so they scale with the map and need no retuning when
 *  @ref distance changes. Why biases exist at all (shadow acne: a surface shadowing itself
 *  between the depth samples of its own texels): Microsoft, "Common Techniques to Improve
 *  Shadow Depth Maps" (Windows Dev Center), and Akenine-Moller et al., Real-Time Rendering,
 *  4th ed., section 7.4.
 *
 *  Renderer::render() checks the values before any GL call and throws InvalidArgument when
 *  enabled and one is out of its range (nothing drawn then). */
struct ShadowSettings {
    bool enabled = false;          ///< draw and sample the shadow map
    std::uint32_t mapSize = 2048;  ///< texels per side, 16..8192 (and at most GL_MAX_TEXTURE_SIZE)
    /** World units from the eye, along each colour view's forward axis, that the map covers
     *  (the view frustum from its near plane up to here, or its far plane if nearer); beyond
     *  it nothing is shadowed. Finite, > 0. Smaller: sharper shadows. Default 50. */
    float distance = 50.0f;
    /** Constant depth bias, in texels of depth (times the texel's world size), >= 0. */
    float bias = 1.0f;
    /** Depth bias that grows with the receiver's slope to the light: times tan(angle between
     *  normal and light), clamped at 10, and times (filterRadius + 1) because the filter's
     *  outer taps land that far away on the slope. Texels, >= 0. */
    float slopeBias = 1.0f;
    /** The receiver's lookup point moves this far along its normal, scaled by sin(angle
     *  between normal and light) (no move facing the light): texels, >= 0. */
    float normalOffset = 1.0f;
    /** Percentage-closer filtering: (2 * filterRadius + 1)^2 hardware-compared, bilinearly
     *  filtered taps (sampler2DShadow, GL_LINEAR) one texel apart; 0 is one such tap (2 x 2
     *  texels). 0..4. */
    std::uint32_t filterRadius = 1;
    /** Cascaded shadow maps: the views' depth up to @ref distance is split into this many
     *  slices, each fitted with its own light box (one more depth-only view and one layer of
     *  the map each), so texels near the eye are small and far ones large. 1..4. */
    std::uint32_t cascades = 1;
    /** Where the slices end: 0 splits the depth evenly, 1 logarithmically (each slice a fixed
     *  ratio longer than the last), between them a blend ("practical split scheme", Zhang et
     *  al., "Parallel-Split Shadow Maps for Large-scale Virtual Environments", 2006). 0..1. */
    float cascadeSplit = 0.75f;
    /** Which faces of the casters draw into the lamps' shadow tiles (point and spot
     *  LightNodes with castsShadow(); docs/lighting.md, "Lamp shadows"): read from
     *  Scene::light.shadow even while the sun's own map is off. The card's
     *  `ShadowSettings.casterFaces`. Default Front. */
    CasterFaces casterFaces = CasterFaces::Front;
    /** Which faces of the casters draw into this (the sun's) cascades: the card's
     *  `ShadowSettings.directionalCasterFaces`. Default Front (as before the setting). */
    CasterFaces directionalCasterFaces = CasterFaces::Front;
};

/** The budget of lamp shadows (docs/lighting.md, "Lamp shadows"): point and spot LightNodes
 *  with castsShadow() draw their depth into tiles of one square depth atlas, a spot one tile
 *  (a perspective view over its outer cone), a point lamp six (the faces of a cube around it).
 *  The atlas is a grid of tileSize x tileSize tiles. Lamps are taken nearest first (the
 *  distance from the first colour view's eye to the lamp's sphere of effective range, 0 when
 *  the eye is inside it; ties by the distance to the lamp itself, then by the order they
 *  entered the scene, Scene::lights()), until
 *  @ref maxLamps are taken or the next one's tiles do not fit; the rest light unshadowed. The
 *  choice is a pure function of the scene and the eye, so it is stable from frame to frame
 *  while they do not change. Renderer::render() checks the values (InvalidArgument) before
 *  any GL call, when some lamp casts. */
struct LampShadowBudget {
    /** Texels per side of the depth atlas (DEPTH_COMPONENT32F), a multiple of tileSize, at most
     *  GL_MAX_TEXTURE_SIZE and 16384; 4 bytes a texel (4096: 64 MiB; twice that with
     *  staticCache). Default 2048. */
    std::uint32_t atlasSize = 2048;
    /** Texels per side of one tile (one spot lamp, one face of a point lamp), 16..atlasSize.
     *  A lamp's LightNode::LampShadow::resolution lowers what it uses of its tiles. Default 512. */
    std::uint32_t tileSize = 512;
    /** At most this many lamps are shadowed in a frame, 0..256 (0: none). Default 8. */
    std::uint32_t maxLamps = 8;
    /** Keep a second atlas of static casters (SceneNode::shadowIsStatic()): each lamp's static
     *  tile is drawn only when a static caster in it or the lamp changes, copied into the frame's
     *  atlas each frame, the other casters drawn over the copy. False: every caster every frame
     *  into one atlas. Default true. */
    bool staticCache = true;
};

/** One directional light, as glTF's KHR_lights_punctual "directional": parallel rays. */
struct DirectionalLight {
    /** World space, the way the light travels; any length (normalised when drawn), zero means
     *  straight down. NaN or Inf makes Renderer::render() throw InvalidArgument. */
    glm::vec3 direction{-0.4f, -1.0f, -0.3f};
    glm::vec3 color{1.0f};                     ///< linear RGB
    /** Multiplies color. Kept from before LightNode with its meaning: a white Lambert (Lit)
     *  surface facing this light shows color * intensity, so its illuminance is pi * color *
     *  intensity lux in KHR_lights_punctual's units (docs/lighting.md). */
    float intensity = 1.0f;
    ShadowSettings shadow;                     ///< its shadow map; off by default
    /** The light channels it reaches (SceneNode::lightChannels()); default every channel. */
    std::uint32_t channels = 0xFFFFFFFFu;
};

/** Which fog a Scene has (docs/lighting.md, "Fog"). Names after OpenGL's fixed-function fog
 *  (GL_LINEAR, GL_EXP, GL_EXP2), as three.js's Fog and FogExp2 and Godot's depth and
 *  exponential fog name them; Height after Unreal's exponential height fog. */
enum class FogMode : std::uint8_t {
    None,                ///< no fog (the default): every program compiles and draws as without it
    Linear,              ///< f = clamp((end - d) / (end - start), 0, 1) (GL_LINEAR)
    Exponential,         ///< f = exp(-density * d) (GL_EXP, Godot's exponential fog)
    ExponentialSquared,  ///< f = exp(-(density * d)^2) (GL_EXP2, three.js FogExp2)
    /** Density density * exp(-heightFalloff * (y - height)) at world height y, integrated
     *  along the ray from the eye: f = exp(-optical depth), in closed form (Inigo Quilez,
     *  "Better fog", 2010; Unreal Engine's Exponential Height Fog). Thick low down, thin
     *  above. */
    Height,
};

/** The scene's fog: what fraction f of a drawn surface's colour remains at eye distance d
 *  (world units, from the view's eye to the point, Euclidean: the same in every direction),
 *  the rest being @ref color. Applied in linear light after lighting, to meshes, batches,
 *  populations, scatter and particles, each the way its blending needs (docs/lighting.md):
 *  opaque, masked and "over"-blended surfaces rgb = mix(color, rgb, f), alpha unchanged;
 *  premultiplied particles rgb * f + color * alpha * (1 - f); additive particles rgb * f (the
 *  added light fades, no fog colour is added). The clear colour is not fogged: set it to the
 *  fog colour for a horizon that melts into the fog. Depth-only views (shadow maps) ignore it.
 *
 *  Renderer::render() checks the values when mode is not None, before any GL call, and
 *  throws InvalidArgument (nothing drawn then) when one is out of its range. */
struct Fog {
    FogMode mode = FogMode::None;  ///< None: no fog
    glm::vec3 color{0.5f};         ///< linear RGB, finite, >= 0
    float start = 0.0f;            ///< Linear: distance where fog begins (f = 1), world units, finite, >= 0
    float end = 100.0f;            ///< Linear: distance where fog is whole (f = 0), finite, > start
    /** Exponential, ExponentialSquared: extinction per world unit; Height: extinction per
     *  world unit at world height @ref height. Finite, >= 0. */
    float density = 0.02f;
    float height = 0.0f;           ///< Height: world y (up) where the density is @ref density; finite
    /** Height: how fast the density thins with height, per world unit up (the density is
     *  divided by e every 1 / heightFalloff units); finite, >= 0 (0: Exponential). */
    float heightFalloff = 0.2f;
};

/** The root of a node tree and its lighting. Ownership: owns the whole tree.
 *  Thread safety: as SceneNode. Lighting: `light` (the sun with a shadow map), the tree's
 *  LightNodes (lights()) and `ambient`, through each material's model (docs/lighting.md). */
class Scene {
public:
    /** An empty scene: its root is in it (root().scene() is this scene). */
    Scene() : m_root("root") { m_root.m_scene = this; }
    /** Every node still in the tree leaves it first (SceneNode::onDetachedFromScene, children
     *  before parents), then the tree is destroyed. */
    ~Scene() { m_root.bindToScene(nullptr); }
    Scene(const Scene&) = delete;
    Scene& operator=(const Scene&) = delete;
    /** Every LightNode in the tree (hidden ones too), in the order they entered it; O(1).
     *  Pointers stay valid while the nodes are in this scene. */
    [[nodiscard]] std::span<LightNode* const> lights() const noexcept { return m_lights; }
    /** The root node, named "root": add the scene's nodes under it. Lives as long as the scene. */
    [[nodiscard]] SceneNode& root() noexcept { return m_root; }
    /** Read-only root(). */
    [[nodiscard]] const SceneNode& root() const noexcept { return m_root; }

    /** The nearest thing @p ray hits among the visible mesh nodes (a hidden node hides its subtree,
     *  as when drawing; layer masks are not consulted), or nothing. A node is tested against its
     *  world bounding box, except a batch (InstancedMeshNode) in PickMode::Instances, the default
     *  (InstancedMeshNode::setPickMode()), whose drawn instances are tested against their own boxes
     *  and then the mesh's triangles in each instance's space (Moller and Trumbore, "Fast, Minimum
     *  Storage Ray/Triangle Intersection", 1997), both faces, with morph targets at the weights
     *  drawn (the node's, or the instance's own). Reads the instances as they are now: nothing to
     *  recompute after a write. Mirrored, sheared and non-uniformly scaled instances hit where they
     *  are drawn; an instance with a singular matrix is never hit. The hit on a batch names the
     *  instance (PickHit::instance, and PickHit::handle when it has one), as three.js's Raycaster
     *  reports instanceId; a batch in PickMode::Bounds is one box and names none. O(nodes +
     *  instances tested * triangles), no acceleration structure.
     *  @throws InvalidArgument if the ray's direction is zero or not finite, or its origin is not
     *  finite. (src/core/Picking.cpp) */
    [[nodiscard]] std::optional<PickHit> pick(const Ray& ray) const;
    /** Every hit of @p ray as pick() defines them (per batch in PickMode::Instances, one per
     *  instance hit), nearest first. @throws as pick(). */
    [[nodiscard]] std::vector<PickHit> pickAll(const Ray& ray) const;

    DirectionalLight light;                        ///< the sun kept from before LightNode, with its shadow map
    /** The uniform radiance of the sky around every surface, linear RGB: a Lambert surface
     *  shows albedo * ambient, a metallic-roughness one its split-sum share (docs/lighting.md).
     *  Used when neither @ref environment nor @ref hemisphere is set. */
    glm::vec3 ambient{0.25f};
    /** Image-based ambient (docs/lighting.md, "Image-based ambient"): when set, it replaces
     *  @ref ambient and @ref hemisphere for every Lit and MetallicRoughness surface: Lambert
     *  diffuse from its irradiance (Environment::irradiance() / pi * albedo), the metallic-roughness
     *  specular share from the renderer's GGX-prefiltered map of its image. Shared, read only;
     *  the renderer builds its map on the first frame that draws it and keeps it while the
     *  Environment lives (a new Environment object: a new map). */
    std::shared_ptr<const Environment> environment;
    /** Multiplies the environment's radiance; finite, >= 0 (else Renderer::render() throws
     *  InvalidArgument). */
    float environmentIntensity = 1.0f;
    /** Turns the environment about world +Y, radians, counter-clockwise seen from above: what
     *  the image shows along -Z is seen along -Z rotated by this angle. Finite (else
     *  Renderer::render() throws InvalidArgument). */
    float environmentRotation = 0.0f;
    /** Sky and ground ambient, used when @ref environment is empty (replacing @ref ambient);
     *  empty: the flat @ref ambient. */
    std::optional<HemisphereAmbient> hemisphere;
    glm::vec4 clearColor{0.0f, 0.0f, 0.0f, 1.0f};  ///< linear RGBA, written by Renderer::render
    Fog fog;                                       ///< none by default (docs/lighting.md, "Fog")
    /** How many lamps may cast shadows and how large their maps are (docs/lighting.md, "Lamp
     *  shadows"); a lamp casts only with LightNode's setCastsShadow(true). */
    LampShadowBudget lampShadows;
    /** Seconds, the game's clock: what vertex functions read as VertexInput.time (SurfaceShader,
     *  docs/shaders.md "Vertex functions"); the renderer never advances it. Set it each frame;
     *  a float, so wrap it (a period of the motion) to keep it small: at 8192 s its steps are
     *  about 1 ms. Motion vectors (View::velocity) displace the previous position with the
     *  time the previous frame was drawn with. NaN or Inf makes Renderer::render() throw
     *  InvalidArgument. */
    float time = 0.0f;

private:
    friend class LightNode;  // registers itself in m_lights as it enters and leaves the tree
    SceneNode m_root;
    std::vector<LightNode*> m_lights;
};

} // namespace myriad
