# ScalanaConfig.cmake — find_package(Scalana), the spelling of ScalAna 0.1's
# first releases: the same package as find_package(ScalAna).
include("${CMAKE_CURRENT_LIST_DIR}/ScalAnaConfig.cmake")
