# Generates the GL 4.5 core + EGL 1.5 loader with Debian's `glad` (python3-glad) at configure
# time. The generated files live in the build tree only; --reproducible keeps it offline.
find_program(GLAD_EXECUTABLE glad REQUIRED
    DOC "glad 2 generator (Debian package python3-glad)")

# PROJECT_BINARY_DIR, not CMAKE_BINARY_DIR: under a game's add_subdirectory() the loader stays in
# myriad's own build folder.
set(MYRIAD_GLAD_DIR "${PROJECT_BINARY_DIR}/glad")
# GL_KHR/ARB_parallel_shader_compile: compiles started together run on the driver's threads
# (ShaderLibrary polls GL_COMPLETION_STATUS_KHR); GL_ARB_get_program_binary is core in 4.1.
set(_glad_extensions
    GL_KHR_debug GL_KHR_parallel_shader_compile GL_ARB_parallel_shader_compile
    EGL_EXT_platform_base EGL_EXT_platform_device EGL_EXT_device_base EGL_EXT_device_enumeration
    EGL_EXT_device_query EGL_MESA_platform_surfaceless EGL_KHR_surfaceless_context
    EGL_KHR_create_context)
list(JOIN _glad_extensions "," _glad_extension_list)
set(_glad_stamp "${MYRIAD_GLAD_DIR}/stamp-${_glad_extension_list}")
string(MD5 _glad_hash "${_glad_stamp}")
if(NOT EXISTS "${MYRIAD_GLAD_DIR}/${_glad_hash}.stamp")
    message(STATUS "Generating the GL 4.5 core + EGL 1.5 loader with ${GLAD_EXECUTABLE}")
    file(REMOVE_RECURSE "${MYRIAD_GLAD_DIR}")
    execute_process(
        COMMAND "${GLAD_EXECUTABLE}" --quiet --reproducible
                --api "gl:core=4.5,egl=1.5" --extensions "${_glad_extension_list}"
                --out-path "${MYRIAD_GLAD_DIR}" c --loader
        RESULT_VARIABLE _glad_result
        ERROR_VARIABLE _glad_error)
    if(NOT _glad_result EQUAL 0)
        message(FATAL_ERROR "glad failed (${_glad_result}): ${_glad_error}")
    endif()
    file(WRITE "${MYRIAD_GLAD_DIR}/${_glad_hash}.stamp" "${_glad_extension_list}\n")
endif()

# Two static libraries, installed and exported with myriad (myriad::glad_gl, myriad::glad_egl)
# because myriad_gl and myriad_egl are static and link them privately. Their headers are
# myriad's private business: the include folder is a build-tree-only usage requirement, and
# no public myriad header includes a glad header.
add_library(myriad_glad_gl STATIC "${MYRIAD_GLAD_DIR}/src/gl.c")
target_include_directories(myriad_glad_gl SYSTEM PUBLIC "$<BUILD_INTERFACE:${MYRIAD_GLAD_DIR}/include>")
set_target_properties(myriad_glad_gl PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME glad_gl)
target_link_libraries(myriad_glad_gl PRIVATE ${CMAKE_DL_LIBS})

add_library(myriad_glad_egl STATIC "${MYRIAD_GLAD_DIR}/src/egl.c")
target_include_directories(myriad_glad_egl SYSTEM PUBLIC "$<BUILD_INTERFACE:${MYRIAD_GLAD_DIR}/include>")
set_target_properties(myriad_glad_egl PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME glad_egl)
target_link_libraries(myriad_glad_egl PRIVATE ${CMAKE_DL_LIBS})
