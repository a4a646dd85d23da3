#pragma once
// Internal to myriad_gl: FrameStats::programsUsed, the distinct programs a frame's draws and
// dispatches made current. Each program's owner keeps the number of the last frame that
// counted it, so a program is counted once per frame however often it is bound, with no set
// to clear and no glGet.
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Program.h"

#include <cstdint>

namespace myriad::gl::detail {

/** Makes @p program current (glUseProgram) and counts it in @p stats.programsUsed unless
 *  @p usedFrame (the caller's memory for this program, 0 at first) says this frame
 *  (FrameStats::frame) counted it already. */
inline void useCounted(const Program& program, std::uint64_t& usedFrame, FrameStats& stats) {
    program.use();
    if (usedFrame != stats.frame) {
        usedFrame = stats.frame;
        ++stats.programsUsed;
    }
}

} // namespace myriad::gl::detail
