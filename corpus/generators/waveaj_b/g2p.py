"""Toy letter-to-sound front end: reads one transcript per line on stdin, writes its phonemes (words separated by
'|') on stdout, one line per input line."""
import sys

RULES = [("shi", "SH IY"), ("chu", "CH UW"), ("thi", "TH IH"), ("a", "AA"), ("e", "EH"), ("i", "IY"), ("o", "OW"),
         ("u", "UW"), ("k", "K"), ("t", "T"), ("m", "M"), ("r", "R"), ("b", "B"), ("l", "L"), ("s", "S"), ("n", "N"),
         ("v", "V"), ("d", "D"), ("g", "G"), ("p", "P"), ("z", "Z"), ("f", "F"), ("h", "HH"), ("y", "Y"), ("w", "W")]


def word(w):
    out, i = [], 0
    while i < len(w):
        for src, dst in RULES:
            if w.startswith(src, i):
                out.append(dst)
                i += len(src)
                break
        else:
            i += 1
    return " ".join(out)


for line in sys.stdin:
    sys.stdout.write(" | ".join(word(w) for w in line.split()) + "\n")
