#include "renderer/GpuPopulations.h"

#include "renderer/GpuResources.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace myriad::gl {

ComputeProgram::ComputeProgram(std::string_view name, std::string_view source) : m_name(name) {
    const ShaderSource stage{ShaderStage::Compute, m_name, source};
    m_program = Program(std::span(&stage, 1), "myriad/compute:" + m_name);
}

} // namespace myriad::gl

namespace myriad::gl::detail {
namespace {

constexpr std::size_t kRecordBytes = 64;
constexpr std::size_t kLaneRowBytes = 64;

std::string describe(const NamedBuffer& buffer) {
    return std::to_string(buffer.length) + " elements of " + std::to_string(elementBytes(buffer.elementType)) +
           " bytes (" + std::to_string(buffer.buffer.sizeBytes()) + " bytes)";
}

} // namespace

NamedBuffer& GpuPopulations::require(std::string_view name, const char* function) {
    const auto it = m_buffers.find(name);
    if (it == m_buffers.end()) {
        throw InvalidArgument(std::string(function) + ": no buffer named '" + std::string(name) + "'");
    }
    return it->second;
}

const NamedBuffer* GpuPopulations::find(std::string_view name) const {
    const auto it = m_buffers.find(name);
    return it == m_buffers.end() ? nullptr : &it->second;
}

void GpuPopulations::createBuffer(const GpuBufferDesc& desc) {
    const char* function = "gl::Renderer::createBuffer";
    if (desc.name.empty() || desc.name == kMaterialTable) {
        throw InvalidArgument(std::string(function) + ": a buffer needs a name (not '" +
                              std::string(kMaterialTable) + "')");
    }
    if (m_buffers.contains(desc.name)) {
        throw InvalidArgument(std::string(function) + ": a buffer named '" + desc.name + "' exists");
    }
    const std::size_t element = elementBytes(desc.elementType);
    if (desc.length == 0 || desc.length > (std::size_t{1} << 40) / element) {
        throw InvalidArgument(std::string(function) + ": buffer '" + desc.name + "' length " +
                              std::to_string(desc.length) + " (must be 1 .. 2^40 bytes)");
    }
    const std::size_t bytes = desc.length * element;
    if (desc.initialData.size() > bytes) {
        throw InvalidArgument(std::string(function) + ": " + std::to_string(desc.initialData.size()) +
                              " bytes of initial data for buffer '" + desc.name + "' of " +
                              std::to_string(bytes) + " bytes");
    }
    // Zero-filled first, so a partly initialised buffer never holds garbage.
    std::vector<std::byte> zeros(bytes);
    std::copy(desc.initialData.begin(), desc.initialData.end(), zeros.begin());
    NamedBuffer named;
    named.buffer = Buffer({.initialData = zeros, .usage = BufferUsage::Dynamic,
                           .label = "myriad/buffer:" + desc.name});
    named.elementType = desc.elementType;
    named.length = desc.length;
    m_buffers.emplace(desc.name, std::move(named));
}

void GpuPopulations::writeBuffer(std::string_view name, std::size_t firstElement, std::span<const std::byte> bytes) {
    NamedBuffer& buffer = require(name, "gl::Renderer::writeBuffer");
    const std::size_t element = elementBytes(buffer.elementType);
    if (firstElement > buffer.length || bytes.size() > (buffer.length - firstElement) * element) {
        throw OutOfRange("gl::Renderer::writeBuffer: " + std::to_string(bytes.size()) + " bytes at element " +
                         std::to_string(firstElement) + " run past buffer '" + std::string(name) + "' of " +
                         describe(buffer));
    }
    barrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    buffer.buffer.update(firstElement * element, bytes);
}

std::vector<std::byte> GpuPopulations::readBuffer(std::string_view name) {
    NamedBuffer& buffer = require(name, "gl::Renderer::readBuffer");
    barrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::vector<std::byte> bytes(buffer.buffer.sizeBytes());
    glGetNamedBufferSubData(buffer.buffer.id(), 0, static_cast<GLsizeiptr>(bytes.size()), bytes.data());
    return bytes;
}

void GpuPopulations::destroyBuffer(std::string_view name) {
    NamedBuffer& buffer = require(name, "gl::Renderer::destroyBuffer");
    if (buffer.users != 0) {
        throw InvalidArgument("gl::Renderer::destroyBuffer: buffer '" + std::string(name) + "' is drawn by " +
                              std::to_string(buffer.users) + " population(s); remove them first");
    }
    m_buffers.erase(m_buffers.find(name));
}

PopulationId GpuPopulations::add(GpuResources& resources, std::shared_ptr<const MeshGeometry> mesh,
                                 const PopulationDesc& desc) {
    const char* function = "gl::Renderer::drawInstanced";
    if (!mesh) {
        throw InvalidArgument(std::string(function) + ": mesh is null");
    }
    if (desc.instanceCount == 0) {
        throw InvalidArgument(std::string(function) + ": instanceCount is 0");
    }
    // Every buffer must back the whole reservation: an instance past its end would read
    // whatever lies there (another population's data, or nothing).
    NamedBuffer& transforms = require(desc.transformBuffer, function);
    const std::size_t recordsHeld = transforms.buffer.sizeBytes() / kRecordBytes;
    if (recordsHeld < desc.instanceCount) {
        throw InvalidArgument(std::string(function) + ": transform buffer '" + desc.transformBuffer + "' holds " +
                              describe(transforms) + " = " + std::to_string(recordsHeld) +
                              " records of 64 bytes; " + std::to_string(desc.instanceCount) +
                              " instances need " + std::to_string(desc.instanceCount * kRecordBytes) + " bytes");
    }
    NamedBuffer* lanes = nullptr;
    if (!desc.laneBuffer.empty()) {
        lanes = &require(desc.laneBuffer, function);
        const std::size_t rowsHeld = lanes->buffer.sizeBytes() / kLaneRowBytes;
        if (rowsHeld < desc.instanceCount) {
            throw InvalidArgument(std::string(function) + ": lane buffer '" + desc.laneBuffer + "' holds " +
                                  describe(*lanes) + " = " + std::to_string(rowsHeld) +
                                  " rows of four vec4; " + std::to_string(desc.instanceCount) +
                                  " instances need " + std::to_string(desc.instanceCount * kLaneRowBytes) +
                                  " bytes");
        }
        const auto maxTexels = static_cast<std::size_t>(m_limits.maxTextureBufferTexels);
        if (desc.instanceCount * 4 > maxTexels) {
            throw CapacityError(std::string(function) + ": population '" +
                                (desc.name.empty() ? "population#" + std::to_string(m_nextPopulation) : desc.name) + "': " +
                                std::to_string(desc.instanceCount) + " instances need " +
                                std::to_string(desc.instanceCount * 4) + " texels of lane buffer '" + desc.laneBuffer +
                                "' (a buffer texture, 4 per instance), above GL_MAX_TEXTURE_BUFFER_SIZE (" +
                                std::to_string(maxTexels) + " on this driver)");
        }
    }
    if (desc.instanceCount > static_cast<std::size_t>(INT32_MAX)) {
        throw CapacityError(std::string(function) + ": instanceCount above 2^31 - 1");
    }
    auto population = std::make_unique<Population>();
    population->id = m_nextPopulation;
    population->name = desc.name.empty() ? "population#" + std::to_string(m_nextPopulation) : desc.name;
    population->mesh = std::move(mesh);
    population->transformBuffer = desc.transformBuffer;
    population->laneBuffer = desc.laneBuffer;
    population->instanceCount = desc.instanceCount;
    population->material = desc.material;
    population->bounds = desc.bounds;
    if (lanes != nullptr) {
        population->lanes = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBufferRange(population->lanes.id(), GL_RGBA32F, lanes->buffer.id(), 0,
                             static_cast<GLsizeiptr>(desc.instanceCount * kLaneRowBytes));
        setLabel(GL_TEXTURE, population->lanes.id(), population->name + "/lanes-texture");
    }
    (void)resources;  // the vertex array is made by the first frame that draws it (prepare)
    ++transforms.users;
    if (lanes != nullptr) {
        ++lanes->users;
    }
    m_populations.push_back(std::move(population));
    return {m_nextPopulation++};
}

const VertexArray& GpuPopulations::vertexArray(GpuResources& resources, Population& population) {
    MeshGpu& mesh = resources.mesh(population.mesh);
    if (population.meshSerial != mesh.serial || population.vertexArray.id() == 0) {
        population.vertexArray = instancedVertexArray(mesh, *population.mesh, population.name + "/vertex-array");
        population.vertexArray.setVertexBuffer(kInstanceBinding, m_buffers.find(population.transformBuffer)->second.buffer);
        population.meshSerial = mesh.serial;
    }
    return population.vertexArray;
}

void GpuPopulations::remove(PopulationId id) {
    const auto it = std::find_if(m_populations.begin(), m_populations.end(),
                                 [&](const auto& population) { return population->id == id.value; });
    if (it == m_populations.end()) {
        throw InvalidArgument("gl::Renderer::removePopulation: no population with id " + std::to_string(id.value));
    }
    --m_buffers.find((*it)->transformBuffer)->second.users;
    if (!(*it)->laneBuffer.empty()) {
        --m_buffers.find((*it)->laneBuffer)->second.users;
    }
    m_populations.erase(it);
}

void GpuPopulations::barrier(GLbitfield bits) {
    const GLbitfield issue = m_pending & bits;
    if (issue != 0) {
        glMemoryBarrier(issue);
        m_pending &= ~issue;
    }
}

void GpuPopulations::dispatch(const ComputeProgram& program, std::span<const BufferBinding> bindings,
                              const glm::uvec3& groups, GLuint materialTable) {
    const char* function = "gl::Renderer::dispatch";
    const std::int64_t maxBindings = m_limits.maxShaderStorageBindings;
    std::vector<GLuint> ids;
    ids.reserve(bindings.size());
    for (const BufferBinding& binding : bindings) {
        if (binding.binding >= static_cast<std::uint32_t>(maxBindings)) {
            throw OutOfRange(std::string(function) + ": binding " + std::to_string(binding.binding) +
                             " >= GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS " + std::to_string(maxBindings));
        }
        ids.push_back(binding.buffer == kMaterialTable ? materialTable : require(binding.buffer, function).buffer.id());
    }
    const std::array<std::int64_t, 3>& maxGroups = m_limits.maxComputeWorkGroups;
    for (std::size_t axis = 0; axis < 3; ++axis) {
        if (groups[static_cast<int>(axis)] > static_cast<std::uint32_t>(maxGroups[axis])) {
            throw OutOfRange(std::string(function) + ": " + std::to_string(groups[static_cast<int>(axis)]) +
                             " work groups on axis " + std::to_string(axis) +
                             " > GL_MAX_COMPUTE_WORK_GROUP_COUNT " + std::to_string(maxGroups[axis]));
        }
    }
    // An earlier dispatch's writes must land before this one reads them, and a frame drawn
    // since the last dispatch may still be reading what this one writes (records by vertex
    // fetch, lanes by texel fetch, the material table from storage): stores after a
    // SHADER_STORAGE barrier wait for every access issued before it (OpenGL 4.5, "Shader Memory Access Synchronization").
    if (m_drawnSinceDispatch) {
        m_pending |= GL_SHADER_STORAGE_BARRIER_BIT;
        m_drawnSinceDispatch = false;
    }
    barrier(GL_SHADER_STORAGE_BARRIER_BIT);
    GLint previousProgram = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &previousProgram);
    GLint previousGeneric = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &previousGeneric);
    std::vector<GLint> previous(bindings.size());
    for (std::size_t i = 0; i < bindings.size(); ++i) {
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, bindings[i].binding, &previous[i]);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, bindings[i].binding, ids[i]);
    }
    program.program().use();
    if (groups.x != 0 && groups.y != 0 && groups.z != 0) {
        glDispatchCompute(groups.x, groups.y, groups.z);
        m_pending |= GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                     GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT;
    }
    glUseProgram(static_cast<GLuint>(previousProgram));
    for (std::size_t i = bindings.size(); i-- > 0;) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, bindings[i].binding, static_cast<GLuint>(previous[i]));
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(previousGeneric));
}

} // namespace myriad::gl::detail
