# myriad_docs: the API reference from the public headers, with Doxygen (Debian's doxygen),
# into <build>/docs/html/index.html. Not part of `all`; defined when myriad is the top-level
# project and doxygen is installed. Any Doxygen warning fails the target (Doxyfile.in).
if(NOT PROJECT_IS_TOP_LEVEL)
    return()
endif()
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
    message(STATUS "myriad: doxygen not found, no myriad_docs target (apt-get install doxygen)")
    return()
endif()

set(MYRIAD_DOCS_OUTPUT_DIR "${PROJECT_BINARY_DIR}/docs")
configure_file("${PROJECT_SOURCE_DIR}/Doxyfile.in" "${PROJECT_BINARY_DIR}/Doxyfile" @ONLY)
# The warning log is emptied first so a stale one never survives a clean run; on failure the
# warnings are printed (Doxygen writes them to the log, not the console).
add_custom_target(myriad_docs
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${MYRIAD_DOCS_OUTPUT_DIR}"
    COMMAND "${CMAKE_COMMAND}" -E rm -f "${MYRIAD_DOCS_OUTPUT_DIR}/warnings.txt"
    COMMAND "${CMAKE_COMMAND}" "-DDOXYGEN=${DOXYGEN_EXECUTABLE}"
            "-DDOXYFILE=${PROJECT_BINARY_DIR}/Doxyfile"
            "-DLOG=${MYRIAD_DOCS_OUTPUT_DIR}/warnings.txt"
            -P "${PROJECT_SOURCE_DIR}/cmake/RunDoxygen.cmake"
    WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
    COMMENT "API reference: ${MYRIAD_DOCS_OUTPUT_DIR}/html/index.html"
    VERBATIM)
