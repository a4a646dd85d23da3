# Run with cmake -P: DOXYGEN (the executable), DOXYFILE, LOG (the WARN_LOGFILE of DOXYFILE).
# Fails, printing every warning, when Doxygen fails or logs any warning.
execute_process(COMMAND "${DOXYGEN}" "${DOXYFILE}" RESULT_VARIABLE _result)
set(_warnings "")
if(EXISTS "${LOG}")
    file(READ "${LOG}" _warnings)
endif()
if(NOT _result EQUAL 0 OR NOT _warnings STREQUAL "")
    # Printed as is (message() would re-wrap the lines), then the failure.
    execute_process(COMMAND "${CMAKE_COMMAND}" -E cat "${LOG}")
    message(FATAL_ERROR "Doxygen (exit ${_result}) warned, see above; fix the doc comments")
endif()
