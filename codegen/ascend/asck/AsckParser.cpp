// Line-based recursive-descent parser for .asck; every error names file:line:col with a caret line.
#include "codegen/ascend/asck/AsckParser.h"

#include <cctype>
#include <sstream>

#include "core/AtomicFile.h"
#include "core/CheckedMath.h"

namespace gir::ascend {

Diagnostic asckError(const std::string& file, const std::string& text, int line, int col, const std::string& msg) {
  std::istringstream in(text);
  std::string src;
  for (int i = 0; i < line && std::getline(in, src); ++i) {}
  std::string caret(col > 1 ? col - 1 : 0, ' ');
  SourceLocation loc{file, line, col, ""};
  return makeError(msg + "\n  " + src + "\n  " + caret + "^", loc);
}

namespace {

struct Token {
  std::string text;
  int col = 1;  // 1-based
};

struct Line {
  int number = 0;
  std::string text;
  std::vector<Token> tokens;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) { ++i; continue; }
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    out.push_back({s.substr(i, j - i), static_cast<int>(i) + 1});
    i = j;
  }
  return out;
}

bool parseInt(const std::string& s, int64_t& v) {
  if (s.empty() || s.size() > 18) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  v = std::stoll(s);
  return true;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : text_(text), file_(file) {
    std::istringstream in(text);
    std::string raw;
    int n = 0;
    while (std::getline(in, raw)) {
      ++n;
      std::string s = raw.substr(0, raw.find('#'));
      auto toks = tokenize(s);
      if (!toks.empty()) lines_.push_back({n, s, std::move(toks)});
    }
  }

  Expected<Program> run();

 private:
  Diagnostic err(int line, int col, const std::string& m) const { return asckError(file_, text_, line, col, m); }
  Expected<bool> parseBlock(std::vector<Stmt>& out, bool nested, int openLine, int openCol);
  Expected<bool> parseStmt(const Line& l, std::vector<Stmt>& out);
  Expected<bool> parseHeader(const Line& l);
  Expected<Stmt> parseInstr(const Line& l);
  Expected<Stmt> parseSync(const Line& l);
  Expected<Stmt> parseControl(const Line& l);
  Expected<bool> parseRefs(const Line& l, size_t begin, size_t end, std::vector<RegionRef>& out);
  Expected<RegionRef> parseRef(const Line& l, const std::string& s, int col);
  Expected<AffineIndex> parseIndex(const Line& l, const std::string& s, int col);
  Expected<bool> parseSum(const Line& l, const std::string& s, int col, AffineIndex& out);

  const std::string& text_;
  std::string file_;
  std::vector<Line> lines_;
  size_t pos_ = 0;
  Program prog_;
  std::vector<std::string> loopVars_;
  bool sawKernel_ = false;
};

Expected<Program> Parser::run() {
  prog_.file = file_;
  auto r = parseBlock(prog_.body, false, 0, 0);
  if (!r) return r.takeError();
  if (!sawKernel_) return err(1, 1, "missing 'kernel NAME' line");
  numberStmts(prog_);
  return std::move(prog_);
}

// Parses statements until '}' (nested) or the end of the file (top level).
Expected<bool> Parser::parseBlock(std::vector<Stmt>& out, bool nested, int openLine, int openCol) {
  while (pos_ < lines_.size()) {
    const Line& l = lines_[pos_];
    if (l.tokens[0].text == "}") {
      if (!nested) return err(l.number, l.tokens[0].col, "unbalanced '}': no block is open");
      return true;  // caller consumes the closing line (it may carry 'else {')
    }
    ++pos_;
    auto r = parseStmt(l, out);
    if (!r) return r;
  }
  if (nested) return err(openLine, openCol, "unbalanced braces: this '{' is never closed");
  return true;
}

Expected<bool> Parser::parseStmt(const Line& l, std::vector<Stmt>& out) {
  const std::string& head = l.tokens[0].text;
  if (head == "kernel" || head == "target" || head == "buffer") {
    if (!loopVars_.empty() || &out != &prog_.body) return err(l.number, l.tokens[0].col, "'" + head + "' must be at top level");
    return parseHeader(l);
  }
  if (!sawKernel_) return err(l.number, l.tokens[0].col, "expected 'kernel NAME' before '" + head + "'");
  Expected<Stmt> s = (head == "loop" || head == "if") ? parseControl(l)
                     : (head == "set_flag" || head == "wait_flag" || head == "pipe_barrier") ? parseSync(l)
                                                                                              : parseInstr(l);
  if (!s) return s.takeError();
  out.push_back(std::move(*s));
  return true;
}

Expected<bool> Parser::parseHeader(const Line& l) {
  const auto& t = l.tokens;
  const std::string& head = t[0].text;
  if (head == "kernel") {
    if (sawKernel_) return err(l.number, t[0].col, "only one kernel per file");
    if (t.size() != 2) return err(l.number, t[0].col, "expected 'kernel NAME'");
    prog_.name = t[1].text;
    sawKernel_ = true;
    return true;
  }
  if (!sawKernel_) return err(l.number, t[0].col, "expected 'kernel NAME' before '" + head + "'");
  if (head == "target") {
    if (t.size() != 2) return err(l.number, t[0].col, "expected 'target NAME'");
    prog_.target = t[1].text;
    return true;
  }
  if (t.size() < 4 || t.size() > 5) return err(l.number, t[0].col, "expected 'buffer NAME MEM BYTES [tile=N]'");
  Buffer b;
  b.name = t[1].text;
  if (prog_.findBuffer(b.name) >= 0) return err(l.number, t[1].col, "buffer '" + b.name + "' is declared twice");
  auto mem = parseMem(t[2].text);
  if (!mem) return err(l.number, t[2].col, "unknown memory '" + t[2].text + "' (GM, UB, L1, L0A, L0B, L0C)");
  b.mem = *mem;
  if (!parseInt(t[3].text, b.bytes) || b.bytes <= 0) return err(l.number, t[3].col, "expected a positive byte count");
  if (t.size() == 5) {
    if (t[4].text.rfind("tile=", 0) != 0 || !parseInt(t[4].text.substr(5), b.tile) || b.tile <= 0)
      return err(l.number, t[4].col, "expected 'tile=N' with N > 0");
    if (b.tile > b.bytes) return err(l.number, t[4].col, "tile is larger than the buffer");
    if (b.tileCount() > kMaxTilesPerBuffer)
      return err(l.number, t[3].col, "buffer '" + b.name + "' has " + std::to_string(b.tileCount()) + " tiles, over the limit of " +
                                         std::to_string(kMaxTilesPerBuffer) + " (kMaxTilesPerBuffer)");
  }
  prog_.buffers.push_back(b);
  return true;
}

// A statement of this kind at the line's first token.
Stmt stmtAt(StmtKind kind, const Line& l) {
  Stmt s;
  s.kind = kind;
  s.line = l.number;
  s.column = l.tokens[0].col;
  return s;
}

Expected<Stmt> Parser::parseControl(const Line& l) {
  const auto& t = l.tokens;
  bool isLoop = t[0].text == "loop";
  Stmt s = stmtAt(isLoop ? StmtKind::Loop : StmtKind::If, l);
  size_t want = isLoop ? 4 : 3;
  if (t.size() != want || t.back().text != "{")
    return err(l.number, t[0].col, isLoop ? "expected 'loop VAR N {'" : "expected 'if COND {'");
  s.var = t[1].text;
  if (isLoop) {
    if (!parseInt(t[2].text, s.trip)) return err(l.number, t[2].col, "expected a constant trip count");
    if (s.trip < 1) return err(l.number, t[2].col, "loop trip count must be at least 1");
    if (s.trip > 1000000) return err(l.number, t[2].col, "loop trip count must be at most 1000000");
    loopVars_.push_back(s.var);
  }
  auto r = parseBlock(s.body, true, l.number, t.back().col);
  if (isLoop) loopVars_.pop_back();
  if (!r) return r.takeError();
  const Line& close = lines_[pos_++];
  const auto& ct = close.tokens;
  if (ct.size() == 1) return s;
  if (isLoop || ct.size() != 3 || ct[1].text != "else" || ct[2].text != "{")
    return err(close.number, ct[ct.size() > 1 ? 1 : 0].col, "expected '}' or '} else {'");
  s.hasElse = true;
  auto e = parseBlock(s.elseBody, true, close.number, ct[2].col);
  if (!e) return e.takeError();
  const Line& close2 = lines_[pos_++];
  if (close2.tokens.size() != 1) return err(close2.number, close2.tokens[1].col, "expected '}'");
  return s;
}

Expected<Stmt> Parser::parseSync(const Line& l) {
  const auto& t = l.tokens;
  Stmt s = stmtAt(StmtKind::Sync, l);
  if (t[0].text == "pipe_barrier") {
    if (t.size() != 2) return err(l.number, t[0].col, "expected 'pipe_barrier PIPE|ALL'");
    s.sync.kind = SyncKind::Barrier;
    if (t[1].text == "ALL") { s.sync.all = true; return s; }
    auto p = parsePipe(t[1].text);
    if (!p) return err(l.number, t[1].col, "unknown pipe '" + t[1].text + "'");
    s.sync.src = s.sync.dst = *p;
    return s;
  }
  s.sync.kind = t[0].text == "set_flag" ? SyncKind::Set : SyncKind::Wait;
  if (t.size() != 4) return err(l.number, t[0].col, "expected '" + t[0].text + " SRC DST ID'");
  auto a = parsePipe(t[1].text), b = parsePipe(t[2].text);
  if (!a) return err(l.number, t[1].col, "unknown pipe '" + t[1].text + "'");
  if (!b) return err(l.number, t[2].col, "unknown pipe '" + t[2].text + "'");
  if (*a == *b) return err(l.number, t[2].col, "a flag joins two different pipes");
  int64_t id = 0;
  if (!parseInt(t[3].text, id) || id < 0 || id > 1000000) return err(l.number, t[3].col, "expected a flag ID >= 0");
  s.sync.src = *a;
  s.sync.dst = *b;
  s.sync.id = static_cast<int>(id);
  return s;
}

Expected<Stmt> Parser::parseInstr(const Line& l) {
  const auto& t = l.tokens;
  Stmt s = stmtAt(StmtKind::Instr, l);
  auto pipe = parsePipe(t[0].text);
  if (!pipe) return err(l.number, t[0].col, "unknown pipe or keyword '" + t[0].text + "'");
  s.instr.pipe = *pipe;
  if (t.size() < 2) return err(l.number, t[0].col, "expected 'PIPE OPNAME DSTS <- SRCS'");
  s.instr.op = t[1].text;
  size_t arrow = 0;
  for (size_t i = 2; i < t.size(); ++i)
    if (t[i].text == "<-") { arrow = i; break; }
  if (arrow == 0) return err(l.number, t[1].col + static_cast<int>(t[1].text.size()), "expected 'DSTS <- SRCS'");
  size_t attrs = t.size();
  for (size_t i = arrow + 1; i < t.size(); ++i)
    if (t[i].text.rfind("cycles=", 0) == 0 || t[i].text.rfind("name=", 0) == 0) { attrs = i; break; }
  for (size_t i = attrs; i < t.size(); ++i) {
    const std::string& a = t[i].text;
    int64_t v = 0;
    if (a.rfind("cycles=", 0) == 0) {
      if (!parseInt(a.substr(7), v) || v < 1 || v > 100000000) return err(l.number, t[i].col, "expected 'cycles=N' with N >= 1");
      s.instr.cycles = static_cast<int>(v);
    } else if (a.rfind("name=", 0) == 0 && a.size() > 5) {
      s.instr.label = a.substr(5);
    } else {
      return err(l.number, t[i].col, "unexpected '" + a + "' after the sources (cycles=N, name=LABEL)");
    }
  }
  auto d = parseRefs(l, 2, arrow, s.instr.dsts);
  if (!d) return d.takeError();
  auto r = parseRefs(l, arrow + 1, attrs, s.instr.srcs);
  if (!r) return r.takeError();
  return s;
}

// Tokens [begin, end) hold a comma-separated list of references, or '-'.
Expected<bool> Parser::parseRefs(const Line& l, size_t begin, size_t end, std::vector<RegionRef>& out) {
  const auto& t = l.tokens;
  if (begin >= end) {
    int col = begin < t.size() ? t[begin].col : t.back().col + static_cast<int>(t.back().text.size());
    return err(l.number, col, "expected region references or '-'");
  }
  int startCol = t[begin].col;
  int endCol = t[end - 1].col + static_cast<int>(t[end - 1].text.size());
  std::string s = l.text.substr(startCol - 1, endCol - startCol);
  if (end - begin == 1 && t[begin].text == "-") return true;
  size_t i = 0;
  int depth = 0;
  size_t itemStart = 0;
  for (; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c != ',' || depth != 0) continue;
    size_t a = itemStart, b = i;
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    if (a == b) return err(l.number, startCol + static_cast<int>(a), "empty region reference");
    auto ref = parseRef(l, s.substr(a, b - a), startCol + static_cast<int>(a));
    if (!ref) return ref.takeError();
    out.push_back(*ref);
    itemStart = i + 1;
  }
  return true;
}

Expected<RegionRef> Parser::parseRef(const Line& l, const std::string& s, int col) {
  RegionRef r;
  r.line = l.number;
  r.column = col;
  size_t br = s.find('[');
  std::string name = s.substr(0, br);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  r.buffer = prog_.findBuffer(name);
  if (r.buffer < 0) return err(l.number, col, "unknown buffer '" + name + "'");
  if (br == std::string::npos) return r;
  if (s.back() != ']') return err(l.number, col + static_cast<int>(s.size()) - 1, "expected ']'");
  r.whole = false;
  auto idx = parseIndex(l, s.substr(br + 1, s.size() - br - 2), col + static_cast<int>(br) + 1);
  if (!idx) return idx.takeError();
  r.index = *idx;
  return r;
}

// index := sum | sum '%' int | '(' sum ')' '%' int
Expected<AffineIndex> Parser::parseIndex(const Line& l, const std::string& raw, int col) {
  AffineIndex out;
  std::string s;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  size_t pct = s.rfind('%');
  std::string body = s;
  if (pct != std::string::npos) {
    if (!parseInt(s.substr(pct + 1), out.mod) || out.mod < 1) return err(l.number, col, "expected '%' followed by a positive constant");
    if (out.mod > kMaxIndexMagnitude) return err(l.number, col, "modulus is beyond 2^40 (kMaxIndexMagnitude)");
    body = s.substr(0, pct);
    if (!body.empty() && body.front() == '(') {
      if (body.back() != ')') return err(l.number, col, "expected ')' before '%'");
      body = body.substr(1, body.size() - 2);
    }
  }
  if (body.empty()) return err(l.number, col, "empty tile index");
  auto r = parseSum(l, body, col, out);
  if (!r) return r.takeError();
  return out;
}

Expected<bool> Parser::parseSum(const Line& l, const std::string& s, int col, AffineIndex& out) {
  size_t i = 0;
  while (i < s.size()) {
    int64_t sign = 1;
    if (s[i] == '+' || s[i] == '-') { sign = s[i] == '-' ? -1 : 1; ++i; }
    else if (i > 0) return err(l.number, col + static_cast<int>(i), "expected '+' or '-'");
    size_t j = i;
    while (j < s.size() && s[j] != '+' && s[j] != '-') ++j;
    std::string term = s.substr(i, j - i);
    if (term.empty()) return err(l.number, col + static_cast<int>(i), "expected a term");
    size_t star = term.find('*');
    int64_t coef = 1;
    std::string var = term;
    if (star != std::string::npos) {
      if (!parseInt(term.substr(0, star), coef)) return err(l.number, col + static_cast<int>(i), "expected 'C*VAR'");
      var = term.substr(star + 1);
    }
    int64_t k = 0;
    int64_t* into = nullptr;  // the constant or the coefficient this term adds to
    if (star == std::string::npos && parseInt(term, k)) {
      into = &out.constant;
      coef = k;
    } else {
      bool known = false;
      for (const auto& v : loopVars_) known |= v == var;
      if (!known) return err(l.number, col + static_cast<int>(i), "'" + var + "' is not an enclosing loop variable");
      for (auto& [c, n] : out.terms)
        if (n == var) into = &c;
      if (!into) into = &out.terms.emplace_back(0, var).first;
    }
    auto sum = checkedAdd(*into, sign * coef);
    if (!sum || *sum > kMaxIndexMagnitude || *sum < -kMaxIndexMagnitude)
      return err(l.number, col + static_cast<int>(i),
                 "tile index constant or coefficient is beyond +-2^40 (kMaxIndexMagnitude) after adding '" + term + "'");
    *into = *sum;
    i = j;
  }
  return true;
}

}  // namespace

Expected<Program> parseAsck(const std::string& text, const std::string& fileName) {
  Parser p(text, fileName);
  return p.run();
}

Expected<Program> loadAsck(const std::string& path) {
  auto text = readWholeFile(path);
  if (!text) return text.takeError();
  return parseAsck(*text, path);
}

}  // namespace gir::ascend
