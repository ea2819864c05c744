# The torch-free sources of fourierlab_api (parameter specs, config validation and diffs,
# default run names, device specs, events, the exports' CSV fields and JSON numbers, study specs
# and tables, UTF-8 decoding), relative to core/: listed once, for the library and for the fuzz
# targets (fuzz/CMakeLists.txt), which compile them with the sanitizers.
set(FOURIERLAB_API_SOURCES
  engine/param_spec.cpp
  engine/config.cpp
  engine/config_diff.cpp
  engine/run_name.cpp
  engine/device_spec.cpp
  engine/event_queue.cpp
  engine/export_values.cpp
  engine/panel_spec.cpp
  engine/system_metrics.cpp
  engine/reference_check.cpp
  engine/file_digest.cpp
  engine/figures_apart.cpp
  engine/verdict.cpp
  engine/study_spec.cpp
  engine/strict_json.cpp
  engine/closest_name.cpp
  store/config_hash.cpp
  store/run_batching.cpp
  study/axis_values.cpp
  engine/available_cores.cpp
  study/thread_budget.cpp
  study/f_distribution.cpp
  study/agreement.cpp
  study/study_aggregate.cpp
  study/study_claims.cpp
  study/study_run_name.cpp
  study/study_table.cpp
  study/study_figure.cpp
  study/metric_names.cpp
  text/utf8.cpp
)
