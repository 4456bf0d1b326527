#!/usr/bin/env python3
"""build-lexicon.py - compile the Chinese pronunciation lexicon of the zh voice.

Reads open data committed under data/ and writes voices/zh/lexicon.bin, the
compact binary form that src/zh/lexicon.c maps into memory.  The format is
documented in src/zh/lexicon.h; this script and that header change together
(bump FORMAT_VERSION when the layout changes).

Sources (each with its licence beside it):
  data/pinyin/char-pinyin.txt          readings of each character (MIT,
                                       mozillazg/pinyin-data)
  data/pinyin/phrase-pinyin.txt        readings of words (MIT,
  data/pinyin/phrase-pinyin-cedict.txt mozillazg/phrase-pinyin-data; the
                                       first wins where both have a word,
                                       but the second's neutral tones are
                                       taken: 衣服 yi1 fu5)
  data/lexicon-fixes.txt               corrections to those, checked against
                                       a dictionary; they come first
  data/jieba/dict.txt                  word frequencies (MIT, jieba 0.42.1)
  data/opencc/*.txt                    traditional <-> simplified tables
                                       (Apache-2.0, OpenCC 1.1.6, exported
                                       with opencc_dict)

What it builds:
  - the words: every word of jieba's dictionary and of the phrase lists,
    with jieba's frequency (a word only the phrase lists have gets
    PHRASE_ONLY_BOOST times the probability of its characters read as
    separate words, so that it wins over them), the reading of each
    character where the phrase lists decide it (words only in jieba get
    theirs from the phrase-list words inside them), and "open" where
    nothing does: the run-time rules decide.
  - 一 and 不 are stored with their lexical tones (yi1, bu4): the phrase
    lists mark tone sandhi in some words and not in others, and the
    run-time sandhi rules apply it the same way everywhere.
  - traditional text: a traditional character with a single simplified
    form is folded to it before lookup (後 -> 后), so one simplified entry
    serves both; a word whose traditional forms keep a character that is
    also simplified (著, 乾, 於, 瞭 ...) gets those forms as entries of
    their own (看著, 瞭解).
  - the characters: BMP Han only (the normalizer drops Han beyond the BMP),
    readings ordered most common first: the reading the words use most,
    each word counting ln(1 + freq), with the order of char-pinyin.txt
    breaking ties and ordering readings no word uses.

The output is the same on every run (no dependence on hash order), so that
`--check voices/zh/lexicon.bin` (a ctest) can tell a stale binary.

Usage: tools/build-lexicon.py [--data DIR] [--out FILE] [--stats] [--check FILE]
"""

import argparse
import math
import os
import struct
import sys
import unicodedata

FORMAT_VERSION = 1
MAGIC = b"TSLEX\0\0\0"
MAX_READINGS = 7      # per character; reading index 7 means "open"
OPEN = 7
MAX_WORD = 16         # longer words are dropped
PHRASE_ONLY_FREQ = 3  # jieba's own floor for rare words
PHRASE_ONLY_BOOST = 10
FIXED = set()         # the words of data/lexicon-fixes.txt
PAGE = 256

TONE_MARKS = {"\u0304": "1", "\u0301": "2", "\u030c": "3", "\u0300": "4"}


def die(msg):
    sys.exit("build-lexicon: " + msg)


def numbered(syl):
    """'zhōng' -> 'zhong1', 'lǜ' -> 'lv4', 'de' -> 'de5'; None if not pinyin."""
    tone = "5"
    out = []
    for ch in unicodedata.normalize("NFD", syl.strip().lower()):
        if ch in TONE_MARKS:
            tone = TONE_MARKS[ch]
        elif ch == "\u0308":          # ü
            if not out or out[-1] != "u":
                return None
            out[-1] = "v"
        elif ch == "\u0302":          # ê
            pass
        elif "a" <= ch <= "z":
            out.append(ch)
        else:
            return None
    if not out:
        return None
    return "".join(out) + tone


def is_han(ch):
    cp = ord(ch)
    return (0x3400 <= cp <= 0x4DBF or 0x4E00 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF
            or cp == 0x3007)


def load_chars(path):
    """cp -> [syllable, ...] in the file's order."""
    chars = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            code, _, readings = line.partition(":")
            cp = int(code.strip()[2:], 16)
            if cp > 0xFFFF or not is_han(chr(cp)):
                continue
            syls = []
            for r in readings.split(","):
                s = numbered(r)
                if s is None:
                    die("%s:%d: bad reading %r" % (path, lineno, r))
                if s not in syls:
                    syls.append(s)
            chars[chr(cp)] = syls
    return chars


def lexical_tones(word, syls):
    """一 and 不 with their lexical tones: sandhi is applied at run time."""
    out = list(syls)
    for i, ch in enumerate(word):
        if ch == "一" and out[i] in ("yi2", "yi4"):
            out[i] = "yi1"
        elif ch == "不" and out[i] == "bu2":
            out[i] = "bu4"
    return out


def load_phrases(path, words, neutral_from=False):
    """Add word -> [syllable, ...] to words for words not there yet.  With
    neutral_from, a word already there takes this file's neutral tones
    where the syllables are otherwise the same (CC-CEDICT marks the neutral
    tone of 衣服, 收拾 where phrase-pinyin.txt does not) -- when this file
    has one reading of the word only: 不是 is bu4 shi4 and bu2 shi5 (a
    fault), 东西 dong1 xi1 and dong1 xi5, and which is meant is not known."""
    entries = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, pinyin = line.partition(":")
            word = word.strip()
            if len(word) < 2 or len(word) > MAX_WORD:
                continue
            if not all(is_han(c) and ord(c) <= 0xFFFF for c in word):
                continue
            syls = [numbered(s) for s in pinyin.split()]
            if len(syls) != len(word) or None in syls:
                continue   # erhua written as a separate syllable, and the like
            syls = lexical_tones(word, syls)
            if syls not in entries.setdefault(word, []):
                entries[word].append(syls)
    for word, readings in entries.items():
        old = words.get(word)
        if old is None:
            words[word] = readings[0]
        elif neutral_from and len(readings) == 1 and word not in FIXED:
            words[word] = [n if n[-1] == "5" and n[:-1] == o[:-1] else o
                           for o, n in zip(old, readings[0])]


def load_fixes(path, words):
    """Corrections: word<TAB>pin1 yin1, tone numbers; they come first.  A
    syllable written * is left open: the context rules decide it (人家
    rén·jia "others" or rénjiā "a household")."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, pinyin = line.partition("\t")
            syls = pinyin.split()
            if (len(syls) != len(word) or not all(is_han(c) for c in word)
                    or not all(s == "*" or (s[:-1].isalpha() and s[-1] in "12345")
                               for s in syls)):
                die("%s:%d: expected \"word<TAB>pin1 yin1\"" % (path, lineno))
            words[word] = [None if s == "*" else s for s in syls]


def load_jieba(path):
    freq = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) < 2:
                die("%s:%d: expected \"word freq [tag]\"" % (path, lineno))
            word, n = parts[0], int(parts[1])
            if len(word) > MAX_WORD or not all(is_han(c) for c in word):
                continue
            freq[word] = freq.get(word, 0) + n
    return freq


def load_table(path):
    """OpenCC text table: key -> [value, ...]."""
    table = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, vals = line.rstrip("\n").partition("\t")
            if key and vals:
                table[key] = vals.split(" ")
    return table


class Opencc:
    """Simplified -> traditional by longest match over phrases, then
    characters, as OpenCC's s2t does; and the folding of traditional
    characters back to simplified for lookup."""

    def __init__(self, d):
        self.st_phrases = load_table(os.path.join(d, "STPhrases.txt"))
        self.st_chars = load_table(os.path.join(d, "STCharacters.txt"))
        self.ts_chars = load_table(os.path.join(d, "TSCharacters.txt"))
        self.tw = {k: v[0] for k, v in load_table(os.path.join(d, "TWVariants.txt")).items()}
        self.hk = {k: v[0] for k, v in load_table(os.path.join(d, "HKVariants.txt")).items()}
        rev = {}
        for name in ("TWVariantsRev.txt", "HKVariantsRev.txt"):
            for k, v in load_table(os.path.join(d, name)).items():
                rev.setdefault(k, v[0])
        self.maxp = max(len(k) for k in self.st_phrases)
        # Characters written in simplified text: never folded.
        simplified = set(self.st_chars)
        for vals in self.ts_chars.values():
            simplified.update(vals)
        self.fold_map = {}
        for c, vals in self.ts_chars.items():
            if c not in simplified and len(c) == 1:
                self.fold_map[c] = vals[0]
        for c, std in rev.items():
            if c in simplified or len(c) != 1 or c in self.fold_map:
                continue
            target = self.fold_map.get(std, std)
            if target != c and target in simplified:
                self.fold_map[c] = target

    def fold(self, text):
        return "".join(self.fold_map.get(c, c) for c in text)

    def s2t(self, text):
        out = []
        i = 0
        while i < len(text):
            for n in range(min(self.maxp, len(text) - i), 1, -1):
                t = self.st_phrases.get(text[i:i + n])
                if t:
                    out.append(t[0])
                    i += n
                    break
            else:
                t = self.st_chars.get(text[i])
                out.append(t[0] if t else text[i])
                i += 1
        return "".join(out)

    def variants(self, word):
        """Traditional spellings of a simplified word (standard, TW, HK)."""
        t = self.s2t(word)
        forms = {t, "".join(self.tw.get(c, c) for c in t), "".join(self.hk.get(c, c) for c in t)}
        return forms


def derive_readings(word, phrases):
    """Readings of a word no phrase list has, from the phrase-list words
    inside it: the cover by phrase words that reads the most characters,
    the fewest words breaking ties.  None where no phrase word covers."""
    n = len(word)
    best = [(0, 0, None)] * (n + 1)   # (covered, -words, back) for word[:i]
    best[0] = (0, 0, None)
    for i in range(1, n + 1):
        cand = (best[i - 1][0], best[i - 1][1], (i - 1, None))
        for j in range(max(0, i - MAX_WORD), i - 1):
            syls = phrases.get(word[j:i])
            if syls and (j, i) != (0, n):
                c = (best[j][0] + (i - j), best[j][1] - 1, (j, syls))
                if c[:2] > cand[:2]:
                    cand = c
        best[i] = cand
    out = [None] * n
    i = n
    while i > 0:
        j, syls = best[i][2]
        if syls:
            out[j:i] = syls
        i = j
    return out


def quantize(freq):
    """Frequency as a byte: 1 + 16 ln(freq), so 0 can mean "not a word"."""
    return max(1, min(255, 1 + int(round(16 * math.log(max(freq, 1))))))


def build(args):
    d = args.data
    chars = load_chars(os.path.join(d, "pinyin", "char-pinyin.txt"))
    phrases = {}
    load_fixes(os.path.join(d, "lexicon-fixes.txt"), phrases)
    FIXED.update(phrases)
    load_phrases(os.path.join(d, "pinyin", "phrase-pinyin.txt"), phrases)
    load_phrases(os.path.join(d, "pinyin", "phrase-pinyin-cedict.txt"), phrases, True)
    # A corrected word is read so inside longer entries too (阆中市), but
    # for its open syllables: 人家 is open, 大户人家 keeps rénjiā.  (Sorted:
    # the same file on every run.)
    for w, syls in phrases.items():
        for f in sorted(FIXED):
            k = w.find(f)
            if k >= 0 and w != f and w not in FIXED:
                syls[k:k + len(f)] = [o if s is None else s
                                      for o, s in zip(syls[k:k + len(f)], phrases[f])]
    jieba = load_jieba(os.path.join(d, "jieba", "dict.txt"))
    cc = Opencc(os.path.join(d, "opencc"))

    # Folded (lookup) forms: jieba has some traditional words too.
    freq = {}
    for w, n in jieba.items():
        fw = cc.fold(w)
        freq[fw] = freq.get(fw, 0) + n
    total = sum(freq.values())
    # Readings under the lookup form, the traditional spellings included:
    # jieba has some traditional words, which find their readings here.
    readings = {}
    for w, syls in phrases.items():
        readings.setdefault(cc.fold(w), syls)
    for w, syls in phrases.items():
        for t in sorted(cc.variants(w)):
            readings.setdefault(cc.fold(t), syls)
    words = {}
    for w in sorted(set(freq) | set(readings)):   # sorted: the same file on every run
        if not all(c in chars for c in w):
            continue
        if len(w) == 1:
            continue
        syls = readings.get(w) or derive_readings(w, readings)
        if w in freq:
            n = freq[w]
        else:
            # A word only the phrase lists have is there for its reading:
            # it is given PHRASE_ONLY_BOOST times the frequency its
            # characters have as separate words, so that it beats them
            # but not a word jieba knows.
            n = math.exp(sum(math.log(freq.get(c, 1)) for c in w) - (len(w) - 1) * math.log(total))
            n = max(PHRASE_ONLY_FREQ, PHRASE_ONLY_BOOST * n)
        words[w] = [n, syls]
    for w, (n, syls) in words.items():
        for c, s in zip(w, syls):
            if s is not None and s not in chars[c]:
                chars[c].append(s)    # neutral tones of suffixes and the like

    # Reading order: usage in words, each word counting ln(1 + freq).  The
    # most common reading is what a character gets where no word decides
    # (mostly in names and rare compounds), and there the readings of many
    # words say more than one frequent word: weighted by frequency, 参与
    # alone made yu4 the reading of 与, and 首都 du1 that of 都.
    use = {}
    for w, (n, syls) in words.items():
        for c, s in zip(w, syls):
            if s is not None:
                u = use.setdefault(c, {})
                u[s] = u.get(s, 0) + math.log(1 + n)
    for c, syls in chars.items():
        u = use.get(c, {})
        order = sorted(range(len(syls)), key=lambda k: (-u.get(syls[k], 0), k))
        chars[c] = [syls[k] for k in order][:MAX_READINGS]

    # Traditional spellings that folding alone does not reach (看著 for
    # 看着): read as the simplified word is, and where that is open, as its
    # simplified character is by default (著 in 看著 as 着, not as 著名's 著).
    # jieba has some of them as words of their own: their open readings
    # are filled the same way.
    for w in list(words):
        n, src = words[w]
        for t in sorted(cc.variants(w)):
            ft = cc.fold(t)
            if ft == w or not all(c in chars for c in ft):
                continue
            syls = []
            for k, (a, b) in enumerate(zip(w, ft)):
                s = src[k]
                if s is None and a != b:
                    s = chars[a][0]
                if s is not None and s not in chars[b]:
                    if len(chars[b]) < MAX_READINGS:
                        chars[b].append(s)
                    else:
                        s = None
                syls.append(s)
            if ft in words:
                old = words[ft][1]
                words[ft][1] = [o if o is not None else s for o, s in zip(old, syls)]
            else:
                words[ft] = [n, syls]

    # Traditional characters read as their folded form is read, where they
    # can be (髮 keeps only fa4).
    for c, target in cc.fold_map.items():
        if c in chars and target in chars:
            own = chars[c]
            chars[c] = [s for s in chars[target] if s in own] + \
                       [s for s in own if s not in chars[target]]

    # Single characters that are words: their frequency (read at run time).
    single = {w: n for w, n in freq.items() if len(w) == 1 and w in chars}
    return chars, words, single, total, cc


def write(path, chars, words, single, total, cc):
    syl_ids = {}
    syl_list = []

    def syl_id(s):
        if s not in syl_ids:
            syl_ids[s] = len(syl_list)
            syl_list.append(s)
        return syl_ids[s]

    order = sorted(chars, key=ord)
    index = {c: i for i, c in enumerate(order)}
    if len(order) >= 0xFFFF:
        die("too many characters")
    # Words grouped by first character, then by length, sorted by key.
    groups = {}
    for w, (n, syls) in words.items():
        groups.setdefault(w[0], {}).setdefault(len(w), []).append((w, n, syls))

    readings = []
    char_recs = []
    group_words = []     # u32 array
    word_bytes = bytearray()
    for c in order:
        roff = len(readings)
        readings.extend(syl_id(s) for s in chars[c])
        gi = 0xFFFFFFFF
        key = index[cc.fold_map[c]] if c in cc.fold_map and cc.fold_map[c] in index else index[c]
        if c in groups:
            gi = len(group_words)
            lens = sorted(groups[c])
            group_words.append(len(lens))
            for L in lens:
                ws = sorted(groups[c][L], key=lambda e: [index[x] for x in e[0][1:]])
                group_words.append(L | (len(ws) << 8))
                group_words.append(len(word_bytes))
                for w, n, syls in ws:
                    for x in w[1:]:
                        word_bytes += struct.pack("<H", index[x])
                    word_bytes.append(quantize(n))
                    bits = 0
                    for k, (x, s) in enumerate(zip(w, syls)):
                        r = OPEN if s is None or s not in chars[x] else chars[x].index(s)
                        bits |= r << (3 * k)
                    word_bytes += bits.to_bytes((3 * L + 7) // 8, "little")
            # The second characters of the group's words, with the lengths
            # of the words each starts: a lookup searches only those.
            pairs = {}
            for L in lens:
                for w, n, syls in groups[c][L]:
                    pairs[index[w[1]]] = pairs.get(index[w[1]], 0) | 1 << (L - 1)
            group_words.append(len(pairs))
            for k2 in sorted(pairs):
                group_words.append(k2 | pairs[k2] << 16)
        fq = quantize(single[c]) if c in single else 0
        char_recs.append(struct.pack("<IIHBB", roff | (len(chars[c]) << 24), gi, key, fq, 0))
        if roff >= 1 << 24:
            die("readings table too large")

    # Page table: code point -> character index + 1.
    npages = (ord(order[-1]) >> 8) + 1
    page_dir = [0] * npages
    pages = []
    for c in order:
        p = ord(c) >> 8
        if not page_dir[p]:
            pages.append([0] * PAGE)
            page_dir[p] = len(pages)
        pages[page_dir[p] - 1][ord(c) & 0xFF] = index[c] + 1

    syl_str = bytearray()
    syl_off = []
    for s in syl_list:
        syl_off.append(len(syl_str))
        syl_str += s.encode("ascii")
    syl_off.append(len(syl_str))

    sections = []
    sections.append(struct.pack("<%dI" % len(syl_off), *syl_off))
    sections.append(bytes(syl_str))
    sections.append(struct.pack("<%dH" % npages, *page_dir))
    sections.append(b"".join(struct.pack("<256H", *p) for p in pages))
    sections.append(b"".join(char_recs))
    sections.append(struct.pack("<%dH" % len(order), *(ord(c) for c in order)))
    sections.append(struct.pack("<%dH" % len(readings), *readings))
    sections.append(struct.pack("<%dI" % len(group_words), *group_words))
    sections.append(bytes(word_bytes))
    HEADER = 76
    offs = []
    pos = HEADER
    body = bytearray()
    for s in sections:
        pad = (-pos) % 4
        body += b"\0" * pad
        pos += pad
        offs.append(pos)
        body += s
        pos += len(s)
    max_len = max(len(w) for w in words)
    header = MAGIC + struct.pack("<17I", FORMAT_VERSION, pos, len(syl_list), len(order),
                                 npages, len(words), total, max_len, *offs)
    assert len(header) == HEADER
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header)
        f.write(body)
    os.replace(tmp, path)
    return pos, len(syl_list)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(root, "data"))
    ap.add_argument("--out", default=os.path.join(root, "voices", "zh", "lexicon.bin"))
    ap.add_argument("--stats", action="store_true", help="print what was built")
    ap.add_argument("--check", metavar="FILE",
                    help="fail unless what is built is byte for byte FILE (the committed one)")
    args = ap.parse_args()
    chars, words, single, total, cc = build(args)
    size, nsyl = write(args.out, chars, words, single, total, cc)
    if args.stats:
        print("%d characters, %d words, %d syllables, %d folded, %d bytes"
              % (len(chars), len(words), nsyl, len(cc.fold_map), size))
    if args.check:
        with open(args.out, "rb") as a, open(args.check, "rb") as b:
            if a.read() != b.read():
                die("%s is not what data/ and this script make; run tools/build-lexicon.py "
                    "and commit the result" % args.check)


if __name__ == "__main__":
    main()
