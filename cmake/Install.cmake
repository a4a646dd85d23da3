# Install rules: headers, static libraries, exported targets (myriad::core, myriad::gl, ...),
# a package config with a version file for find_package(myriad CONFIG), and myriad.pc.
#   cmake --install build --prefix /opt/myriad
# Included from the top-level CMakeLists.txt after src/ when MYRIAD_INSTALL is ON.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MYRIAD_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/myriad" CACHE STRING
    "Where the package config goes, relative to the install prefix")

# glad's two static libraries go too: myriad_gl and myriad_egl link them privately, and a static
# library's private link dependencies must still be linked into the game.
set(_myriad_targets myriad myriad_core myriad_gl myriad_egl myriad_glad_gl myriad_glad_egl)
# Header folders of the parts built; a part left out has no headers installed.
set(_myriad_header_dirs core gl egl util)
set(_myriad_components core gl egl)
foreach(_part IN ITEMS image gltf glfw lod)
    if(TARGET myriad_${_part})
        list(APPEND _myriad_targets myriad_${_part})
        list(APPEND _myriad_header_dirs ${_part})
        list(APPEND _myriad_components ${_part})
    endif()
endforeach()

install(TARGETS ${_myriad_targets}
    EXPORT myriadTargets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

# Whole folders, so a header added to include/myriad/<part>/ is installed with no edit here.
foreach(_dir IN LISTS _myriad_header_dirs)
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/myriad/${_dir}"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/myriad"
        FILES_MATCHING PATTERN "*.h")
endforeach()

install(EXPORT myriadTargets
    NAMESPACE myriad::
    FILE myriadTargets.cmake
    DESTINATION "${MYRIAD_INSTALL_CMAKEDIR}")

set(MYRIAD_INSTALLED_COMPONENTS "${_myriad_components}")
# myriad_gltf links Draco privately (KHR_draco_mesh_compression); as a static library it needs
# Draco at the game's link too, so the package config finds it again.
if(TARGET myriad_gltf AND MYRIAD_DRACO)
    set(MYRIAD_GLTF_DRACO_INSTALLED TRUE)
else()
    set(MYRIAD_GLTF_DRACO_INSTALLED FALSE)
endif()
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/myriadConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/myriadConfig.cmake"
    INSTALL_DESTINATION "${MYRIAD_INSTALL_CMAKEDIR}")
# Semantic versioning before 1.0: a minor release may break the API, so find_package(myriad 0.1)
# accepts 0.1.x only.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/myriadConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}"
    COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/myriadConfig.cmake"
              "${PROJECT_BINARY_DIR}/myriadConfigVersion.cmake"
    DESTINATION "${MYRIAD_INSTALL_CMAKEDIR}")

# myriad.pc: every installed part in link order (static libraries: dependents first), with their
# system libraries in Libs so a plain `pkg-config --libs myriad` links. Cflags carry -std=c++20
# (myriad.pc.in), the pkg-config side of the targets' cxx_std_20 usage requirement.
set(_myriad_pc_libs "")
set(_myriad_pc_requires "glm")
foreach(_part IN ITEMS glfw gltf image lod egl gl glad_egl glad_gl core)
    if(TARGET myriad_${_part})
        string(APPEND _myriad_pc_libs " -lmyriad_${_part}")
    endif()
endforeach()
if(TARGET myriad_gltf)
    string(APPEND _myriad_pc_requires " tinygltf")
endif()
if(TARGET myriad_image)
    string(APPEND _myriad_pc_requires " stb libturbojpeg")
endif()
if(TARGET myriad_glfw)
    string(APPEND _myriad_pc_requires " glfw3")
endif()
string(STRIP "${_myriad_pc_libs}" MYRIAD_PC_LIBS)
set(MYRIAD_PC_REQUIRES "${_myriad_pc_requires}")
set(MYRIAD_PC_SYSTEM_LIBS "-pthread")
if(TARGET myriad_lod)
    string(APPEND MYRIAD_PC_SYSTEM_LIBS " -lmeshoptimizer")  # Debian's meshoptimizer has no .pc file
endif()
if(TARGET myriad_gltf AND MYRIAD_DRACO)
    # libdraco.a, as the CMake targets link it (src/gltf/CMakeLists.txt says why not -ldraco)
    string(APPEND MYRIAD_PC_SYSTEM_LIBS " -l:libdraco.a")
endif()
foreach(_lib IN LISTS CMAKE_DL_LIBS)
    string(APPEND MYRIAD_PC_SYSTEM_LIBS " -l${_lib}")
endforeach()
# The prefix is found relative to the .pc file, so a prefix moved elsewhere still works; the
# number of ../ follows CMAKE_INSTALL_LIBDIR (lib, or lib/x86_64-linux-gnu under /usr).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(MYRIAD_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
    file(RELATIVE_PATH _myriad_pc_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
    string(REGEX REPLACE "/$" "" _myriad_pc_up "${_myriad_pc_up}")
    set(MYRIAD_PC_PREFIX "\${pcfiledir}/${_myriad_pc_up}")
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/myriad.pc.in" "${PROJECT_BINARY_DIR}/myriad.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/myriad.pc"
    DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/README.md"
              "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
    DESTINATION "${CMAKE_INSTALL_DOCDIR}")
