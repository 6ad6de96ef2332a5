#!/usr/bin/env python3
"""Reduces Princeton WordNet 3.0 to the small lexicon gadget-core's tool search reads.

    apt-get install wordnet-base      # Debian/Ubuntu: /usr/share/wordnet
    python3 scripts/wordnet-lexicon/build.py [WORDNET_DIR]

Writes gadget-core/src/main/resources/dev/gadget/core/agent/catalog/lexicon.txt.gz (and
lexicon-LICENSE.txt, WordNet's licence, which must travel with it). A line is

    word<TAB>synonyms<TAB>hypernyms<TAB>derived forms<TAB>inflected-from

each field comma-separated words (possibly empty):
  - synonyms: the other one-word lemmas of the word's most frequent senses, whatever their part
    of speech (by their tags in SemCor, cntlist.rev: at most MAX_SENSES, down to a tenth of the
    first's count; the first sense of each part of speech when none is tagged);
  - hypernyms: for nouns and verbs, the one-word lemmas of those senses' hypernyms, two levels up
    for nouns, one for verbs;
  - derived forms: WordNet's derivationally related forms and pertainyms of the word, any sense
    ("reaction": react, "reviewer": review);
  - inflected-from: the base forms of an irregular inflection ("wrote": write), from the *.exc
    files.
A word is kept when it is common (tagged at least MIN_COUNT times in SemCor, cntlist.rev) or a word
of the tool vocabulary (the words of the 304 MCP tool definitions of gadget-core's test catalog,
catalog/mcp-tools.json: names, descriptions, parameters); a related word is kept when it is in
that vocabulary or common. Nothing here names a particular request.
"""
import gzip
import os
import re
import sys
from collections import defaultdict

MAX_SENSES = 3
MIN_COUNT = 1
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "gadget-core/src/main/resources/dev/gadget/core/agent/catalog")
WORD = re.compile(r"^[a-z][a-z0-9]+$")


def read_vocabulary():
    """The words of the test catalog's tools, split as gadget-core's Tokenizer splits them."""
    import json
    path = os.path.join(ROOT, "gadget-core/src/test/resources/catalog/mcp-tools.json")
    text = []

    def walk(schema, depth):
        if not isinstance(schema, dict) or depth > 3:
            return
        for name, p in (schema.get("properties") or {}).items():
            text.append(name)
            if isinstance(p, dict):
                text.append(str(p.get("description", "")))
                walk(p, depth + 1)
                walk(p.get("items"), depth + 1)

    with open(path) as f:
        for tool in json.load(f):
            text += [tool["server"], tool["name"], tool.get("description", "")]
            walk(tool.get("inputSchema"), 0)
    words = set()
    for t in text:
        t = re.sub(r"([a-z])([A-Z])", r"\1 \2", t)
        words.update(w.lower() for w in re.split(r"[^A-Za-z0-9]+", t))
    words = {w for w in words if WORD.match(w)}
    # and their base forms, by WordNet's own detachment rules ("reviewers": reviewer)
    for w in list(words):
        for suffix, ending in (("s", ""), ("ses", "s"), ("xes", "x"), ("ches", "ch"),
                               ("shes", "sh"), ("ies", "y"), ("es", "e"), ("es", ""),
                               ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
                               ("er", ""), ("er", "e")):
            if w.endswith(suffix) and len(w) > len(suffix) + 2:
                words.add(w[: -len(suffix)] + ending)
    return words


def read_counts(wn):
    """lemma -> its tags in SemCor; (lemma, pos, sense number) -> that sense's"""
    counts = defaultdict(int)
    senses = {}
    pos_of = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}
    with open(os.path.join(wn, "cntlist.rev")) as f:
        for line in f:
            key, number, count = line.split()
            lemma, rest = key.split("%")
            counts[lemma] += int(count)
            k = (lemma, pos_of[rest[0]], int(number))
            senses[k] = senses.get(k, 0) + int(count)
    return counts, senses


def read_data(wn, pos):
    """offset -> (lemmas, [(symbol, offset, pos, source, target)])"""
    synsets = {}
    with open(os.path.join(wn, "data." + pos)) as f:
        for line in f:
            if line.startswith("  "):
                continue
            fields = line.split(" | ")[0].split()
            offset = fields[0]
            n = int(fields[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(n)]
            at = 4 + 2 * n
            p = int(fields[at])
            pointers = []
            for i in range(p):
                sym, off, ppos, st = fields[at + 1 + 4 * i: at + 5 + 4 * i]
                pointers.append((sym, off, ppos, int(st[:2], 16), int(st[2:], 16)))
            synsets[offset] = (lemmas, pointers)
    return synsets


def read_index(wn, pos):
    """lemma -> (offsets in frequency order, tagged sense count)"""
    out = {}
    with open(os.path.join(wn, "index." + pos)) as f:
        for line in f:
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma, p_cnt = fields[0], int(fields[3])
            tagged = int(fields[5 + p_cnt])
            out[lemma] = (fields[6 + p_cnt:], tagged)
    return out


def main():
    wn = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet"
    vocabulary = read_vocabulary()
    counts, sense_counts = read_counts(wn)
    common = {w for w, c in counts.items() if c >= MIN_COUNT and WORD.match(w)}
    keep = lambda w: WORD.match(w) and (w in vocabulary or w in common)
    pos_names = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
    data = {p: read_data(wn, p) for p in ("noun", "verb", "adj", "adv")}
    syn, hyp, der, base = (defaultdict(set) for _ in range(4))

    def lemmas_up(pos, offset, levels):
        out = set()
        lemmas, pointers = data[pos][offset]
        for sym, off, ppos, _, _ in pointers:
            if sym in ("@", "@i"):
                out.update(data[pos_names[ppos]][off][0])
                if levels > 1:
                    out |= lemmas_up(pos, off, levels - 1)
        return out

    indexes = {pos: read_index(wn, pos) for pos in data}
    chosen = set()  # (lemma, pos, sense number): a word's most frequent senses, whatever their pos
    for lemma in {l for index in indexes.values() for l in index}:
        senses = [(sense_counts.get((lemma, pos, n + 1), 0), pos, n + 1)
                  for pos, index in indexes.items() if lemma in index
                  for n in range(len(index[lemma][0]))]
        top = max(c for c, _, _ in senses)
        if top == 0:  # never tagged: the first sense of each part of speech
            chosen.update((lemma, pos, 1) for _, pos, n in senses if n == 1)
        else:  # the most frequent, down to a tenth of the first's count
            senses.sort(key=lambda s: -s[0])
            chosen.update((lemma, pos, n) for c, pos, n in senses[:MAX_SENSES]
                          if c * 10 >= top)
    for pos in ("noun", "verb", "adj", "adv"):
        index = indexes[pos]
        for lemma, (offsets, tagged) in index.items():
            if not keep(lemma):
                continue
            for rank, offset in enumerate(offsets):
                lemmas, pointers = data[pos][offset]
                if (lemma, pos, rank + 1) in chosen:
                    syn[lemma].update(l for l in lemmas if l != lemma)
                    if pos in ("noun", "verb"):
                        hyp[lemma] |= lemmas_up(pos, offset, 2 if pos == "noun" else 1)
                me = lemmas.index(lemma) + 1 if lemma in lemmas else -1
                for sym, off, ppos, source, target in pointers:
                    if sym in ("+", "\\") and source == me and target > 0:
                        der[lemma].add(data[pos_names[ppos]][off][0][target - 1])
        with open(os.path.join(wn, pos + ".exc")) as f:
            for line in f:
                words = line.split()
                if len(words) >= 2 and WORD.match(words[0]) and any(keep(w) for w in words[1:]):
                    base[words[0]].update(w for w in words[1:] if w != words[0])

    all_lemmas = {l for index in indexes.values() for l in index}

    def inflection(word):
        """Whether word is a regular inflection of another lemma ("calling": call): the search
        stems it to that lemma, whose senses are the ones a request means."""
        for suffix, ending in (("s", ""), ("es", ""), ("ies", "y"), ("ing", ""), ("ing", "e"),
                               ("ed", ""), ("ed", "e")):
            if word.endswith(suffix) and word[: -len(suffix)] + ending in all_lemmas:
                return True
            if suffix in ("ing", "ed") and len(word) > len(suffix) + 2 \
                    and word[-len(suffix) - 1] == word[-len(suffix) - 2] \
                    and word[: -len(suffix) - 1] in all_lemmas:  # stopped: stop
                return True
        return False

    lines = []
    for word in sorted(set(syn) | set(hyp) | set(der) | set(base)):
        if inflection(word) and not base[word]:
            continue
        fields = []
        for table in (syn, hyp, der, base):
            fields.append(",".join(sorted(w for w in table[word] if keep(w) and w != word)))
        if any(fields):
            lines.append(word + "\t" + "\t".join(fields))
    os.makedirs(OUT, exist_ok=True)
    with gzip.GzipFile(os.path.join(OUT, "lexicon.txt.gz"), "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    with open(os.path.join(wn, "..", "doc", "wordnet-base", "copyright")) as f:
        licence = f.read().split("Files: debian/")[0]  # WordNet's part, not the packaging's
    with open(os.path.join(OUT, "lexicon-LICENSE.txt"), "w") as f:
        f.write("lexicon.txt.gz is derived from Princeton WordNet 3.0 by\n"
                "scripts/wordnet-lexicon/build.py. WordNet's copyright and licence:\n\n" + licence)
    print(len(lines), "words,", os.path.getsize(os.path.join(OUT, "lexicon.txt.gz")), "bytes")


if __name__ == "__main__":
    main()
