// Parsing GIR text: a header line, level lines, buffer/slice declarations and node lines.
#include "core/gir/Parser.h"
#include "core/gir/OpSpelling.h"

#include <cctype>
#include <charconv>
#include <map>
#include <sstream>

namespace gir {

namespace {

// A cursor over one line; every failure points at a column.
class LineCursor {
 public:
  LineCursor(std::string_view line, int lineNo, const std::string& file) : line_(line), lineNo_(lineNo), file_(file) {}

  bool atEnd() { skipSpace(); return pos_ >= line_.size(); }
  size_t pos() const { return pos_; }

  Diagnostic error(const std::string& msg, size_t col) const {
    Diagnostic d = makeError(msg, SourceLocation{file_, lineNo_, static_cast<int>(col) + 1, ""});
    d.notes.push_back(std::string(line_));
    d.notes.push_back(std::string(col, ' ') + "^");
    return d;
  }
  Diagnostic error(const std::string& msg) const { return error(msg, pos_); }

  bool tryEat(std::string_view tok) {
    skipSpace();
    if (line_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  Status expect(std::string_view tok) {
    if (tryEat(tok)) return success();
    return error("expected '" + std::string(tok) + "'");
  }

  // A word: letters, digits, '_', '.', '-'.
  std::string word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < line_.size() && (std::isalnum(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == '_' ||
                                   line_[pos_] == '.' || line_[pos_] == '-'))
      ++pos_;
    return std::string(line_.substr(start, pos_ - start));
  }

  Expected<std::string> name(char sigil) {
    skipSpace();
    size_t col = pos_;
    if (!tryEat(std::string(1, sigil))) return error(std::string("expected a name starting with '") + sigil + "'", col);
    std::string w = word();
    if (w.empty()) return error("expected a name after '" + std::string(1, sigil) + "'", col);
    return w;
  }

  Expected<int64_t> integer() {
    skipSpace();
    size_t start = pos_;
    if (pos_ < line_.size() && line_[pos_] == '-') ++pos_;
    while (pos_ < line_.size() && std::isdigit(static_cast<unsigned char>(line_[pos_]))) ++pos_;
    int64_t v = 0;
    auto res = std::from_chars(line_.data() + start, line_.data() + pos_, v);
    if (start == pos_ || res.ec != std::errc() || res.ptr != line_.data() + pos_) return error("expected an integer", start);
    return v;
  }

  Expected<double> number() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < line_.size() && (std::isalnum(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == '.' ||
                                   line_[pos_] == '-' || line_[pos_] == '+'))
      ++pos_;
    double v = 0;
    auto res = std::from_chars(line_.data() + start, line_.data() + pos_, v);
    if (start == pos_ || res.ec != std::errc() || res.ptr != line_.data() + pos_) return error("expected a number", start);
    return v;
  }

  Expected<std::vector<int64_t>> intList() {
    if (auto st = expect("["); !st) return st.takeError();
    std::vector<int64_t> out;
    if (tryEat("]")) return out;
    for (;;) {
      auto v = integer();
      if (!v) return v.takeError();
      out.push_back(*v);
      if (tryEat("]")) return out;
      if (auto st = expect(","); !st) return st.takeError();
    }
  }

  // The raw text inside balanced parentheses after an opening '(' has been eaten.
  Expected<std::string> parenthesized() {
    size_t start = pos_;
    int depth = 1;
    while (pos_ < line_.size()) {
      char c = line_[pos_];
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) {
        std::string inner(line_.substr(start, pos_ - start));
        ++pos_;
        return inner;
      }
      ++pos_;
    }
    return error("unbalanced '('", start);
  }

  bool peek(char ch) { skipSpace(); return pos_ < line_.size() && line_[pos_] == ch; }
  void skipSpace() { while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_; }

 private:
  std::string_view line_;
  size_t pos_ = 0;
  int lineNo_;
  const std::string& file_;
};

class GirTextParser {
 public:
  GirTextParser(const std::string& file) : file_(file) {}

  Expected<Graph> run(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    bool sawHeader = false;
    while (std::getline(in, raw)) {
      ++lineNo;
      std::string line = raw.substr(0, raw.find('#'));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      LineCursor c(line, lineNo, file_);
      if (c.atEnd()) continue;
      Status st = sawHeader ? statement(c) : header(c);
      if (!st) return st.takeError();
      sawHeader = true;
    }
    if (!sawHeader) return makeError("empty input: expected a 'gir @name units=N block=N' header", SourceLocation{file_, 1, 1, ""});
    return std::move(graph_);
  }

 private:
  Status header(LineCursor& c) {
    if (!c.tryEat("gir")) return c.error("expected the header 'gir @name units=N block=N'");
    auto n = c.name('@');
    if (!n) return n.takeError();
    graph_.name = *n;
    bool haveUnits = false;
    while (!c.atEnd()) {
      size_t col = c.pos();
      std::string key = c.word();
      if (auto st = c.expect("="); !st) return st;
      if (key == "target") { graph_.target = c.word(); continue; }
      auto v = c.integer();
      if (!v) return v.takeError();
      if (*v < 1) return c.error("'" + key + "' must be at least 1", col);
      if (key == "units") { graph_.units = *v; haveUnits = true; }
      else if (key == "block") graph_.unitsPerBlock = *v;
      else return c.error("unknown header attribute '" + key + "'", col);
    }
    if (!haveUnits) return c.error("the header needs units=N");
    return success();
  }

  Status statement(LineCursor& c) {
    size_t col = c.pos();
    if (c.tryEat("level ")) return level(c);
    if (c.tryEat("%")) {
      std::string n = c.word();
      if (n.empty()) return c.error("expected a name after '%'", col);
      if (auto st = c.expect("="); !st) return st;
      size_t kwCol = c.pos();
      std::string kw = c.word();
      if (kw == "buffer") return buffer(c, n, col);
      if (kw == "slice") return slice(c, n, col);
      return c.error("expected 'buffer' or 'slice', got '" + kw + "'", kwCol);
    }
    return node(c);
  }

  Status level(LineCursor& c) {
    LevelDecl l;
    l.name = c.word();
    size_t col = c.pos();
    auto scope = parseScope(c.word());
    if (!scope || *scope == Scope::Lane) return c.error("expected a scope: unit, block or device", col);
    l.scope = *scope;
    if (c.tryEat("capacity")) {
      if (auto st = c.expect("="); !st) return st;
      auto v = c.integer();
      if (!v) return v.takeError();
      l.capacityBytes = *v;
    }
    if (!c.atEnd()) return c.error("unexpected text after the level");
    if (graph_.level(l.name)) return c.error("duplicate level '" + l.name + "'", 6);
    graph_.levels.push_back(l);
    return success();
  }

  Status buffer(LineCursor& c, const std::string& n, size_t nameCol) {
    if (names_.count(n)) return c.error("duplicate name '%" + n + "'", nameCol);
    Buffer b;
    b.name = n;
    size_t col = c.pos();
    b.level = c.word();
    if (!graph_.level(b.level)) return c.error("unknown level '" + b.level + "'", col + 1);
    if (auto st = c.expect("f32"); !st) return c.error("expected the element type f32");
    auto shape = c.intList();
    if (!shape) return shape.takeError();
    b.shape = *shape;
    if (!c.atEnd()) {
      size_t rcol = c.pos();
      std::string role = c.word();
      if (role == "input") b.role = BufferRole::Input;
      else if (role == "output") b.role = BufferRole::Output;
      else return c.error("expected 'input' or 'output', got '" + role + "'", rcol);
    }
    if (!c.atEnd()) return c.error("unexpected text after the buffer");
    names_[n] = {true, graph_.addBuffer(b).value};
    return success();
  }

  Status slice(LineCursor& c, const std::string& n, size_t nameCol) {
    if (names_.count(n)) return c.error("duplicate name '%" + n + "'", nameCol);
    MemorySlice s;
    size_t col = c.pos();
    auto bname = c.name('%');
    if (!bname) return bname.takeError();
    auto it = names_.find(*bname);
    if (it == names_.end() || !it->second.isBuffer) return c.error("undefined buffer '%" + *bname + "'", col + 1);
    s.buffer = BufferId(it->second.id);
    if (auto st = c.expect("offset("); !st) return st;
    size_t ocol = c.pos();
    auto text = c.parenthesized();
    if (!text) return text.takeError();
    auto off = AffineIndex::parse(*text);
    if (!off) return c.error(off.error().message, ocol);
    s.offset = *off;
    if (auto st = c.expect("shape"); !st) return st;
    auto shape = c.intList();
    if (!shape) return shape.takeError();
    if (auto st = c.expect("strides"); !st) return st;
    auto strides = c.intList();
    if (!strides) return strides.takeError();
    s.shape = *shape;
    s.strides = *strides;
    if (!c.atEnd()) return c.error("unexpected text after the slice");
    names_[n] = {false, graph_.addSlice(s).value};
    return success();
  }

  Expected<SliceId> sliceRef(LineCursor& c) {
    c.skipSpace();
    size_t col = c.pos();
    auto n = c.name('%');
    if (!n) return n.takeError();
    auto it = names_.find(*n);
    if (it == names_.end()) return c.error("undefined name '%" + *n + "'", col);
    if (it->second.isBuffer) return c.error("'%" + *n + "' is a buffer; a node takes slices", col);
    return SliceId(it->second.id);
  }

  Status node(LineCursor& c) {
    size_t col = c.pos();
    std::string op = c.word();
    Node n;
    Status st = success();
    auto spelled = parseOpSpelling(op);
    if (!spelled) {
      std::string why = spelled.error().message;
      if (why.rfind("unknown operation", 0) == 0) why += " (expected move, ew.OP, reduce.OP, broadcast, sync, level or a %name declaration)";
      return c.error(why, col);
    }
    switch (spelled->kind) {
      case NodeKind::Move: st = unaryNode(c, n, MovePayload{}); break;
      case NodeKind::Elementwise: st = elementwise(c, n, spelled->elementwise); break;
      case NodeKind::Reduce: st = reduce(c, n, spelled->reduce); break;
      case NodeKind::Broadcast: st = broadcast(c, n); break;
      case NodeKind::Sync: st = sync(c, n); break;
    }
    if (!st) return st;
    if (c.tryEat("domain")) {
      if (auto s2 = c.expect("["); !s2) return s2;
      auto b = c.integer();
      if (!b) return b.takeError();
      if (auto s2 = c.expect(","); !s2) return s2;
      auto e = c.integer();
      if (!e) return e.takeError();
      if (auto s2 = c.expect(")"); !s2) return s2;
      n.domain = UnitDomain{*b, *e};
    }
    if (!c.atEnd()) return c.error("unexpected text after the node");
    graph_.addNode(std::move(n));
    return success();
  }

  Status unaryNode(LineCursor& c, Node& n, NodePayload payload) {
    auto in = sliceRef(c);
    if (!in) return in.takeError();
    if (auto st = c.expect("->"); !st) return st;
    auto out = sliceRef(c);
    if (!out) return out.takeError();
    n.payload = std::move(payload);
    n.inputs = {*in};
    n.outputs = {*out};
    return success();
  }

  Status elementwise(LineCursor& c, Node& n, ElementwiseOp op) {
    ElementwisePayload p{op, {}};
    do {
      if (c.peek('%')) {
        auto s = sliceRef(c);
        if (!s) return s.takeError();
        p.operands.push_back(ScalarOperand{static_cast<int>(n.inputs.size()), 0});
        n.inputs.push_back(*s);
      } else {
        auto v = c.number();
        if (!v) return v.takeError();
        p.operands.push_back(ScalarOperand{-1, *v});
      }
    } while (c.tryEat(","));
    if (auto st = c.expect("->"); !st) return st;
    auto out = sliceRef(c);
    if (!out) return out.takeError();
    n.outputs = {*out};
    n.payload = std::move(p);
    return success();
  }

  static Expected<std::vector<int>> axesList(LineCursor& c) {
    size_t col = c.pos();
    auto written = c.intList();
    if (!written) return written.takeError();
    NarrowedAxes a = narrowAxes(*written);
    if (a.outOfRange) return c.error("axis " + std::to_string(*a.outOfRange) + " is out of range", col);
    return std::move(a.axes);
  }

  Status reduce(LineCursor& c, Node& n, ReduceOp op) {
    if (auto st = c.expect("axes"); !st) return st;
    auto axes = axesList(c);
    if (!axes) return axes.takeError();
    return unaryNode(c, n, ReducePayload{op, std::move(*axes)});
  }

  Status broadcast(LineCursor& c, Node& n) {
    if (auto st = c.expect("axes"); !st) return st;
    auto axes = axesList(c);
    if (!axes) return axes.takeError();
    return unaryNode(c, n, BroadcastPayload{std::move(*axes)});
  }

  Status sync(LineCursor& c, Node& n) {
    size_t col = c.pos();
    auto scope = parseScope(c.word());
    if (!scope) return c.error("expected a scope: lane, unit, block or device", col + 1);
    auto ins = sliceGroup(c);
    if (!ins) return ins.takeError();
    if (auto st = c.expect("->"); !st) return st;
    auto outs = sliceGroup(c);
    if (!outs) return outs.takeError();
    n.payload = SyncPayload{*scope};
    n.inputs = *ins;
    n.outputs = *outs;
    return success();
  }

  Expected<std::vector<SliceId>> sliceGroup(LineCursor& c) {
    if (auto st = c.expect("("); !st) return st.takeError();
    std::vector<SliceId> out;
    if (c.tryEat(")")) return out;
    do {
      auto s = sliceRef(c);
      if (!s) return s.takeError();
      out.push_back(*s);
    } while (c.tryEat(","));
    if (auto st = c.expect(")"); !st) return st.takeError();
    return out;
  }

  struct NameEntry {
    bool isBuffer;
    uint32_t id;
  };
  const std::string& file_;
  Graph graph_;
  std::map<std::string, NameEntry> names_;
};

}  // namespace

Expected<Graph> parseGirText(const std::string& text, const std::string& fileName) {
  return GirTextParser(fileName).run(text);
}

}  // namespace gir
