#pragma once
/** @file
 *  The exception types myriad throws. docs/errors.md lists when each one is thrown.
 *
 *  Every public call either succeeds or throws one of these and leaves the object it was called
 *  on exactly as it was (the strong guarantee): no half-written record, no bumped version.
 *  Messages name the function, the argument and the values, for example
 *  "InstancedMeshNode::setTransform: index 12 >= count 10".
 */
#include <stdexcept>
#include <string>

namespace myriad {

/** Base of every exception myriad throws; catch this to catch them all. */
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/** An argument is malformed: NaN or Inf in a transform, an empty mesh, a wrong size. */
class InvalidArgument : public Error {
public:
    using Error::Error;
};

/** An index, offset or count points outside the data it addresses. */
class OutOfRange : public Error {
public:
    using Error::Error;
};

/** A batch is full, or a count is above capacity. The message names ensureCapacity. */
class CapacityError : public Error {
public:
    using Error::Error;
};

/** A file could not be imported: missing, malformed, or reading outside its buffers.
 *  The message starts with the file path. */
class ImportError : public Error {
public:
    using Error::Error;
};

/** A shader failed to compile or link. The message gives "file:line: log line". */
class ShaderError : public Error {
public:
    using Error::Error;
};

/** The object's state refuses the call: a write to the instances of a static batch
 *  (InstancedMeshNode::setStatic). Nothing changed; thaw the batch first. */
class StateError : public Error {
public:
    using Error::Error;
};

/** The GL or EGL environment is unusable: no context, a version below 4.5, a missing extension,
 *  or an incomplete framebuffer. */
class GlError : public Error {
public:
    using Error::Error;
};

} // namespace myriad
