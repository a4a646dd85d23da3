# Run with cmake -P: SNIPPET (a .cpp with a region between two "// [NAME]" lines), NAME, PAGE
# (a Markdown file). Fails unless the region appears in PAGE verbatim, so the page's copy of
# the code cannot drift from the file the test suite compiles.
file(READ "${SNIPPET}" _snippet)
file(READ "${PAGE}" _page)
string(FIND "${_snippet}" "// [${NAME}]\n" _begin)
string(FIND "${_snippet}" "// [${NAME}]" _end REVERSE)
if(_begin EQUAL -1 OR _end LESS_EQUAL _begin)
    message(FATAL_ERROR "${SNIPPET}: no region between two '// [${NAME}]' lines")
endif()
string(LENGTH "// [${NAME}]\n" _marker_length)
math(EXPR _begin "${_begin} + ${_marker_length}")
math(EXPR _length "${_end} - ${_begin}")
string(SUBSTRING "${_snippet}" ${_begin} ${_length} _region)
# An indented closing marker leaves its indentation at the end of the region: not part of it.
string(REGEX REPLACE "[ \t]+$" "" _region "${_region}")
string(FIND "${_page}" "${_region}" _found)
if(_found EQUAL -1)
    message(FATAL_ERROR "${PAGE} does not hold ${SNIPPET}'s [${NAME}] region verbatim; "
        "copy the code between the markers into the page's code block")
endif()
message(STATUS "${PAGE} holds ${SNIPPET} [${NAME}] verbatim")
