#!/usr/bin/env python3
"""frequent-polyphones.py - the most frequent polyphonic characters, and
their readings in modern use.

Counts, from the open data committed under data/:

  frequency   each Han character's frequency in running text, from jieba's
              dictionary (data/jieba/dict.txt, jieba 0.42.1: a published
              list of word frequencies counted over a large corpus of
              modern text): the sum, over the words containing the
              character, of the word's frequency times the times it holds
              the character.  The text of seeds/ (two chapters of a
              historical novel) is too small to rank by (some 8,000
              characters); it is counted too, and printed beside, as a
              check that the ranking suits novels.
  readings    the readings of each character in the words of the phrase
              lists (data/pinyin/phrase-pinyin.txt and
              phrase-pinyin-cedict.txt, with data/lexicon-fixes.txt first),
              each word weighing its jieba frequency (a word jieba does not
              have weighs 1); plus the readings of data/pinyin/char-pinyin.txt.

A reading is in modern use when the words that read it make up at least
1% of the character's weighted occurrences in the phrase-list words
(--min-share), or at least 500 of jieba's count (--min-count), or it is the
reading of the character as a word of its own where
that word is frequent (the READING_ALONE table below, from 现代汉语词典:
得 děi "must", 还 huán "give back", 了 liǎo ... words the phrase lists
have as single characters only, so that their share in words understates
them).  Readings below the share are archaic or only in rare words (和 hú
in mahjong, 那 nā as a surname, 说 yuè for 悦 in classical text); and the
readings of the DROP table, only in one rare word or in place names (化 huā
of 叫化子, 六 lù of 六安), are dropped, each checked against 现代汉语词典.  A
character is polyphonic when two or more readings are in use.  The
readings are only those char-pinyin.txt gives the character.

Tones: 一 and 不 change tone by the tone after them (sandhi), which is not a
reading of their own: their tone variants are merged (一 yī, 不 bù).  A
neutral tone in a word (东西 dōng·xi, 先生 xiān·sheng) is a property of
the word, not a reading of the character: it is merged into the character's
full-tone reading of the same syllable.  The neutral tone counts as a
reading of its own only for the characters whose neutral reading
char-pinyin.txt lists as such (的 de, 了 le, 着 zhe, 么 me ...): the
dictionary's particles.

Writes data/frequent-polyphones.tsv: char, frequency rank among all
characters, rank among the polyphones, jieba count, seeds/ count, and the
readings in use, most used first, each with its share in percent.

Usage: tools/frequent-polyphones.py [--top 150] [--out FILE] [--min-share 1.0]
"""

import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

spec = importlib.util.spec_from_file_location("build_lexicon",
                                              os.path.join(HERE, "build-lexicon.py"))
bl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bl)

# Readings of a character as a word of its own, frequent in modern text (现代
# 汉语词典 gives each as an entry in current use), that the phrase lists'
# words under-represent because the character reads so mostly alone.
READING_ALONE = {
    "得": ["dei3"],          # 我得走了
    "还": ["huan2"],         # 还我钱
    "了": ["liao3"],         # 受不了, 了却
    "着": ["zhao2", "zhao1"],  # 睡着了; 这一着
    "地": ["de5"],           # 慢慢地
    "只": ["zhi1"],          # 一只鸡
    "都": ["dou1"],          # 都来了
    "便": ["pian2"],         # 便宜 (a word, but its share is split by 便)
    "种": ["zhong4"],        # 种树
    "数": ["shu3"],          # 数钱
    "空": ["kong4"],         # 有空
    "少": ["shao4"],         # 少年
    "倒": ["dao3"],          # 倒下
    "为": ["wei4"],          # 为了
    "冲": ["chong4"],        # 冲着他, 冲我来
    "折": ["she2"],          # 折本, 腿摔折了
    "强": ["jiang4"],        # 倔强 (a frequent word in novels, 298 in jieba)
}

# Readings the thresholds admit that are only in a rare word or in place
# names (现代汉语词典 marks them so), dropped.
DROP = {
    "化": ["hua1"],          # 叫化子 only
    "六": ["lu4"],           # the place names 六安, 六合 only
    "谁": ["shui2"],         # a free variant of shéi, the same word
    "咱": ["za2"],           # 咱家 zájiā, early vernacular (〈方〉)
    "骨": ["gu2"],           # 骨头 gú·tou: an old reading; 现汉 gǔ·tou
    "跑": ["pao2"],          # 虎跑泉, of animals pawing: rare
    "寻": ["xin2"],          # 寻思 xín·si 〈方〉; the standard is xún·si
    "岗": ["gang1"],         # a variant of 冈 (山冈)
    "拜": ["bai2"],          # 拜拜 "bye-bye" only
    "隆": ["long1"],         # 黑咕隆咚 only
    "抢": ["qiang1"],        # 呼天抢地 only
    "摩": ["ma1"],           # 摩挲 only
    "谷": ["yu4"],           # 吐谷浑 (a historical people) only
    "番": ["pan1"],          # the place name 番禺 only
    "堡": ["pu4"],           # place names (十里堡) only
    "氏": ["zhi1"],          # 月氏, 阏氏 (historical names) only
}

# 一 and 不: their tones change by the tone after them (sandhi, applied at
# run time); one reading each.
NOT_A_READING = {
    "一": None, "不": None,
}


def load(args):
    chars = bl.load_chars(os.path.join(args.data, "pinyin", "char-pinyin.txt"))
    words, fixes = {}, {}
    bl.load_fixes(os.path.join(args.data, "lexicon-fixes.txt"), fixes)
    bl.FIXED.update(fixes)
    bl.load_phrases(os.path.join(args.data, "pinyin", "phrase-pinyin.txt"), words)
    bl.load_phrases(os.path.join(args.data, "pinyin", "phrase-pinyin-cedict.txt"), words,
                    neutral_from=True)
    # The fixes come first, but for the syllables they leave open (大夫 * *):
    # those the phrase lists' reading counts, whatever the sense.
    for w, syls in fixes.items():
        old = words.get(w, [None] * len(w))
        words[w] = [o if s is None else s for o, s in zip(old, syls)]
    freq = bl.load_jieba(os.path.join(args.data, "jieba", "dict.txt"))
    return chars, words, freq


def char_counts(freq):
    count = {}
    for w, n in freq.items():
        for c in w:
            if bl.is_han(c) and ord(c) <= 0xFFFF:
                count[c] = count.get(c, 0) + n
    return count


def seed_counts(paths):
    count = {}
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for c in text:
            if bl.is_han(c):
                count[c] = count.get(c, 0) + 1
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "data"))
    ap.add_argument("--top", type=int, default=150)
    ap.add_argument("--min-share", type=float, default=1.0,
                    help="a reading's least share of the words, in percent")
    ap.add_argument("--min-count", type=int, default=500,
                    help="or the least jieba count of the words that read it")
    ap.add_argument("--out", default=os.path.join(ROOT, "data", "frequent-polyphones.tsv"))
    ap.add_argument("--show", type=int, default=0,
                    help="print the readings of the N most frequent characters, all shares")
    args = ap.parse_args()

    chars, words, freq = load(args)
    count = char_counts(freq)
    seeds_dir = os.path.join(ROOT, "seeds")
    seeds = seed_counts(sorted(os.path.join(seeds_dir, f) for f in os.listdir(seeds_dir)
                               if f.endswith(".txt")))

    # The readings of every character in the words, weighted.
    weight = {}
    for w, syls in words.items():
        n = freq.get(w, 1)
        for c, s in zip(w, syls):
            if s is None:
                continue
            d = weight.setdefault(c, {})
            d[s] = d.get(s, 0) + n

    ranked = sorted(count, key=lambda c: (-count[c], c))
    rank = {c: i + 1 for i, c in enumerate(ranked)}

    def readings(c):
        listed = chars.get(c, [])
        if c in NOT_A_READING:
            return [], {}
        toneless = {s for s in listed if s.endswith("5") and c in NEUTRAL_ENTRY}
        w = dict(weight.get(c, {}))
        # Merge neutral tones into the full tone of the same syllable,
        # unless the character has a neutral reading of its own.
        for s in list(w):
            if s.endswith("5") and s not in toneless:
                full = [t for t in sorted(w, key=lambda t: -w[t])
                        if t[:-1] == s[:-1] and not t.endswith("5")]
                full = full or [t for t in listed if t[:-1] == s[:-1] and t != s]
                if full:
                    w[full[0]] = w.get(full[0], 0) + w.pop(s)
        total = sum(w.values()) or 1
        share = {s: 100.0 * n / total for s, n in w.items()}
        used = [s for s in sorted(w, key=lambda t: (-w[t], t))
                if (share[s] >= args.min_share or w[s] >= args.min_count)
                and (s in listed or not listed)]
        for s in READING_ALONE.get(c, []):
            if s not in used:
                used.append(s)
        # A particle's neutral reading, which no word may have (吗 ma5),
        # comes first: it is the character alone.
        if listed and listed[0] in toneless and listed[0] not in used:
            used.insert(0, listed[0])
        used = [s for s in used if s not in DROP.get(c, ())]
        return used, share

    if args.show:
        for c in ranked[:args.show]:
            used, share = readings(c)
            print(c, rank[c], " ".join("%s:%.2f" % (s, share.get(s, 0))
                                       for s in sorted(share, key=lambda t: -share[t])),
                  "=>", " ".join(used))
        return

    rows = []
    for c in ranked:
        used, share = readings(c)
        if len(used) >= 2:
            rows.append((c, used, share))
        if len(rows) == args.top:
            break

    with open(args.out, "w", encoding="utf-8") as f:
        f.write("# The %d most frequent polyphonic characters, written by "
                "tools/frequent-polyphones.py (data/README.md).\n" % args.top)
        f.write("# char\trank\tpoly_rank\tjieba_count\tseeds_count\treadings (share of "
                "the phrase-list words, %)\n")
        for i, (c, used, share) in enumerate(rows, 1):
            f.write("%s\t%d\t%d\t%d\t%d\t%s\n" % (
                c, rank[c], i, count[c], seeds.get(c, 0),
                " ".join("%s(%.1f)" % (s, share.get(s, 0.0)) for s in used)))
    print("frequent-polyphones: %d characters, the last of rank %d; %s"
          % (len(rows), rank[rows[-1][0]], args.out), file=sys.stderr)


# The characters 现代汉语词典 gives a neutral-tone entry of their own
# (particles and suffixes): 的 de, 了 le, 着 zhe, 地 de, 得 de, 么 me, 子 zi,
# 头 tou, 们 men, 吗 ma, 呢 ne, 吧 ba, 啊 a, 呀 ya, 嘛 ma, 啦 la, 哪 na,
# 价 jie (整天价), 家 jie is not kept (dialect).
NEUTRAL_ENTRY = set("的了着地得么子头们吗呢吧啊呀嘛啦哪")

if __name__ == "__main__":
    main()
