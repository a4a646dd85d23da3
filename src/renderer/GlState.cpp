#include "renderer/GlState.h"

namespace myriad::gl::detail {

namespace {

GLboolean enabled(GLenum capability) { return glIsEnabled(capability); }

void setEnabled(GLenum capability, GLboolean on) {
    if (on == GL_TRUE) {
        glEnable(capability);
    } else {
        glDisable(capability);
    }
}

GLint integer(GLenum name) {
    GLint value = 0;
    glGetIntegerv(name, &value);
    return value;
}

} // namespace

GlStateSnapshot GlStateSnapshot::capture() {
    GlStateSnapshot s;
    s.drawFramebuffer = integer(GL_DRAW_FRAMEBUFFER_BINDING);
    s.readFramebuffer = integer(GL_READ_FRAMEBUFFER_BINDING);
    s.viewport.emplace();
    glGetIntegerv(GL_VIEWPORT, s.viewport->data());
    s.scissorTest = enabled(GL_SCISSOR_TEST);
    s.scissorBox.emplace();
    glGetIntegerv(GL_SCISSOR_BOX, s.scissorBox->data());
    glGetBooleanv(GL_COLOR_WRITEMASK, s.colorMask.data());
    glGetBooleani_v(GL_COLOR_WRITEMASK, 1, s.colorMask1.data());  // a velocity view masks draw buffer 1
    s.depthTest = enabled(GL_DEPTH_TEST);
    s.depthFunc = integer(GL_DEPTH_FUNC);
    glGetBooleanv(GL_DEPTH_WRITEMASK, &s.depthMask);
    glGetFloatv(GL_DEPTH_RANGE, s.depthRange.data());
    s.clipOrigin = integer(GL_CLIP_ORIGIN);
    s.clipDepthMode = integer(GL_CLIP_DEPTH_MODE);
    s.blend = enabled(GL_BLEND);
    s.blendFunc = {integer(GL_BLEND_SRC_RGB), integer(GL_BLEND_DST_RGB), integer(GL_BLEND_SRC_ALPHA),
                   integer(GL_BLEND_DST_ALPHA)};
    s.blendEquation = {integer(GL_BLEND_EQUATION_RGB), integer(GL_BLEND_EQUATION_ALPHA)};
    s.cullFace = enabled(GL_CULL_FACE);
    s.cullFaceMode = integer(GL_CULL_FACE_MODE);
    s.frontFace = integer(GL_FRONT_FACE);
    // GL_POLYGON_MODE returns two values (front, back) on drivers that keep the compatibility
    // query (Mesa does, in core profiles too): read into room for both.
    GLint polygonModes[2] = {GL_FILL, GL_FILL};
    glGetIntegerv(GL_POLYGON_MODE, polygonModes);
    s.polygonMode = polygonModes[0];
    s.framebufferSrgb = enabled(GL_FRAMEBUFFER_SRGB);
    s.multisample = enabled(GL_MULTISAMPLE);
    for (std::size_t i = 0; i < kSwitchedOff.size(); ++i) {
        s.switchedOff[i] = enabled(kSwitchedOff[i]);
    }
    glGetFloatv(GL_COLOR_CLEAR_VALUE, s.clearColor.data());
    glGetFloatv(GL_DEPTH_CLEAR_VALUE, &s.clearDepth);
    s.program = integer(GL_CURRENT_PROGRAM);
    s.programPipeline = integer(GL_PROGRAM_PIPELINE_BINDING);
    s.vertexArray = integer(GL_VERTEX_ARRAY_BINDING);
    s.activeTexture = integer(GL_ACTIVE_TEXTURE);
    for (std::size_t i = 0; i < kRendererTextureUnits.size(); ++i) {
        glActiveTexture(GL_TEXTURE0 + kRendererTextureUnits[i]);
        s.texture2d[i] = integer(GL_TEXTURE_BINDING_2D);
        s.textureBuffer[i] = integer(GL_TEXTURE_BINDING_BUFFER);
        s.texture2dArray[i] = integer(GL_TEXTURE_BINDING_2D_ARRAY);
        s.sampler[i] = integer(GL_SAMPLER_BINDING);
    }
    glActiveTexture(static_cast<GLenum>(s.activeTexture));
    s.unpackAlignment = integer(GL_UNPACK_ALIGNMENT);
    s.unpackRowLength = integer(GL_UNPACK_ROW_LENGTH);
    s.unpackImageHeight = integer(GL_UNPACK_IMAGE_HEIGHT);
    s.unpackSkipPixels = integer(GL_UNPACK_SKIP_PIXELS);
    s.unpackSkipRows = integer(GL_UNPACK_SKIP_ROWS);
    s.unpackSkipImages = integer(GL_UNPACK_SKIP_IMAGES);
    s.pixelUnpackBuffer = integer(GL_PIXEL_UNPACK_BUFFER_BINDING);
    s.shaderStorageBuffer = integer(GL_SHADER_STORAGE_BUFFER_BINDING);
    for (std::size_t i = 0; i < kRendererStorageBindings.size(); ++i) {
        const GLuint binding = kRendererStorageBindings[i];
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, binding, &s.storageBuffers[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, binding, &s.storageStarts[i]);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, binding, &s.storageSizes[i]);
    }
    s.drawIndirectBuffer = integer(GL_DRAW_INDIRECT_BUFFER_BINDING);
    s.dispatchIndirectBuffer = integer(GL_DISPATCH_INDIRECT_BUFFER_BINDING);
    s.captured = true;
    return s;
}

void GlStateSnapshot::apply() const {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(drawFramebuffer));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(readFramebuffer));
    if (viewport) {
        glViewport((*viewport)[0], (*viewport)[1], (*viewport)[2], (*viewport)[3]);
    }
    setEnabled(GL_SCISSOR_TEST, scissorTest);
    if (scissorBox) {
        glScissor((*scissorBox)[0], (*scissorBox)[1], (*scissorBox)[2], (*scissorBox)[3]);
    }
    glColorMask(colorMask[0], colorMask[1], colorMask[2], colorMask[3]);
    glColorMaski(1, colorMask1[0], colorMask1[1], colorMask1[2], colorMask1[3]);
    setEnabled(GL_DEPTH_TEST, depthTest);
    glDepthFunc(static_cast<GLenum>(depthFunc));
    glDepthMask(depthMask);
    glDepthRange(depthRange[0], depthRange[1]);
    glClipControl(static_cast<GLenum>(clipOrigin), static_cast<GLenum>(clipDepthMode));
    setEnabled(GL_BLEND, blend);
    glBlendFuncSeparate(static_cast<GLenum>(blendFunc[0]), static_cast<GLenum>(blendFunc[1]),
                        static_cast<GLenum>(blendFunc[2]), static_cast<GLenum>(blendFunc[3]));
    glBlendEquationSeparate(static_cast<GLenum>(blendEquation[0]), static_cast<GLenum>(blendEquation[1]));
    setEnabled(GL_CULL_FACE, cullFace);
    glCullFace(static_cast<GLenum>(cullFaceMode));
    glFrontFace(static_cast<GLenum>(frontFace));
    glPolygonMode(GL_FRONT_AND_BACK, static_cast<GLenum>(polygonMode));
    setEnabled(GL_FRAMEBUFFER_SRGB, framebufferSrgb);
    setEnabled(GL_MULTISAMPLE, multisample);
    for (std::size_t i = 0; i < kSwitchedOff.size(); ++i) {
        setEnabled(kSwitchedOff[i], switchedOff[i]);
    }
    glClearColor(clearColor[0], clearColor[1], clearColor[2], clearColor[3]);
    glClearDepth(clearDepth);
    glUseProgram(static_cast<GLuint>(program));
    glBindProgramPipeline(static_cast<GLuint>(programPipeline));
    glBindVertexArray(static_cast<GLuint>(vertexArray));
    if (captured) {
        for (std::size_t i = 0; i < kRendererTextureUnits.size(); ++i) {
            // Bind-to-edit is the only way to restore one target of a unit without unbinding the
            // unit's other targets (glBindTextureUnit(unit, 0) clears them all).
            glActiveTexture(GL_TEXTURE0 + kRendererTextureUnits[i]);
            glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture2d[i]));
            glBindTexture(GL_TEXTURE_BUFFER, static_cast<GLuint>(textureBuffer[i]));
            glBindTexture(GL_TEXTURE_2D_ARRAY, static_cast<GLuint>(texture2dArray[i]));
            glBindSampler(kRendererTextureUnits[i], static_cast<GLuint>(sampler[i]));
        }
        glActiveTexture(static_cast<GLenum>(activeTexture));
    } else {
        // Emptied whole (every target, the shadow map's array too) without selecting a unit:
        // the caller's active unit stays, and nothing has to be read to put it back.
        for (const GLuint unit : kRendererTextureUnits) {
            glBindTextureUnit(unit, 0);
            glBindSampler(unit, 0);
        }
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, unpackAlignment);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, unpackRowLength);
    glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, unpackImageHeight);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, unpackSkipPixels);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, unpackSkipRows);
    glPixelStorei(GL_UNPACK_SKIP_IMAGES, unpackSkipImages);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, static_cast<GLuint>(pixelUnpackBuffer));
    for (std::size_t i = 0; i < kRendererStorageBindings.size(); ++i) {
        const GLuint binding = kRendererStorageBindings[i];
        const auto buffer = static_cast<GLuint>(storageBuffers[i]);
        if (buffer != 0 && storageSizes[i] != 0) {
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, buffer, static_cast<GLintptr>(storageStarts[i]),
                              static_cast<GLsizeiptr>(storageSizes[i]));
        } else {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buffer);
        }
    }
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, static_cast<GLuint>(drawIndirectBuffer));
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, static_cast<GLuint>(dispatchIndirectBuffer));
    // Indexed binds also set the generic binding: put it back after them.
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(shaderStorageBuffer));
}

void applyRenderState() {
    glDisable(GL_SCISSOR_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    for (const GLenum capability : kSwitchedOff) {
        glDisable(capability);
    }
    glEnable(GL_MULTISAMPLE);  // GL's initial value; off would alias a multisampled target
    glDepthRange(0.0, 1.0);
    glFrontFace(GL_CCW);
    glBlendEquationSeparate(GL_FUNC_ADD, GL_FUNC_ADD);
    glBindProgramPipeline(0);  // GL_FRAMEBUFFER_SRGB is each view's (drawView)
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_UNPACK_SKIP_IMAGES, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

GlStateSnapshot documentedExitState() {
    // GL's initial values (OpenGL 4.5 chapter 23 state tables) for everything render() touches,
    // except the viewport and scissor box (left empty: they keep the last view's rectangle) and
    // the active texture unit (the caller's: render() binds through DSA and never selects one).
    // apply() leaves all three alone (captured is false), so nothing is read: no glGet in a
    // steady frame.
    return GlStateSnapshot{};
}

} // namespace myriad::gl::detail
