// An NCCL release by its version text, for the tests of the rules that
// changed between releases. One copy for the tests that each had their
// own: file-local copies of one name collide when a unity build compiles
// the tests together.
#pragma once

#include "nccl/nccl_version.h"

namespace gdrcheck::testing {

// The release "2.21.5" names; the text must parse.
inline NcclVersion nccl_version(const char* text) {
  return *NcclVersion::parse(text);
}

}  // namespace gdrcheck::testing
