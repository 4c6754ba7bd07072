# The terminal summary's sources (jansson only): vw_summary*.c and the
# report accessors and output writer they use.  The viewer library holds
# them (viewer/CMakeLists.txt); where the viewer part is not configured
# (SCALANA_PARTS), analyzer/CMakeLists.txt includes this file for the library
# scalana_viewer_summary, and tests/fuzz compiles the list into its ASan
# analyzer (SCALANA_VIEWER_SUMMARY_SOURCES_ONLY), so that scalana-analyze
# prints the one summary in every build.
set(SCALANA_VIEWER_SUMMARY_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/vw_summary.c         # terminal summary
    ${CMAKE_CURRENT_LIST_DIR}/vw_summary_compare.c # its before/after part
    ${CMAKE_CURRENT_LIST_DIR}/vw_summary_predict.c # its --predict part
    ${CMAKE_CURRENT_LIST_DIR}/vw_summary_whatif.c  # its what-if part
    ${CMAKE_CURRENT_LIST_DIR}/vw_report.c          # report.json accessors
    ${CMAKE_CURRENT_LIST_DIR}/vw_out.c)            # output writer
if(NOT SCALANA_VIEWER_SUMMARY_SOURCES_ONLY AND NOT TARGET scalana_viewer_summary)
  add_library(scalana_viewer_summary STATIC ${SCALANA_VIEWER_SUMMARY_SOURCES})
  target_include_directories(scalana_viewer_summary PUBLIC ${CMAKE_CURRENT_LIST_DIR} PRIVATE ${SCALANA_INCLUDE_DIR})
  target_link_libraries(scalana_viewer_summary PUBLIC PkgConfig::JANSSON m)
endif()
