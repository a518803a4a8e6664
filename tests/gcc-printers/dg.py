#!/usr/bin/env python3
"""Reads GCC's libstdc++ pretty-printer test programs for run-gcc-printers.sh.

  dg.py prepare SRC.cc OUT.cc   the program, its "Mark SPOT" line prefixed
                                with a call of sg_gcc_spot() (no line moves);
                                prints its dg-options
  dg.py tests SRC.cc            its expectations, one a line, tab-separated:
                                key kind(print|whatis) mode(exact|regex) VAR
                                EXPECTED
  dg.py ignored SRC.cc          the dg-final lines DejaGnu does not see
  dg.py commands SRC.cc         the debugger commands for the expectations,
                                each after an echo of a marker line
  dg.py compare SRC.cc OUT      OUT (a debugger's answers to `commands`):
                                key, 1 or 0 (matched), what it printed

The expectations are read as GCC's testsuite reads them (DejaGnu's dg.exp
and libstdc++-v3/testsuite/lib/gdb-test.exp):
- a "dg-final" directive counts only if its line matches DejaGnu's
  pattern, `{[ \\t]+dg-[-a-z]+[ \\t]+.*[ \\t]+}` (a blank before a closing
  brace): four of cxx17.cc's have none and GCC never runs them;
- its arguments are Tcl words (braces literal, quotes with backslash
  substitution);
- the answer is the first line of `print VAR` (or `whatis VAR`) that
  starts "$N = " ("type = "), from after " = " to the end of the line;
- note-test and whatis-test compare it whole, regexp-test and
  whatis-regexp-test search it for the regular expression (Tcl's, here
  Python's, with the POSIX classes Tcl has).  GCC 12's simple.cc and
  simple11.cc write a brace as \\\\{ in a regexp, which Tcl refuses to
  compile: it is read as the \\{ it was meant to be.
- an optional target selector ({ xfail { c++20 || debug_mode } }) names
  configurations other than the default this harness builds: ignored.
"""

import re
import sys

MARK = "@@sg-gcc-printers@@"
SPOT_FN = "sg_gcc_spot"

# DejaGnu's dg-get-options pattern, and its split into command and rest.
DG_LINE = re.compile(r"\{[ \t]+dg-[-a-z]+[ \t]+.*[ \t]+\}")
DG_SPLIT = re.compile(r"\{[ \t]*(dg-[-a-z]+)[ \t]+(.*)[ \t]+\}[^{}]*$")
KINDS = {
    "note-test": ("print", "exact"),
    "regexp-test": ("print", "regex"),
    "whatis-test": ("whatis", "exact"),
    "whatis-regexp-test": ("whatis", "regex"),
}


def tcl_words(s):
    """Split a Tcl command into words (no command or variable
    substitution: GCC's directives use none)."""
    words = []
    i, n = 0, len(s)
    while True:
        while i < n and s[i] in " \t\n":
            i += 1
        if i >= n:
            return words
        if s[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if s[j] == "\\":
                    j += 2
                    continue
                if s[j] == "{":
                    depth += 1
                elif s[j] == "}":
                    depth -= 1
                j += 1
            if depth:
                raise ValueError("unbalanced braces: " + s)
            words.append(s[i + 1:j - 1])
            i = j
        elif s[i] == '"':
            word, j = substituted(s, i + 1, '"')
            words.append(word)
            i = j + 1
        else:
            word, i = substituted(s, i, " \t\n")
            words.append(word)


def substituted(s, i, stops):
    """The text of s from i to the first of stops, with backslash
    substitution; and where it stopped."""
    out = []
    while i < len(s) and s[i] not in stops:
        if s[i] == "\\" and i + 1 < len(s):
            out.append(tcl_escape(s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out), i


def tcl_escape(c):
    return {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v"}.get(c, c)


def directives(path):
    """(line number, dg-command, its argument words) of each directive
    DejaGnu sees; and the dg-final lines it does not."""
    seen, ignored = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not DG_LINE.search(line):
                if "dg-final" in line:
                    ignored.append((lineno, line.strip()))
                continue
            m = DG_SPLIT.search(line)
            if not m:
                continue
            seen.append((lineno, m.group(1), m.group(2)))
    return seen, ignored


def dg_options(path):
    for _, cmd, rest in directives(path)[0]:
        if cmd == "dg-options":
            return tcl_words(rest)[0]
    return ""


def expectations(path):
    """[(key, kind, mode, var, expected)]; key is VAR, VAR#2 for the
    second test of the same VAR, and so on."""
    tests, count = [], {}
    for _, cmd, rest in directives(path)[0]:
        if cmd != "dg-final":
            continue
        words = tcl_words(tcl_words(rest)[0])
        if not words or words[0] not in KINDS:
            continue
        kind, mode = KINDS[words[0]]
        var, expected = words[1], words[2]
        count[var] = count.get(var, 0) + 1
        key = var if count[var] == 1 else "%s#%d" % (var, count[var])
        tests.append((key, kind, mode, var, expected))
    return tests


def python_regex(tcl_re):
    """Tcl's regexp syntax as Python's: POSIX classes inside brackets,
    and GCC 12's \\\\{ meant as \\{."""
    tcl_re = tcl_re.replace(r"\\{", r"\{").replace(r"\\}", r"\}")
    classes = {"xdigit": "0-9A-Fa-f", "digit": "0-9", "alpha": "A-Za-z",
               "alnum": "0-9A-Za-z", "space": r" \t\n\r\f\v",
               "upper": "A-Z", "lower": "a-z"}
    return re.sub(r"\[:(\w+):\]", lambda m: classes.get(m.group(1), m.group(0)), tcl_re)


def matches(mode, expected, got):
    if got is None:
        return False
    if mode == "exact":
        return got == expected
    return re.search(python_regex(expected), got) is not None


def answers(out_path, n):
    """The answer to each of the n commands: the first "$N = " or
    "type = " line after its marker, else the first line (an error)."""
    segs = [[] for _ in range(n)]
    cur = None
    with open(out_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(re.escape(MARK) + r" (\d+)$", line)
            if m:
                cur = int(m.group(1))
                continue
            if cur is not None and cur < n:
                segs[cur].append(line)
    res = []
    for lines in segs:
        value = None
        for line in lines:
            m = re.match(r"^(?:type|\$\d+) = (.*)$", line)
            if m:
                value = m.group(1)
                break
        first = next((l for l in lines if l.strip()), "")
        res.append((value, first))
    return res


def main(argv):
    op, src = argv[1], argv[2]
    if op == "prepare":
        with open(src, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        spots = [i for i, l in enumerate(lines) if re.search(r"Mark SPOT\b", l)]
        if len(spots) != 1:
            sys.exit("%s: %d Mark SPOT lines" % (src, len(spots)))
        # The declaration joins line 1, the call the SPOT line: no line
        # number moves, and the call runs before the SPOT's statement,
        # where GCC's "break LINE" stops.
        lines[0] = 'extern "C" void %s(void); %s' % (SPOT_FN, lines[0])
        s = spots[0]
        indent = re.match(r"[ \t]*", lines[s]).group(0)
        lines[s] = "%s%s(); %s" % (indent, SPOT_FN, lines[s][len(indent):])
        with open(argv[3], "w", encoding="utf-8") as f:
            f.writelines(lines)
        print(dg_options(src))
    elif op == "tests":
        for t in expectations(src):
            print("\t".join(t))
    elif op == "ignored":
        for lineno, line in directives(src)[1]:
            print("%d: %s" % (lineno, line))
    elif op == "commands":
        for i, (key, kind, mode, var, expected) in enumerate(expectations(src)):
            print("echo %s %d\\n" % (MARK, i))
            print("%s %s" % (kind, var))
    elif op == "compare":
        tests = expectations(src)
        for (key, kind, mode, var, expected), (value, first) in zip(tests, answers(argv[3], len(tests))):
            ok = matches(mode, expected, value)
            shown = value if value is not None else "(no value: %s)" % (first or "no output")
            print("%s\t%d\t%s" % (key, 1 if ok else 0, shown))
    else:
        sys.exit("usage: dg.py prepare|tests|ignored|commands|compare SRC.cc [...]")


if __name__ == "__main__":
    main(sys.argv)
