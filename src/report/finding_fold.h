// One root cause, one block of text. A node with a translated IOMMU has 20
// iommu findings that differ only in their subject; listed one by one they
// bury the other findings. For text output, findings of one check with the
// same status, summary and fix fold into one: the subjects folded into
// ranges ("GPU0–7, mlx5_0–11"), the evidence every one of them shares shown
// once, the rest kept per subject. JSON keeps every finding: scripts count
// and select them.
#pragma once

#include <string>
#include <vector>

#include "checks/finding.h"

namespace gdrcheck {

struct FoldedFinding {
  // The first finding of the fold: its check, status, summary and fix are
  // every member's.
  const Finding* first = nullptr;
  std::vector<const Finding*> members;  // in report order, first included
  // Evidence lines every member has, in the first member's order.
  std::vector<std::string> shared_evidence;
  // Per member (same order as `members`): its evidence lines not shared.
  std::vector<std::vector<std::string>> own_evidence;
};

// `findings` folded, in the order each fold's first member appears.
std::vector<FoldedFinding> fold_findings(const std::vector<const Finding*>& findings);

// Subjects as a short list: numbered ones with a common prefix folded into
// runs ("GPU0", "GPU1", "GPU2" → "GPU0–2"; "mlx5_3" stays), the others
// listed as given, each once, in order of first appearance. `utf8` picks
// the dash: '–' (en dash) or ASCII '-'. Subjects are shown as they are:
// the caller escapes them first.
std::string fold_subjects(const std::vector<std::string>& subjects, bool utf8);

}  // namespace gdrcheck
