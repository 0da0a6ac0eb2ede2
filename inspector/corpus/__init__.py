"""Reading a corpus: a folder, chosen files or uploads become ``Document`` values.

``listing`` finds a corpus's files (a folder walked, or a list of paths), ``load`` reads them
into the ``Corpus`` (a bad file is skipped with its reason, the rest loads); ``read`` turns one
file's bytes into a document: decoding, newlines, front matter and title, in the article's
``seed`` way or the careful ``markdown`` way; ``convert`` makes markdown of PDF, DOCX, PPTX,
XLSX, HTML and EPUB files (pages kept) and ``conversions`` keeps what it made between runs;
``sample`` names the corpus that ships inside the package.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "listing": ["Listing", "MARKDOWN_SUFFIXES", "SkippedFile", "list_corpus", "list_files", "read_listing"],
    "load": ["Corpus", "Fingerprint", "Reading", "load_corpus", "load_files", "load_listing", "load_objects",
             "load_uploads"],
    "read": ["read_text"],
    "convert": ["CONVERTED_SUFFIXES", "CONVERTERS", "Converted", "converter_version", "to_markdown"],
    "conversions": ["CONVERSIONS", "ConversionCache"],
    "sample": ["GOLDEN_PARAPHRASE", "GOLDEN_QUESTIONS", "SAMPLE_CORPUS"],
})
