#!/usr/bin/env python3
"""Score `tingshu speakers` on annotated dialogue.

An annotated file (*.ann) is a book whose every quotation has its speaker
in braces right after its opening mark: 玄德曰：“{刘备}……”.  The braces
are taken out to make the book; the speakers tingshu prints (with the cast
file beside the annotations) are compared with them, quotation by quotation.

usage: score.py [--cast FILE] [--spans] [--nearest] TINGSHU FLOOR FILE.ann...
  FLOOR      the least percent right; exits 1 below it
  --cast     the cast file (default: cast.txt beside this script)
  --spans    match by place, not by order: each annotated quotation is the
             text from its braces to its end ({/} where the file marks it,
             as the damaged copies do, else its closing mark); it is right
             when most of its characters (marks and spaces left out) are
             inside quotations tingshu attributes to its speaker.  A
             quotation tingshu does not find is wrong, unless it is `-`
             (no one's speech: read by the narrator either way).  For text
             whose marks do not pair up (damaged copies, made by damage.py).
  --nearest  instead of tingshu, the plain rule "the nearest name of the
             cast before the quotation" (in the narration), scored as
             --spans: the baseline issue 36 compares with
With --spans it also prints how many characters of the narration tingshu
gives a person (read in a character's voice).
VERBOSE=1 lists the misses (FILE:LINE)."""
import os, re, subprocess, sys, tempfile

OPENERS = {"“": "”", "「": "」", "『": "』", "‘": "’", '"': '"', "'": "'"}
MARKS = set(OPENERS) | set(OPENERS.values())


def read_cast(path):
    """[(name, person)] of the cast file, longest names first."""
    names = []
    for line in open(path, encoding="utf-8"):
        line = line.split("\t")[0].strip()
        if not line or line.startswith("#"):
            continue
        person = line.split()[0]
        names += [(n, person) for n in line.split()]
    return sorted(names, key=lambda np: -len(np[0]))


def parse(text):
    """The book (braces taken out) and its annotated quotations, each as
    [speaker, start, end, line] (end None where the file does not mark it)."""
    book, gold, open_q, line = [], [], [], 1
    pos = 0
    for m in re.finditer(r"\{([^}]*)\}", text):
        chunk = text[pos:m.start()]
        book.append(chunk)
        line += chunk.count("\n")
        pos = m.end()
        at = sum(map(len, book))
        if m.group(1) == "/":
            open_q.pop()[2] = at
        else:
            q = [m.group(1), at, None, line]
            gold.append(q)
            if "{/}" in text:
                open_q.append(q)
    book.append(text[pos:])
    book = "".join(book)
    for q in gold:  # a clean file: the quotation ends at its closing mark
        if q[2] is None:
            close = OPENERS.get(book[q[1] - 1], "”")
            end = book.find(close, q[1])
            q[2] = end if end >= 0 else len(book)
    return book, gold


def run_tingshu(tingshu, cast, book):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "book.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(book)
        out = subprocess.run([tingshu, "speakers", "--explain", "--cast", cast, path],
                             capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def owners_from_output(book, got, name):
    """Who each character of the book is attributed to (None: narration),
    placing each printed quotation at its first occurrence after the last."""
    owner, why = [None] * len(book), [""] * len(book)
    cursor = lost = 0
    for g in got:
        at = book.find(g[2], cursor)
        if at < 0:
            lost += 1
            continue
        owner[at:at + len(g[2])] = [g[1]] * len(g[2])
        why[at:at + len(g[2])] = [g[3] if len(g) > 3 else ""] * len(g[2])
        cursor = at + len(g[2])
    if lost:
        print(f"{name}: {lost} printed quotations not found in the book")
    return owner, why


def owners_nearest(book, gold, names):
    """Each annotated quotation given the cast's name nearest before it in
    the narration (outside the annotated quotations)."""
    inside = [False] * len(book)
    for _, s, e, _ in gold:
        inside[s:e] = [True] * (e - s)
    owner, last, i = [None] * len(book), None, 0
    starts = {s: e for _, s, e, _ in gold}
    while i < len(book):
        if i in starts:
            e = starts[i]
            owner[i:e] = [last] * (e - i)
            i = e
            continue
        hit = None if inside[i] else next((np for np in names if book.startswith(np[0], i)), None)
        if hit:
            last = hit[1]
            i += len(hit[0])
        else:
            i += 1
    return owner, [""] * len(book)


def score_spans(book, gold, owner, why):
    """[(right, speaker, line, got, quotation, why)] of the annotated
    quotations."""
    res = []
    for who, s, e, line in gold:
        chars = [i for i in range(s, e) if book[i] not in MARKS and not book[i].isspace()]
        votes = {}
        for i in chars:
            votes[owner[i]] = votes.get(owner[i], 0) + 1
        good = sum(n for o, n in votes.items() if o == who or (who == "-" and o is None))
        top = max(votes, key=votes.get) if votes else None
        reason = next((why[i] for i in chars if owner[i] == top), "")
        res.append((2 * good > len(chars), who, line, top, book[s:e], reason))
    return res


def narration_voiced(book, gold, owner):
    """(characters of narration tingshu gives a person, characters of
    narration): narration read in a character's voice."""
    inside = [False] * len(book)
    for _, s, e, _ in gold:
        inside[s:e] = [True] * (e - s)
    text = [i for i in range(len(book))
            if not inside[i] and book[i] not in MARKS and not book[i].isspace()]
    return sum(owner[i] not in (None, "-", "?") for i in text), len(text)


def main():
    args, opts = [], {"--cast": None, "--spans": False, "--nearest": False}
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a == "--cast":
            opts[a] = argv.pop(0)
        elif a in opts:
            opts[a] = True
        else:
            args.append(a)
    tingshu, floor, files = args[0], float(args[1]), args[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    cast = opts["--cast"] or os.path.join(here, "cast.txt")
    right = total = named_right = named = 0
    voiced = [0, 0]
    for path in files:
        name = os.path.basename(path)
        text = open(path, encoding="utf-8").read()
        if opts["--spans"] or opts["--nearest"]:
            book, gold = parse(text)
            if opts["--nearest"]:
                owner, why = owners_nearest(book, gold, read_cast(cast))
            else:
                owner, why = owners_from_output(book, run_tingshu(tingshu, cast, book), name)
            res = score_spans(book, gold, owner, why)
            v, n = narration_voiced(book, gold, owner)
            voiced[0] += v
            voiced[1] += n
            for ok, who, line, top, quote, reason in res:
                if not ok and os.environ.get("VERBOSE"):
                    print(f"  miss: {name}:{line} {who} got {top}: {quote[:30]}  ({reason})")
            ok = sum(r[0] for r in res)
            named_right += sum(r[0] for r in res if r[1] != "-")
            named += sum(r[1] != "-" for r in res)
            n = len(res)
        else:
            gold = re.findall(r"\{([^}]*)\}", text)
            got = run_tingshu(tingshu, cast, re.sub(r"\{[^}]*\}", "", text))
            if len(got) != len(gold):
                print(f"{path}: {len(got)} quotations found, {len(gold)} annotated")
                return 1
            ok = sum(g[1] == w for g, w in zip(got, gold))
            named_right += sum(g[1] == w for g, w in zip(got, gold) if w != "-")
            named += sum(w != "-" for w in gold)
            for g, w in zip(got, gold):
                if g[1] != w and os.environ.get("VERBOSE"):
                    print(f"  miss: {w} got {g[1]}: {g[2][:30]}  ({g[3]})")
            n = len(gold)
        print(f"{name}: {ok}/{n} = {100.0 * ok / n:.1f}%")
        right += ok
        total += n
    pct = 100.0 * right / total
    print(f"all: {right}/{total} = {pct:.1f}% (floor {floor}%); "
          f"named persons: {named_right}/{named} = {100.0 * named_right / max(named, 1):.1f}%")
    if voiced[1] and not opts["--nearest"]:
        print(f"narration in a person's voice: {voiced[0]}/{voiced[1]} characters")
    return 0 if pct >= floor else 1


if __name__ == "__main__":
    sys.exit(main())
