# ScalanaConfigVersion.cmake — the version check of find_package(Scalana VERSION):
# the same rules as find_package(ScalAna VERSION).
include("${CMAKE_CURRENT_LIST_DIR}/ScalAnaConfigVersion.cmake")
