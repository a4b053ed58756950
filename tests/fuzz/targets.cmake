# The libFuzzer executables, one per tests/fuzz/fuzz_*.cpp, linking the driver (sessions, the
# whole language). Included by tests/fuzz/CMakeLists.txt (the fuzz build of its own) and by the
# top-level CMakeLists.txt with SCN_FUZZ=ON (the sanitizer build CI runs the suite in, so the
# fuzzers need no build of their own). Every object of scn must be compiled with
# -fsanitize=fuzzer-no-link (coverage feedback, no main) before this is included.
get_filename_component(SCN_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR} ABSOLUTE)
file(GLOB SCN_FUZZ_SOURCES CONFIGURE_DEPENDS ${SCN_FUZZ_DIR}/fuzz_*.cpp)
foreach(src ${SCN_FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src} ${SCN_FUZZ_DIR}/fuzz_util.cpp ${SCN_FUZZ_DIR}/program_gen.cpp)
  # SCN_SANITIZE's flags apply inside scn's directory only: the targets repeat them.
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
                                         -fno-sanitize-recover=undefined)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(${name} PRIVATE scn_driver)
  target_include_directories(${name} PRIVATE ${SCN_FUZZ_DIR})
endforeach()
