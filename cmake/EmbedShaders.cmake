# myriad_embed_shaders(OUTPUT file.cpp SOURCES a.vert b.frag ...)
# Writes a C++ file that holds every shader's text, so nothing is read from disk at run time.
# The text is stored as a byte array (not a raw string) so no shader content can end a literal.
function(myriad_embed_shaders)
    cmake_parse_arguments(ARG "" "OUTPUT" "SOURCES" ${ARGN})
    set(_script "${PROJECT_SOURCE_DIR}/cmake/EmbedShadersScript.cmake")
    add_custom_command(
        OUTPUT "${ARG_OUTPUT}"
        COMMAND "${CMAKE_COMMAND}" -DOUTPUT=${ARG_OUTPUT} "-DSOURCES=${ARG_SOURCES}"
                -P "${_script}"
        DEPENDS ${ARG_SOURCES} "${_script}"
        COMMENT "Embedding shaders into ${ARG_OUTPUT}"
        VERBATIM)
endfunction()
