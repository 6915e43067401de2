#!/usr/bin/python3
"""The layering check (docs/style.md): folders are the architecture,
core <- rewrite <- search <- codegen <- viz <- app, and the gir CLI (cli/) sits on everything but app.
A file may include only its own layer and those to its left; nothing below viz/ includes Qt.
Inside codegen/ascend/ the same holds for asck <- sync <- lower: the .asck IR and its simulator and oracle
(asck/) and the set/wait insertion (sync/) are a library of their own that uses nothing from the project but
core's basics (no GIR graph), and the GIR lowering (lower/) sits on top of both.

Usage: scripts/check_layers.py [ROOT]      exit 1 and one line per violation when any is found
       scripts/check_layers.py --self-test  checks that the check finds planted violations
"""
import os
import re
import sys
import tempfile

LAYERS = ["core", "rewrite", "search", "codegen", "viz", "app"]
CLI_MAY_USE = set(LAYERS) - {"app"}
BELOW_QT = {"core", "rewrite", "search", "codegen"}
PROJECT_INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z_]+)/')
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<(Q[A-Za-z]+)')


def violations(root):
    out = []
    for top in LAYERS + ["cli"]:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        out += check_line(top, rel, number, line)
    return out


ASCEND = ["asck", "sync", "lower"]
ASCEND_INCLUDE = re.compile(r'^\s*#\s*include\s+"codegen/ascend/([a-z]+)/')
ASCEND_CORE_BASICS = re.compile(r'^\s*#\s*include\s+"core/(Expected|AtomicFile|CheckedMath|hw/HardwareDesc)\.h"')


def ascend_sublayer(rel):
    parts = rel.replace(os.sep, "/").split("/")
    if len(parts) > 3 and parts[0] == "codegen" and parts[1] == "ascend" and parts[2] in ASCEND:
        return parts[2]
    return None


def check_ascend(rel, number, line):
    sub = ascend_sublayer(rel)
    if sub is None:
        return []
    m = ASCEND_INCLUDE.match(line)
    if m and m.group(1) in ASCEND and ASCEND.index(m.group(1)) > ASCEND.index(sub):
        return [f"{rel}:{number}: codegen/ascend/{sub}/ includes codegen/ascend/{m.group(1)}/ (upward): {line.strip()}"]
    p = PROJECT_INCLUDE.match(line)
    if sub != "lower" and p and p.group(1) in LAYERS + ["cli"] and not m and not ASCEND_CORE_BASICS.match(line):
        return [f"{rel}:{number}: codegen/ascend/{sub}/ uses more of the project than core's basics: {line.strip()}"]
    return []


def check_line(top, rel, number, line):
    found = check_ascend(rel, number, line)
    m = PROJECT_INCLUDE.match(line)
    if m and m.group(1) in LAYERS + ["cli"]:
        used = m.group(1)
        if top == "cli":
            allowed = used in CLI_MAY_USE or used == "cli"
        else:
            allowed = used != "cli" and LAYERS.index(used) <= LAYERS.index(top)
        if not allowed:
            found.append(f"{rel}:{number}: {top}/ includes {used}/ (upward): {line.strip()}")
    q = SYSTEM_INCLUDE.match(line)
    if q and top in BELOW_QT:
        found.append(f"{rel}:{number}: Qt below viz/ ({top}/): {line.strip()}")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        planted = {
            "core/A.h": '#include "rewrite/B.h"\n',      # upward
            "search/C.cpp": "#include <QString>\n",     # Qt below viz
            "codegen/D.cpp": '#include "app/E.h"\n',    # upward
            "cli/F.cpp": '#include "app/G.h"\n',        # the CLI does not use the app
            "viz/H.cpp": '#include "core/I.h"\n#include <QImage>\n',  # fine
            "app/J.cpp": '#include "viz/K.h"\n',        # fine
            "codegen/ascend/asck/L.cpp": '#include "codegen/ascend/sync/M.h"\n',  # upward inside ascend
            "codegen/ascend/sync/N.cpp": '#include "core/gir/Graph.h"\n',         # the .asck library uses GIR
            "codegen/ascend/lower/O.cpp": '#include "codegen/ascend/sync/P.h"\n#include "core/gir/Graph.h"\n',  # fine
        }
        for rel, text in planted.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        got = violations(root)
        files = sorted({v.split(":")[0] for v in got})
        expected = ["cli/F.cpp", "codegen/D.cpp", "codegen/ascend/asck/L.cpp", "codegen/ascend/sync/N.cpp", "core/A.h",
                    "search/C.cpp"]
        if files != expected:
            print("self-test: expected violations in", expected, "got", got)
            return 1
    print("self-test: the check finds every planted violation and nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = violations(root)
    for v in found:
        print(v)
    print(f"layers: {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
