// Expected<T>: a value or a Diagnostic. Errors cross library boundaries as values (docs/style.md).
#pragma once

#include <cassert>
#include <cstdlib>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gir {

// Where a problem is: a file position, a named node, or nothing.
struct SourceLocation {
  std::string file;  // may be empty
  int line = 0;      // 1-based; 0 = unknown
  int column = 0;    // 1-based; 0 = unknown
  std::string node;  // graph node / ONNX node / field path; may be empty

  std::string str() const;
};

// An error or finding with a location and optional notes (LLVM message style).
struct Diagnostic {
  SourceLocation location;
  std::string message;
  std::vector<std::string> notes;

  // "error: file:line:col: node 'x': message" followed by notes.
  std::string str() const;
};

Diagnostic makeError(std::string message, SourceLocation loc = {});

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Diagnostic d) : state_(std::move(d)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<T>(state_); }
  const T& value() const& { assert(ok()); return std::get<T>(state_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Diagnostic& error() const { assert(!ok()); return std::get<Diagnostic>(state_); }
  Diagnostic takeError() { assert(!ok()); return std::get<Diagnostic>(std::move(state_)); }

 private:
  std::variant<T, Diagnostic> state_;
};

// Expected<void>: success or a Diagnostic.
struct Ok {};
using Status = Expected<Ok>;
inline Status success() { return Ok{}; }

[[noreturn]] void assertionFailed(const char* expr, const char* file, int line, const char* msg);

}  // namespace gir

// Programming errors (broken invariants), never user input.
#define GIR_ASSERT(cond, msg) \
  do { if (!(cond)) ::gir::assertionFailed(#cond, __FILE__, __LINE__, msg); } while (0)
#define GIR_UNREACHABLE(msg) ::gir::assertionFailed("unreachable", __FILE__, __LINE__, msg)
