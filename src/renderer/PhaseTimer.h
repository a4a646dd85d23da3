#pragma once
// Internal to myriad_gl: FrameStats' phase times.
#include <chrono>

namespace myriad::gl::detail {

/** Adds the lifetime of the timer to a FrameStats field, in milliseconds. */
class PhaseTimer {
public:
    explicit PhaseTimer(double& total) noexcept : m_total(total), m_start(std::chrono::steady_clock::now()) {}
    ~PhaseTimer() {
        m_total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    double& m_total;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace myriad::gl::detail
