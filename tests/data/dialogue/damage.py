#!/usr/bin/env python3
"""Make the damaged copies of annotated files, as text found online is:
quotation marks (" and ' alike, opening or closing, outer or inner)
removed or doubled at random, one mark in 30 (the nearest whole number of
each file's marks, drawn without replacement, so that luck does not make
a copy much more or less damaged), half of them removed, half doubled.

The annotations stay: {SPEAKER} right after where the opening mark was (after
both marks when it is doubled), and {/} where each annotated quotation ends,
before where its closing mark was, so that score.py --spans knows the
quotation's characters though its marks no longer say them.

usage: damage.py CLEAN.ann...   writes zhd_NAME.ann beside each zh_NAME.ann
The seed is fixed (the file's name): the same files give the same copies.
The clean files have straight marks, " outside and ' inside."""
import os, random, re, sys

RATE = 30


def damage(text, rng):
    n = len(re.findall(r"[\"']", re.sub(r"\{[^}]*\}", "", text)))
    picked = rng.sample(range(n), round(n / RATE))
    removed = set(picked[:len(picked) // 2])
    doubled = set(picked[len(picked) // 2:])
    out, counts = [], {"marks": 0, "removed": 0, "doubled": 0}
    depth = 0  # 1 inside an annotated quotation
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":  # an annotation: kept as it is
            j = text.index("}", i)
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if c in "\"'":
            if c == '"':
                opening = text.startswith("{", i + 1)
                if not opening and depth:
                    out.append("{/}")  # the end, before its closing mark
                depth = 1 if opening else 0
            if counts["marks"] in removed:
                counts["removed"] += 1
                c = ""
            elif counts["marks"] in doubled:
                counts["doubled"] += 1
                c = c + c
            counts["marks"] += 1
        out.append(c)
        i += 1
    return "".join(out), counts


def main():
    for path in sys.argv[1:]:
        name = os.path.basename(path)
        if not re.match(r"zh_.*\.ann$", name):
            sys.exit(f"{path}: not a zh_*.ann file")
        text = open(path, encoding="utf-8").read()
        bad = [m.start() for m in re.finditer(r'"\{', text)]
        if text.count('"') != 2 * len(bad):
            sys.exit(f"{path}: {text.count(chr(34))} straight double marks for {len(bad)} quotations")
        dam, counts = damage(text, random.Random(name))
        dest = os.path.join(os.path.dirname(path), "zhd_" + name[3:])
        with open(dest, "w", encoding="utf-8") as f:
            f.write(dam)
        print(f"{dest}: {len(bad)} quotations, {counts['marks']} marks, "
              f"{counts['removed']} removed, {counts['doubled']} doubled")


if __name__ == "__main__":
    main()
