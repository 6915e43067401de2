// Two-space indentation, one statement per line, sync lines as in docs/ascend.md, "Input and output format".
#include "codegen/ascend/asck/AsckPrinter.h"

#include <sstream>

namespace gir::ascend {

std::string printRef(const Program& p, const RegionRef& r) {
  const std::string& n = p.buffers[r.buffer].name;
  return r.whole ? n : n + "[" + r.index.str() + "]";
}

static std::string refs(const Program& p, const std::vector<RegionRef>& rs) {
  if (rs.empty()) return "-";
  std::string out;
  for (const auto& r : rs) out += (out.empty() ? "" : ", ") + printRef(p, r);
  return out;
}

static void printBlock(const Program& p, const std::vector<Stmt>& b, int depth, std::ostringstream& os) {
  std::string ind(depth * 2, ' ');
  for (const auto& s : b) {
    switch (s.kind) {
      case StmtKind::Instr:
        os << ind << pipeName(s.instr.pipe) << " " << s.instr.op << " " << refs(p, s.instr.dsts) << " <- "
           << refs(p, s.instr.srcs);
        if (s.instr.cycles > 0) os << " cycles=" << s.instr.cycles;
        if (!s.instr.label.empty()) os << " name=" << s.instr.label;
        os << "\n";
        break;
      case StmtKind::Sync:
        os << ind << describeSync(s.sync) << "\n";
        break;
      case StmtKind::Loop:
        os << ind << "loop " << s.var << " " << s.trip << " {\n";
        printBlock(p, s.body, depth + 1, os);
        os << ind << "}\n";
        break;
      case StmtKind::If:
        os << ind << "if " << s.var << " {\n";
        printBlock(p, s.body, depth + 1, os);
        if (s.hasElse) {
          os << ind << "} else {\n";
          printBlock(p, s.elseBody, depth + 1, os);
        }
        os << ind << "}\n";
        break;
    }
  }
}

std::string printAsck(const Program& p) {
  std::ostringstream os;
  os << "kernel " << p.name << "\n";
  if (!p.target.empty()) os << "target " << p.target << "\n";
  for (const auto& b : p.buffers) {
    os << "buffer " << b.name << " " << memName(b.mem) << " " << b.bytes;
    if (b.tile > 0) os << " tile=" << b.tile;
    os << "\n";
  }
  os << "\n";
  printBlock(p, p.body, 0, os);
  return os.str();
}

}  // namespace gir::ascend
