# Installation: the shared library embedding hosts link (libscn.so, target scn_shared), the
# public headers, the `scn` executable, a CMake package (find_package(scn) -> scn::scn) and scn.pc.
# Included at the end of the top-level CMakeLists.txt, after every target is defined.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_filename_component(SCN_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# ---- libscn.so: the static libraries folded into one shared library ----
# Only the API (include/scn/scn.hpp, scn.h) is exported: the sources are compiled with hidden
# visibility and --exclude-libs hides every symbol of the static libraries, so a host that links
# its own LLVM or its own copy of a helper library meets no clashes. LLVM stays the shared
# libLLVM, found through the library's RUNPATH.
set(SCN_STATIC_LIBS scn_base scn_core scn_transform scn_kernel scn_frontend scn_lang scn_driver)
if(TARGET scn_cpu)
  list(APPEND SCN_STATIC_LIBS scn_cpu)
endif()
if(TARGET scn_cuda)
  list(APPEND SCN_STATIC_LIBS scn_cuda)
endif()
if(TARGET scn_dist)
  list(APPEND SCN_STATIC_LIBS scn_dist)
endif()
set_target_properties(${SCN_STATIC_LIBS} PROPERTIES POSITION_INDEPENDENT_CODE ON)

add_library(scn_shared SHARED ${SCN_ROOT}/driver/api.cpp ${SCN_ROOT}/driver/api_c.cpp
  ${SCN_ROOT}/driver/api_dlpack.cpp)
add_library(scn::scn ALIAS scn_shared)
target_link_libraries(scn_shared PRIVATE scn_driver)
target_include_directories(scn_shared PUBLIC
  $<BUILD_INTERFACE:${SCN_ROOT}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_definitions(scn_shared PRIVATE SCN_VERSION="${PROJECT_VERSION}")
target_link_options(scn_shared PRIVATE -Wl,--exclude-libs,ALL)
# Every symbol resolved at link time -- except under clang's sanitizers, whose
# runtime is linked into the executable and so is undefined in the library.
if(NOT (SCN_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang"))
  target_link_options(scn_shared PRIVATE -Wl,--no-undefined)
endif()
set_target_properties(scn_shared PROPERTIES
  OUTPUT_NAME scn
  EXPORT_NAME scn
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  INSTALL_RPATH_USE_LINK_PATH ON)

# The embedding tests install the package and build the example hosts against it; a sanitized
# libscn needs hosts built with the same runtime. clang links a C host with the sanitizers' C
# runtime only: the library's C++ checks (UBSan's vptr) need the C++ part and libstdc++ too.
set(SCN_HOST_FLAGS "")
set(SCN_HOST_LINK_FLAGS "")
if(SCN_SANITIZE)
  set(SCN_HOST_FLAGS "-fsanitize=address,undefined")
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(SCN_HOST_LINK_FLAGS "-fsanitize-link-c++-runtime -lstdc++")
  endif()
endif()
foreach(t api_install_test)
  if(TARGET ${t})
    add_dependencies(${t} scn_shared)
    target_compile_definitions(${t} PRIVATE
      SCN_BUILD_DIR="${CMAKE_BINARY_DIR}"
      SCN_CMAKE_COMMAND="${CMAKE_COMMAND}"
      SCN_CMAKE_GENERATOR="${CMAKE_GENERATOR}"
      SCN_C_COMPILER="${CMAKE_C_COMPILER}"
      SCN_CXX_COMPILER="${CMAKE_CXX_COMPILER}"
      SCN_HOST_FLAGS="${SCN_HOST_FLAGS}"
      SCN_HOST_LINK_FLAGS="${SCN_HOST_LINK_FLAGS}")
  endif()
endforeach()

# ---- what `cmake --install` puts where ----
set(SCN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/scn)
install(TARGETS scn_shared EXPORT scnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS scn RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(scn PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(FILES ${SCN_ROOT}/include/scn/scn.h ${SCN_ROOT}/include/scn/scn.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scn)

# CMake package: find_package(scn) gives the imported target scn::scn.
install(EXPORT scnTargets NAMESPACE scn:: DESTINATION ${SCN_CMAKE_DIR})
configure_package_config_file(${SCN_ROOT}/cmake/scnConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/scnConfig.cmake
  INSTALL_DESTINATION ${SCN_CMAKE_DIR})
# 0.x: only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/scnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/scnConfig.cmake
              ${CMAKE_BINARY_DIR}/generated/scnConfigVersion.cmake
  DESTINATION ${SCN_CMAKE_DIR})

# pkg-config: relocatable (paths relative to the .pc file), so `cmake --install --prefix` works.
file(RELATIVE_PATH SCN_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" SCN_PC_TO_PREFIX "${SCN_PC_TO_PREFIX}")
configure_file(${SCN_ROOT}/cmake/scn.pc.in ${CMAKE_BINARY_DIR}/generated/scn.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/scn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- documentation: docs/ and the man page scn(1) ----
# --help names the installed docs once they are there (found from the binary, so any --prefix
# works), else the source tree's.
file(RELATIVE_PATH SCN_DOC_DIR_FROM_BIN "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_DOCDIR}")
target_compile_definitions(scn PRIVATE SCN_DOC_DIR_FROM_BIN="${SCN_DOC_DIR_FROM_BIN}"
                                       SCN_SOURCE_DOC_DIR="${SCN_ROOT}/docs")
install(DIRECTORY ${SCN_ROOT}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The man page is generated from `scn --help` (help2man, from Debian), so the two never disagree;
# cmake/scn.h2m adds the sections --help has no room for.
find_program(SCN_HELP2MAN help2man)
if(SCN_HELP2MAN)
  set(SCN_MAN_PAGE ${CMAKE_BINARY_DIR}/generated/scn.1)
  add_custom_command(OUTPUT ${SCN_MAN_PAGE}
    COMMAND ${SCN_HELP2MAN} --no-info --no-discard-stderr
            "--name=an array language with scan, vmap and a JIT"
            --include=${SCN_ROOT}/cmake/scn.h2m --output=${SCN_MAN_PAGE} $<TARGET_FILE:scn>
    DEPENDS scn ${SCN_ROOT}/cmake/scn.h2m
    COMMENT "Generating the man page scn.1 from scn --help")
  add_custom_target(scn_man_page ALL DEPENDS ${SCN_MAN_PAGE})
  install(FILES ${SCN_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  if(TARGET api_install_test)
    add_dependencies(api_install_test scn_man_page)
    target_compile_definitions(api_install_test PRIVATE SCN_HAVE_MAN_PAGE=1)
  endif()
else()
  message(WARNING "help2man not found: the man page scn(1) is not built (scripts/ensure-packages.sh installs it)")
endif()
