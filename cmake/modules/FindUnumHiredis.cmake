# Finds hiredis (the Redis client the runtime's RedisStore uses) and defines
# the imported target hiredis::hiredis, the name hiredis' own CMake package
# gives it. Debian's HiredisConfig.cmake sets only variables, so Unum's build
# and its installed package (UnumConfig.cmake) both use this module.
if(TARGET hiredis::hiredis)
  set(UnumHiredis_FOUND TRUE)
  return()
endif()
find_path(UNUM_HIREDIS_INCLUDE_DIR hiredis/hiredis.h)
find_library(UNUM_HIREDIS_LIBRARY hiredis)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(UnumHiredis
  REQUIRED_VARS UNUM_HIREDIS_LIBRARY UNUM_HIREDIS_INCLUDE_DIR)
if(UnumHiredis_FOUND)
  add_library(hiredis::hiredis UNKNOWN IMPORTED)
  set_target_properties(hiredis::hiredis PROPERTIES
    IMPORTED_LOCATION "${UNUM_HIREDIS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${UNUM_HIREDIS_INCLUDE_DIR}")
endif()
