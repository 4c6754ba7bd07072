# scalana_viewer_summary — the terminal summary of a report (jansson only), the
# one that scalana-view and scalana-analyze print.  Included by
# viewer/CMakeLists.txt, and by analyzer/CMakeLists.txt when the viewer part
# is not configured (SCALANA_PARTS), so that the summary has one definition.
if(NOT TARGET scalana_viewer_summary)
  set(_vw ${CMAKE_CURRENT_LIST_DIR})
  add_library(scalana_viewer_summary STATIC
    ${_vw}/vw_summary.c         # terminal summary
    ${_vw}/vw_summary_compare.c # terminal summary: before/after (report.json comparison)
    ${_vw}/vw_report.c          # report.json accessors, vertex tree
    ${_vw}/vw_out.c)            # output writer with sticky error, HTML escaping
  target_include_directories(scalana_viewer_summary PUBLIC ${_vw} PRIVATE ${SCALANA_INCLUDE_DIR})
  target_link_libraries(scalana_viewer_summary PUBLIC PkgConfig::JANSSON m)
endif()
