#pragma once
// Internal to myriad_gl: first-fit allocation of ranges inside one buffer (the shared record,
// vertex and index arenas of the table-driven draw path, renderer/DrawTable.h). Units are the
// caller's (records, vertices, indices); freed neighbours merge, so a churn of equal sizes
// reuses the same places.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>

namespace myriad::gl::detail {

class RangeAllocator {
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    /** The first free range of @p size units, or npos when none is large enough (grow() and
     *  ask again). @p size 0 is given a distinct range of one unit. */
    [[nodiscard]] std::size_t allocate(std::size_t size) {
        size = size == 0 ? 1 : size;
        for (auto it = m_free.begin(); it != m_free.end(); ++it) {
            if (it->second >= size) {
                const std::size_t offset = it->first;
                const std::size_t rest = it->second - size;
                m_free.erase(it);
                if (rest != 0) {
                    m_free.emplace(offset + size, rest);
                }
                m_used += size;
                return offset;
            }
        }
        return npos;
    }

    /** Gives back [offset, offset + size) from allocate() (the same size). */
    void release(std::size_t offset, std::size_t size) {
        size = size == 0 ? 1 : size;
        m_used -= size;
        auto next = m_free.lower_bound(offset);
        if (next != m_free.begin()) {
            auto previous = std::prev(next);
            if (previous->first + previous->second == offset) {  // merge with the range before
                offset = previous->first;
                size += previous->second;
                m_free.erase(previous);
            }
        }
        if (next != m_free.end() && offset + size == next->first) {  // and the one after
            size += next->second;
            m_free.erase(next);
        }
        m_free.emplace(offset, size);
    }

    /** Makes [capacity(), @p capacity) free; smaller values change nothing. */
    void grow(std::size_t capacity) {
        if (capacity > m_capacity) {
            const std::size_t old = m_capacity;
            m_capacity = capacity;
            m_used += capacity - old;  // release() subtracts it again
            release(old, capacity - old);
        }
    }

    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** Units allocated now. */
    [[nodiscard]] std::size_t used() const noexcept { return m_used; }

private:
    std::map<std::size_t, std::size_t> m_free;  // offset -> size, no two adjacent
    std::size_t m_capacity = 0;
    std::size_t m_used = 0;
};

} // namespace myriad::gl::detail
