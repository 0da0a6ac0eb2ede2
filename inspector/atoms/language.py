"""A document's language, and the script facts sentences and figure sentences depend on.

The language is guessed once per document from a sample of its prose (``SAMPLE_CHARS``): by
script where the script decides it (kana is Japanese, Hangul Korean, Han without kana
Chinese), otherwise by py3langid, whose model ships inside its wheel (offline, about 0.3 ms
per sample; English, German, French and Spanish, most corpora's languages, by their
commonest words without the model).
Codes are ISO 639-1 (``en``, ``de``, ``zh``); ``und`` when a document has too little prose
to tell.

Chinese and Japanese write no spaces between words, so a sentence's length in words is
counted as its space-separated runs plus one word per ``CJK_CHARS_PER_WORD`` Han or kana
characters (their words average one and a half to two characters); on text without Han or
kana that is the whitespace word count, as before.
"""

from __future__ import annotations

import re

#: Characters of prose the language is guessed from (more costs time and changes no answer
#: on the documents tried: 600 characters already hold five to ten sentences).
SAMPLE_CHARS = 600
#: Fewer letters than this in the sample: the language is ``und``.
MIN_LETTERS = 20
UNDETERMINED = "und"
#: Han or kana characters that count as one word in a sentence's length.
CJK_CHARS_PER_WORD = 2

#: Code point ranges of Han (with its extensions and compatibility ideographs), of kana
#: (hiragana, katakana, their phonetic extensions and half-width forms) and of Hangul (with its
#: jamo, extensions and half-width forms). Han and kana are written without spaces between words.
HAN = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3134F))
KANA = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F))
HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF),
          (0xFFA0, 0xFFDC))


def character_class(ranges) -> str:
    """The inside of a regex character class matching every code point of ``ranges``."""
    return "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges)


SPACELESS = character_class(HAN + KANA)
# Their punctuation: CJK symbols (、。「」), full-width punctuation (，！？：), not full-width
# letters or digits.
SPACELESS_PUNCTUATION = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_SPACELESS_CHAR = re.compile(f"[{SPACELESS}]")
_WORD_RUN = re.compile(rf"[^\s{SPACELESS}{SPACELESS_PUNCTUATION}]+")
_KANA = re.compile(f"[{character_class(KANA)}]")
_HAN = re.compile(f"[{character_class(HAN)}]")
_HANGUL = re.compile(f"[{character_class(HANGUL)}]")
_LETTER = re.compile(r"[^\W\d_]")
_NOT_PROSE = re.compile(r"<[^<>\n]*>|`[^`\n]*`|\w+://\S+")
# py3langid's names that this project reads otherwise: Wu and Cantonese for Chinese (on a short
# sample of Han text the model cannot tell them from Mandarin, and they are split and indexed
# alike), "no linguistic content" for undetermined.
_MODEL_NAMES = {"wuu": "zh", "yue": "zh", "zxx": UNDETERMINED}
_WORD = re.compile(r"[^\W\d_]+")
#: Each language's commonest words that the others hardly write ("la", "de", "que" and "en" are
#: in several, so in none). When one language's make a twelfth of a sample's words, twice any
#: other's share, the sample is that language without asking the model: most corpora are in
#: one of these, and the model costs 0.4 s and 90 MB in every process that loads it. On the
#: sample corpus the English words make 12% to 25% of every English page's sample and the
#: German ones 24% and 25% of the German pages'.
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset({"the", "and", "of", "to", "that", "for", "with", "this", "are", "from", "which", "by"}),
    "de": frozenset({"der", "die", "und", "das", "ist", "nicht", "mit", "den", "dem", "ein", "eine", "für", "auf",
                     "sich", "wird", "werden", "auch", "oder", "wir", "zu", "von", "im", "bei"}),
    "fr": frozenset({"les", "et", "est", "une", "du", "des", "pour", "dans", "qui", "pas", "sur", "avec", "sont",
                     "aux", "cette", "nous", "vous", "le"}),
    "es": frozenset({"el", "los", "las", "y", "del", "una", "por", "con", "para", "al", "como", "más", "su",
                     "sus", "está", "lo"}),
}
FUNCTION_SHARE = 1 / 12


def word_count(text: str, start: int = 0, end: int | None = None) -> float:
    """Words of ``text[start:end]``: space-separated runs, plus a word per two Han or kana characters."""
    part = text[start:end]
    words = len(_WORD_RUN.findall(part))
    if part.isascii():
        return words
    return words + len(_SPACELESS_CHAR.findall(part)) / CJK_CHARS_PER_WORD


def function_shares(sample: str) -> dict[str, float]:
    """Per language of ``FUNCTION_WORDS``, the share of ``sample``'s words that are its commonest."""
    words = _WORD.findall(sample.lower())
    if not words:
        return dict.fromkeys(FUNCTION_WORDS, 0.0)
    return {language: sum(w in common for w in words) / len(words) for language, common in FUNCTION_WORDS.items()}


def detect_language(sample: str) -> str:
    """The ISO 639-1 code of the language ``sample`` is written in, or ``und``."""
    letters = len(_LETTER.findall(sample))
    if letters < MIN_LETTERS:
        return UNDETERMINED
    if not sample.isascii():
        hangul = len(_HANGUL.findall(sample))
        kana = len(_KANA.findall(sample))
        han = len(_HAN.findall(sample))
        # A script that holds most of the letters decides: no model is surer than that.
        if hangul * 2 > letters:
            return "ko"
        if (kana + han) * 2 > letters:
            return "ja" if kana * 10 > kana + han else "zh"
    (best, share), (_, runner_up) = sorted(function_shares(sample).items(), key=lambda item: -item[1])[:2]
    if share >= FUNCTION_SHARE and share >= 2 * runner_up:
        return best
    # py3langid loads its model on first use (half a second), so importing stays cheap.
    from py3langid import classify

    found = classify(sample)[0]
    return _MODEL_NAMES.get(found, found)


def prose_sample(parts) -> str:
    """The first ``SAMPLE_CHARS`` characters of an iterable of prose strings, joined by spaces,
    without their HTML tags, URLs and inline code (words of no language)."""
    taken: list[str] = []
    size = 0
    for part in parts:
        if "<" in part or "`" in part or "://" in part:
            part = _NOT_PROSE.sub(" ", part)
        taken.append(part[: SAMPLE_CHARS - size])
        size += len(taken[-1]) + 1
        if size >= SAMPLE_CHARS:
            break
    return " ".join(taken)
