#!/usr/bin/env python3
"""Check a profile's speedscope and pprof files without spyglass's code.

    profile-check.py known SPEEDSCOPE PPROF
    profile-check.py --samples N --threads T --stacks K --depth D SPEEDSCOPE PPROF
    profile-check.py shares FORMAT FILE HOT COLD

The "shares" form (tests/run-record.sh) reads a recorded profile in
FORMAT (folded, speedscope or pprof), checks its structure, and prints
one JSON object: samples, threads, the share of the samples whose stack
holds a frame named HOT (and COLD) among those holding either, and the
most frequent innermost (function, file, line) of the samples whose
innermost frame is HOT (speedscope and pprof; a Python frame's name is
"function (file:line)").

"known" is the profile tests/unit/test-profile.c builds: its stacks,
counts, names, files, lines and sample order are spelt out below.  The
other form checks totals, and that both files hold the same stacks per
thread.  Both check the structure: indexes in range, ids defined, the
string table.  Standard library only; the protobuf wire format is decoded
here.  Exit status 1 with a message per problem."""
import collections
import gzip
import json
import re
import sys
import time

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


# ---- the protobuf wire format ----

def varint(buf, i):
    v = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("truncated or overlong varint")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """(field number, value) pairs: an int, or bytes for wire type 2."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 1 or wire == 5:
            n = 8 if wire == 1 else 4
            v, i = int.from_bytes(buf[i:i + n], "little"), i + n
        elif wire == 2:
            n, i = varint(buf, i)
            if i + n > len(buf):
                raise ValueError("field %d: length %d past the end" % (num, n))
            v, i = bytes(buf[i:i + n]), i + n
        else:
            raise ValueError("field %d: wire type %d" % (num, wire))
        out.append((num, v))
    return out


def packed(v):
    """A repeated varint field's values, packed (bytes) or not (int)."""
    if isinstance(v, int):
        return [v]
    vals, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        vals.append(x)
    return vals


def decode(buf, spec):
    """SPEC: {field: (kind, subspec)} with kind 'msg*' (repeated message),
    'msg', 'int*' (repeated varint, packed or not), 'bytes*', 'int'."""
    m = {num: ([] if kind.endswith("*") else (None if kind == "msg" else 0))
         for num, (kind, _) in spec.items()}
    for num, v in fields(buf):
        if num not in spec:
            continue
        kind, sub = spec[num]
        if kind == "msg*":
            m[num].append(decode(v, sub))
        elif kind == "msg":
            m[num] = decode(v, sub)
        elif kind == "int*":
            m[num].extend(packed(v))
        elif kind == "bytes*":
            m[num].append(v)
        else:
            check(isinstance(v, int), "field %d is not a varint" % num)
            m[num] = v
    return m


VALUE_TYPE = {1: ("int", None), 2: ("int", None)}
LABEL = {1: ("int", None), 2: ("int", None), 3: ("int", None), 4: ("int", None)}
SAMPLE = {1: ("int*", None), 2: ("int*", None), 3: ("msg*", LABEL)}
MAPPING = {1: ("int", None), 2: ("int", None), 3: ("int", None), 5: ("int", None), 7: ("int", None)}
LINE = {1: ("int", None), 2: ("int", None)}
LOCATION = {1: ("int", None), 2: ("int", None), 3: ("int", None), 4: ("msg*", LINE)}
FUNCTION = {1: ("int", None), 2: ("int", None), 3: ("int", None), 4: ("int", None)}
PROFILE = {1: ("msg*", VALUE_TYPE), 2: ("msg*", SAMPLE), 3: ("msg*", MAPPING),
           4: ("msg*", LOCATION), 5: ("msg*", FUNCTION), 6: ("bytes*", None),
           9: ("int", None), 10: ("int", None), 11: ("msg", VALUE_TYPE), 12: ("int", None)}


# ---- pprof ----

def read_pprof(path):
    """The profile and its stacks: {thread label: Counter(outermost-first
    names)}.  Strings must be UTF-8."""
    with open(path, "rb") as f:
        raw = f.read()
    check(raw[:2] == b"\x1f\x8b", "pprof: not gzip")
    p = decode(gzip.decompress(raw), PROFILE)
    st = [s.decode("utf-8") for s in p[6]]
    check(st[:1] == [""], "pprof: string_table[0] is not empty")

    def s(i, what):
        if check(0 <= i < len(st), "pprof: %s: string index %d out of range" % (what, i)):
            return st[i]
        return "<bad>"

    sample_types = [(s(v[1], "sample_type"), s(v[2], "sample_type")) for v in p[1]]

    def by_id(items, what):
        d = {}
        for it in items:
            check(it[1] != 0 and it[1] not in d, "pprof: %s id %d zero or repeated" % (what, it[1]))
            d[it[1]] = it
        return d

    mappings, locations, functions = by_id(p[3], "mapping"), by_id(p[4], "location"), by_id(p[5], "function")
    for m in mappings.values():
        s(m[5], "mapping filename")
        check(m[7] == 1, "pprof: mapping %d: has_functions is not set" % m[1])
    for fn in functions.values():
        for k in (2, 3, 4):
            s(fn[k], "function")
    names = {}
    for loc in locations.values():
        check(loc[2] == 0 or loc[2] in mappings, "pprof: location %d: mapping %d" % (loc[1], loc[2]))
        if not check(len(loc[4]) == 1, "pprof: location %d has %d lines" % (loc[1], len(loc[4]))):
            continue
        line = loc[4][0]
        if not check(line[1] in functions, "pprof: location %d: function %d" % (loc[1], line[1])):
            continue
        fn = functions[line[1]]
        name, file = s(fn[2], "name"), s(fn[4], "filename")
        check(fn[3] == fn[2], "pprof: function %s: system_name differs" % name)
        if not loc[2] and file:	# an interpreter's frame: py-spy's name
            name = "%s (%s:%d)" % (name, file, line[2]) if line[2] else "%s (%s)" % (name, file)
        names[loc[1]] = name
    stacks = collections.defaultdict(collections.Counter)
    thread_key = st.index("thread") if "thread" in st else -1
    for smp in p[2]:
        check(len(smp[2]) == len(sample_types), "pprof: a sample has %d values" % len(smp[2]))
        check(all(i in names for i in smp[1]), "pprof: a sample's location is undefined")
        labels = {l[1]: s(l[2], "label") for l in smp[3]}
        for l in smp[3]:
            s(l[1], "label key")
        thread = labels.get(thread_key, "<no thread label>")
        stack = tuple(names.get(i, "<bad>") for i in reversed(smp[1]))
        stacks[thread][stack] += smp[2][0] if smp[2] else 0
        if len(smp[2]) == 2 and p[12]:
            check(smp[2][1] == smp[2][0] * p[12], "pprof: cpu value is not count x period")
    check(p[11] is not None and (s(p[11][1], "period_type"), s(p[11][2], "period_type")) ==
          ("cpu", "nanoseconds"), "pprof: period_type is not (cpu, nanoseconds)")
    check(sample_types[:1] == [("samples", "count")], "pprof: sample_type %r" % sample_types)
    return p, st, stacks, sample_types, mappings, locations, functions


# ---- speedscope ----

def read_speedscope(path):
    """The file and its stacks: {profile name: Counter(outermost-first
    names)}, and per profile the (stack, weight) sequence."""
    with open(path, encoding="utf-8") as f:	# strict: the file must be UTF-8
        doc = json.load(f, parse_constant=lambda c: problems.append("speedscope: " + c))
    check(doc.get("$schema") == "https://www.speedscope.app/file-format-schema.json",
          "speedscope: $schema")
    check(doc.get("activeProfileIndex") == 0, "speedscope: activeProfileIndex")
    check(str(doc.get("exporter", "")).startswith("spyglass "), "speedscope: exporter")
    check(isinstance(doc.get("name"), str), "speedscope: name")
    frames = doc["shared"]["frames"]
    for fr in frames:
        check(isinstance(fr.get("name"), str), "speedscope: a frame without a name")
        check(set(fr) <= {"name", "file", "line", "col"}, "speedscope: frame keys %r" % sorted(fr))
    check(len({json.dumps(fr, sort_keys=True) for fr in frames}) == len(frames),
          "speedscope: repeated frames")
    stacks, order = collections.defaultdict(collections.Counter), {}
    for prof in doc["profiles"]:
        check(prof.get("type") == "sampled" and prof.get("unit") == "none",
              "speedscope: profile type or unit")
        samples, weights = prof["samples"], prof["weights"]
        check(len(samples) == len(weights), "speedscope: samples and weights differ in length")
        check(prof["startValue"] == 0 and prof["endValue"] == sum(weights),
              "speedscope: startValue/endValue")
        seq = []
        for smp, w in zip(samples, weights):
            if not check(all(isinstance(i, int) and 0 <= i < len(frames) for i in smp),
                         "speedscope: frame index out of range"):
                continue
            stack = tuple(frames[i]["name"] for i in smp)
            stacks[prof["name"]][stack] += w
            seq.append((stack, w))
        order[prof["name"]] = seq
    return doc, frames, stacks, order


# ---- the known profile ----

A = ("main", "compute")
B = ("main", "compute", "libfoo.so+0x1234")
P = ("main", "_PyEval_EvalFrameDefault", "<module> (app.py:1)", "handle (app.py:7)")
W = ("main", "ns;fn", 'odd"q\\\x02\ufffd\u00e9 (o.py:2)')
Z = ("main", "zeek_init (test.zeek:3)")
WEIRD = 'we;ird "q"\x01\ufffd (101)'
KNOWN_ORDER = {
    "main (100)": [(A, 2), (B, 1), (A, 1), (P, 2)],
    "102": [(Z, 3)],
    WEIRD: [(A, 1), (W, 1), (A, 1)],
}
PERIOD = 1000000


def counts(seq):
    c = collections.Counter()
    for stack, w in seq:
        c[stack] += w
    return c


def check_known(ss, pp):
    doc, frames, ss_stacks, order = ss
    check(list(order) == list(KNOWN_ORDER), "speedscope: profiles %r" % list(order))
    for name, seq in KNOWN_ORDER.items():
        check(order.get(name) == seq, "speedscope: %r: samples %r" % (name, order.get(name)))
    by_name = {fr["name"]: fr for fr in frames}
    want = {"compute": ("/src/a.c", 10), "handle (app.py:7)": ("app.py", 7),
            "libfoo.so+0x1234": (None, None), "_PyEval_EvalFrameDefault": (None, None),
            "zeek_init (test.zeek:3)": ("test.zeek", 3)}
    for name, (file, line) in want.items():
        fr = by_name.get(name, {})
        check((fr.get("file"), fr.get("line")) == (file, line),
              "speedscope: frame %r: %r" % (name, fr))
    check(len(frames) == 9, "speedscope: %d frames, not 9" % len(frames))

    p, st, pp_stacks, sample_types, mappings, locations, functions = pp
    for name, seq in KNOWN_ORDER.items():
        check(pp_stacks.get(name) == counts(seq),
              "pprof: %r: %r" % (name, pp_stacks.get(name)))
    check(set(pp_stacks) == set(KNOWN_ORDER), "pprof: threads %r" % sorted(pp_stacks))
    check(sample_types == [("samples", "count"), ("cpu", "nanoseconds")],
          "pprof: sample_type %r" % sample_types)
    check(p[12] == PERIOD and p[10] == 5000 + PERIOD, "pprof: period %d, duration %d" % (p[12], p[10]))
    check(abs(p[9] / 1e9 - time.time()) < 86400, "pprof: time_nanos %d is not now" % p[9])
    maps = {st[m[5]]: m for m in mappings.values()}
    check(sorted(maps) == ["/usr/bin/app", "/usr/bin/python3.11", "/usr/lib/libfoo.so"],
          "pprof: mappings %r" % sorted(maps))
    foo = [l for l in locations.values() if l[3] == 0x7F0000001234]
    check(len(foo) == 1 and foo[0][2] == maps["/usr/lib/libfoo.so"][1] and
          maps["/usr/lib/libfoo.so"][2] == 0x7F0000000000, "pprof: libfoo's location")
    fns = {(st[f[2]], st[f[4]]): f for f in functions.values()}
    check(len(fns) == len(functions) == 9, "pprof: functions %r" % sorted(fns))
    lines = {st[functions[l[4][0][1]][2]]: l[4][0][2] for l in locations.values()}
    check(lines.get("compute") == 10 and lines.get("handle") == 7 and lines.get("main") == 50,
          "pprof: lines %r" % lines)
    check(("handle", "app.py") in fns and ("compute", "/src/a.c") in fns and
          ("zeek_init", "test.zeek") in fns, "pprof: function files")


def check_totals(ss, pp, want):
    _, _, ss_stacks, _ = ss
    _, _, pp_stacks, _, _, _, _ = pp
    for what, stacks in (("speedscope", ss_stacks), ("pprof", pp_stacks)):
        allstacks = collections.Counter()
        for c in stacks.values():
            allstacks.update(c)
        got = {"samples": sum(allstacks.values()), "threads": len(stacks),
               "stacks": len(allstacks), "depth": max(map(len, allstacks), default=0)}
        check(got == want, "%s: %r, not %r" % (what, got, want))
    check(dict(ss_stacks) == dict(pp_stacks), "speedscope and pprof hold different stacks")


FOLDED_LINE = re.compile(r"^([^;\n]+(?:;[^;\n]+)*) ([1-9][0-9]*)$")


def read_folded(path):
    """{(): Counter(outermost-first names)}; every line must match."""
    stacks = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FOLDED_LINE.match(line.rstrip("\n"))
            if check(m, "folded: line %d does not match 'frame;frame;... count': %r" % (n, line[:200])):
                stacks[tuple(m.group(1).split(";"))] += int(m.group(2))
    return {"all": stacks}


def short(name):
    """A frame's function: "hot (f.py:3)" -> "hot"."""
    return name.split(" (", 1)[0]


def shares(fmt, path, hot, cold):
    leaves = collections.Counter()
    if fmt == "folded":
        stacks = read_folded(path)
    elif fmt == "speedscope":
        doc, frames, stacks, _ = read_speedscope(path)
        for prof in doc["profiles"]:
            for smp, w in zip(prof["samples"], prof["weights"]):
                if smp and short(frames[smp[-1]]["name"]) == hot:
                    fr = frames[smp[-1]]
                    leaves[(short(fr["name"]), fr.get("file"), fr.get("line"))] += w
    else:
        p, st, stacks, _, _, locations, functions = read_pprof(path)
        for smp in p[2]:
            if not smp[1] or smp[1][0] not in locations:
                continue
            line = locations[smp[1][0]][4][0]
            fn = functions.get(line[1])
            if fn and st[fn[2]] == hot:
                leaves[(hot, st[fn[4]], line[2])] += smp[2][0]
    total = collections.Counter()
    for c in stacks.values():
        total.update(c)
    n_hot = sum(w for s, w in total.items() if any(short(f) == hot for f in s))
    n_cold = sum(w for s, w in total.items() if any(short(f) == cold for f in s))
    both = n_hot + n_cold
    leaf = leaves.most_common(1)[0][0] if leaves else None
    print(json.dumps({"samples": sum(total.values()), "threads": sorted(stacks),
                      "per_thread": {t: sum(c.values()) for t, c in stacks.items()},
                      "hot": round(100.0 * n_hot / both, 1) if both else None,
                      "cold": round(100.0 * n_cold / both, 1) if both else None,
                      "depth": max(map(len, total), default=0),
                      "leaf": leaf}))


def main(argv):
    if argv[:1] == ["shares"] and len(argv) == 5:
        try:
            shares(*argv[1:])
        except (ValueError, KeyError, IndexError, OSError) as e:
            problems.append("%s: cannot read: %s" % (argv[2], e))
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    want = {}
    while argv and argv[0].startswith("--"):
        want[argv[0][2:]] = int(argv[1])
        argv = argv[2:]
    known = argv[:1] == ["known"]
    if known:
        argv = argv[1:]
    if len(argv) != 2 or (not known and len(want) != 4):
        sys.exit(__doc__)
    ss, pp = read_speedscope(argv[0]), read_pprof(argv[1])
    if known:
        check_known(ss, pp)
        check(dict(ss[2]) == dict(pp[2]), "speedscope and pprof hold different stacks")
    else:
        check_totals(ss, pp, want)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
