// encodeLightmap() (myriad/core/Lightmap.h): linear radiance into an 8-bit sRGB lightmap and the
// intensity that scales it back, against the sRGB formula; refusals leave nothing made.
#include "myriad/core/Lightmap.h"
#include "myriad/core/Material.h"
#include "myriad/util/Error.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace myriad;

using myriad::test::linearOfSrgbByte;

TEST_CASE("encodeLightmap: texels at most 1 are encoded as they are, intensity 1", "[lightmap][core]") {
    const std::vector<glm::vec3> radiance{{0.0f, 0.2158605f, 1.0f}, {0.5f, 0.5f, 0.5f}};
    const EncodedLightmap lightmap = encodeLightmap(2, 1, radiance);
    REQUIRE(lightmap.image != nullptr);
    CHECK(lightmap.image->width == 2);
    CHECK(lightmap.image->height == 1);
    CHECK(lightmap.intensity == 1.0f);
    // sRGB: 0 -> 0, linear 0.2158605 -> 128, 1 -> 255, 0.5 -> 188 (IEC 61966-2-1), alpha 255.
    CHECK(lightmap.image->at(0, 0) == 0x0080FFFFu);
    CHECK(lightmap.image->at(1, 0) == 0xBCBCBCFFu);
}

TEST_CASE("encodeLightmap: brighter texels are divided by the brightest channel, which becomes the intensity", "[lightmap][core]") {
    std::vector<glm::vec3> radiance;
    for (int i = 0; i < 16; ++i) {
        radiance.emplace_back(0.25f * static_cast<float>(i), 0.1f, 3.0f - 0.1f * static_cast<float>(i));
    }
    const EncodedLightmap lightmap = encodeLightmap(4, 4, radiance);
    CHECK(lightmap.intensity == 3.75f);  // texel 15's red
    for (std::uint32_t i = 0; i < 16; ++i) {
        const std::uint8_t* texel = lightmap.image->pixel(i % 4, i / 4);
        for (int c = 0; c < 3; ++c) {
            // Drawn as linear(byte) * intensity: within half an 8-bit sRGB step of the given value.
            const float drawn = linearOfSrgbByte(texel[c]) * lightmap.intensity;
            const float step = (linearOfSrgbByte(std::min(255, texel[c] + 1)) - linearOfSrgbByte(std::max(0, texel[c] - 1))) *
                               lightmap.intensity;
            CHECK(std::abs(drawn - radiance[i][c]) <= step * 0.5f + 1e-6f);
        }
        CHECK(texel[3] == 255);
    }
}

TEST_CASE("encodeLightmap refuses a wrong size or a bad value", "[lightmap][core]") {
    const std::vector<glm::vec3> four(4, glm::vec3(0.5f));
    CHECK_THROWS_AS(encodeLightmap(2, 3, four), InvalidArgument);
    CHECK_THROWS_AS(encodeLightmap(0, 0, {}), InvalidArgument);
    std::vector<glm::vec3> bad = four;
    bad[3].g = -0.1f;
    CHECK_THROWS_WITH(encodeLightmap(2, 2, bad), Catch::Contains("texel 3 (x 1, y 1) has channel 1"));
    bad[3].g = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_AS(encodeLightmap(2, 2, bad), InvalidArgument);
    bad[3].g = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(encodeLightmap(2, 2, bad), InvalidArgument);
}

TEST_CASE("a material's lightmap slot reads uv1 and clamps at its edges by default", "[lightmap][core]") {
    const Material material;
    CHECK(material.lightmapTexture.uvSet == 1);
    CHECK(material.lightmapTexture.sampler.wrapS == TextureWrap::ClampToEdge);
    CHECK(material.lightmapTexture.sampler.wrapT == TextureWrap::ClampToEdge);
    CHECK(material.lightmapTexture.sampler.minFilter == MinFilter::LinearMipmapLinear);
    CHECK_FALSE(material.lightmapTexture);
    CHECK(material.lightmapIntensity == 1.0f);
    CHECK(material.lightmapCoordinates == LightmapCoordinates::UvSet);
    CHECK_FALSE(material.hasMaterialTextures());
}
