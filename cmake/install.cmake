# `cmake --install build [--prefix P]`: bin/ (harness, bind, trainer, bert-data, power-monitor; trainer-cuda in the
# cuda component) and share/bert-harness/ (systems, compliance rules, run.sub, container recipe).
# The harness finds bind/trainer/bert-data/power-monitor next to itself and has its rules compiled in, so an installed
# tree needs nothing from the build or source tree. `cpack --config build/CPackConfig.cmake` makes two
# .deb files: bert-harness (everything CPU; Depends computed by dpkg-shlibdeps from the binaries, so
# only runtime libraries) and bert-harness-cuda (trainer-cuda; needs NVIDIA's CUDA 13 runtime, cuBLASLt
# and NCCL libraries, which no Debian package provides).
include(GNUInstallDirs)
set(BERT_SHARE ${CMAKE_INSTALL_DATADIR}/bert-harness)

install(TARGETS harness bind trainer bert-data power-monitor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
if(TARGET trainer-cuda)
  install(TARGETS trainer-cuda RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cuda)
endif()

# `cmake --build build --target product`: the binaries above and nothing else (no tests, no benches);
# what scripts/setup builds so that a fresh machine reaches a scored main job soon.
add_custom_target(product DEPENDS harness bind trainer bert-data power-monitor $<$<TARGET_EXISTS:trainer-cuda>:trainer-cuda>)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/systems/ DESTINATION ${BERT_SHARE}/systems COMPONENT tools
        PATTERN "*.py" EXCLUDE)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/results/rules/ DESTINATION ${BERT_SHARE}/rules COMPONENT tools)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/slurm/run.sub ${CMAKE_SOURCE_DIR}/container/import.sh
        DESTINATION ${BERT_SHARE} COMPONENT tools)
install(FILES ${CMAKE_SOURCE_DIR}/container/Dockerfile ${CMAKE_SOURCE_DIR}/container/containers.conf
        DESTINATION ${BERT_SHARE}/container COMPONENT tools)

set(CPACK_PACKAGE_NAME bert-harness)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "bert-harness developers <bert-harness@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MLPerf Training BERT harness: plan, bind, launch, check and score")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tools)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME bert-harness)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
# gnuplot draws summary plots when present; the harness runs without it. libmkl-rt (non-free): the cpu
# backend's fp32 GEMMs on Intel CPUs, loaded when present (trainer/cpu/blas.h).
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "gnuplot-nox, podman, runc, libmkl-rt")
if(TARGET trainer-cuda)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_NAME bert-harness-cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "bert-harness (= ${PROJECT_VERSION})")
  # libcudart.so.13, libcublasLt.so.13 and libnccl.so.2 come from NVIDIA's packages, unknown to dpkg-shlibdeps.
  set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
endif()
include(CPack)
