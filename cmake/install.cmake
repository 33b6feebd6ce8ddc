# What `cmake --install` puts where, and the Debian package (`cpack -G DEB`).
# Everything a site needs on a node: the binary, its man page (generated
# from the CLI's own help), shell completions, the bundled example root
# (found by the binary relative to its prefix), the health-check
# integrations and the documentation.
include(GNUInstallDirs)

install(TARGETS gdrcheck gdrcheck-mkroot RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${GDRCHECK_EXAMPLE_DIR}/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gdrcheck/example-root/dgx-h100 USE_SOURCE_PERMISSIONS)

# The man page: help2man over `gdrcheck --help` and every command's help.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  # Installed compressed, as Debian policy wants (gzip -n: no time stamp,
  # so the package is reproducible).
  add_custom_command(
    OUTPUT ${CMAKE_BINARY_DIR}/man/gdrcheck.1 ${CMAKE_BINARY_DIR}/man/gdrcheck.1.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/make-man $<TARGET_FILE:gdrcheck> ${CMAKE_BINARY_DIR}/man/gdrcheck.1
    COMMAND gzip -9nkf ${CMAKE_BINARY_DIR}/man/gdrcheck.1
    DEPENDS gdrcheck ${CMAKE_CURRENT_SOURCE_DIR}/scripts/make-man
    COMMENT "Generating the man page from the CLI help")
  add_custom_target(man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/gdrcheck.1.gz)
  install(FILES ${CMAKE_BINARY_DIR}/man/gdrcheck.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: no man page (scripts/bootstrap installs it)")
endif()

install(FILES tools/completions/gdrcheck.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME gdrcheck)
install(FILES tools/completions/_gdrcheck DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(PROGRAMS tools/health/gdrcheck-slurm-health DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gdrcheck)
install(FILES tools/health/gdrcheck.nhc DESTINATION ${CMAKE_INSTALL_DATADIR}/gdrcheck/nhc)
install(FILES tools/kubernetes/gdrcheck-daemonset.yaml tools/kubernetes/gdrcheck-node-labels.sh
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/kubernetes)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gdrcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "prove GPUDirect RDMA is active and correctly routed on every GPU of every node")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "gdrcheck developers <gdrcheck@invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# The shared libraries it links (hwloc, libpci, libstdc++, zlib, zstd ...)
# from dpkg-shlibdeps over the binaries, when cpack runs
# (cmake/cpack_project_config.cmake.in says why not CPack's own
# CPACK_DEBIAN_PACKAGE_SHLIBDEPS); pci.ids comes with libpci3.
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/cpack_project_config.cmake
     INPUT ${CMAKE_CURRENT_SOURCE_DIR}/cmake/cpack_project_config.cmake.in)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/cpack_project_config.cmake)
# Installed binaries without their debug information, as Debian ships
# them: the build type keeps -g for the build tree, which made the package
# a 170 MB binary (and its test a minute of compressing it).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openssh-client")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pdsh, slurm-client, prometheus-node-exporter, perftest")
include(CPack)
