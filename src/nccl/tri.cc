#include "nccl/tri.h"

namespace gdrcheck {

const char* tri_name(Tri t) {
  switch (t) {
    case Tri::No:
      return "no";
    case Tri::Yes:
      return "yes";
    case Tri::Unknown:
      return "unknown";
  }
  return "unknown";
}

Tri tri_all(std::initializer_list<Tri> ts) {
  bool unknown = false;
  for (Tri t : ts) {
    if (t == Tri::No) return Tri::No;
    if (t == Tri::Unknown) unknown = true;
  }
  return unknown ? Tri::Unknown : Tri::Yes;
}

const char* gdr_use_name(GdrUse u) {
  switch (u) {
    case GdrUse::No:
      return "no";
    case GdrUse::Yes:
      return "yes";
    case GdrUse::Fail:
      return "fail";
    case GdrUse::Unknown:
      return "unknown";
  }
  return "unknown";
}

GdrUse gdr_use_of(Tri nccl_selects) {
  switch (nccl_selects) {
    case Tri::No:
      return GdrUse::No;
    case Tri::Yes:
      return GdrUse::Yes;
    case Tri::Unknown:
      return GdrUse::Unknown;
  }
  return GdrUse::Unknown;
}

}  // namespace gdrcheck
