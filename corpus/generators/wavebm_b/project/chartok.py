def build_vocab(text):
    return {c: i for i, c in enumerate(sorted(set(text)))}


def encode(text, vocab):
    return [vocab[c] for c in text]
