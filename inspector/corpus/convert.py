"""PDF, DOCX, PPTX, XLSX, HTML and EPUB files as the markdown a user's pipeline would split.

``to_markdown(raw, kind)`` is the one entry: MarkItDown (MIT, no model download) converts every
type by default; Docling does when chosen and installed (``docling_converter``). Pages are kept
where the format has them:

- a PDF is converted whole, as MarkItDown does it; its pages are found with pypdfium2's text
  layer: exactly at pdfminer's form feeds when MarkItDown's text has them (they become
  newlines), else where each page's first words appear, in page order;
- a PPTX's slides start at MarkItDown's ``<!-- Slide number: N -->`` lines.

Every conversion runs in a box (``box``): a process of its own under ``limits``' memory, CPU
and clock limits, an archive's directory and XML nesting checked first (``archive``), so this
process never parses a file a visitor sent. A file that cannot become text raises
``UnreadableFile`` with the reason in words: a PDF that needs a password, a PDF with no text
layer ("needs OCR"), a damaged archive, a zip bomb, a converter that crashed or went over its
limits. Results and refusals are memoised per process by the file's SHA-256, the converter's
version and the limits; ``conversions.ConversionCache`` keeps them on disk between runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import re
import sys
import threading
import types
from dataclasses import dataclass

from ..errors import CorpusError, UnreadableFile
from ..extras import install_hint, installed_version
from .archive import check_archive
from .box import BoxLimits, out_of_memory, run_boxed, start_host
from .docling_converter import DOCLING_KINDS, docling_markdown, import_backends

#: Extensions converted to markdown, compared lower-cased, and the kind each one is.
CONVERTED_SUFFIXES: dict[str, str] = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx",
                                      ".html": "html", ".htm": "html", ".epub": "epub"}
#: Bumped when what this module makes of a file changes (cached conversions are then redone).
FORMAT_REVISION = 2
_SLIDE = re.compile(r"^<!-- Slide number: (\d+) -->$", re.M)
#: An image in converted markdown: MarkItDown's ``![alt](src)``, Docling's ``<!-- image -->``.
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|<!-- image -->")
#: The compound-file signature: what a password-protected DOCX, PPTX or XLSX really is.
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MEMO: dict[tuple[str, str], Converted | str] = {}
_MEMO_LOCK = threading.Lock()
#: Conversions remembered per process (each holds a document's text).
_MEMO_SIZE = 512


@dataclass(frozen=True, slots=True)
class Converted:
    """A file's text as markdown, and where its pages (or slides) start."""

    text: str
    pages: tuple[int, ...] = ()
    """Start offset of each page or slide in ``text`` (empty: the format has no pages)."""

    kind: str = ""
    """The source format: ``pdf``, ``docx``, ``pptx``, ``xlsx``, ``html`` or ``epub``."""


#: The converters a load may use: MarkItDown (the default, always installed) or Docling (optional).
CONVERTERS: tuple[str, ...] = ("markitdown", "docling")


#: What MarkItDown reads each format with: a new release of one of them may convert (or refuse)
#: a file differently, so each one's version is part of what a kept conversion was made by.
READERS: tuple[str, ...] = ("pdfminer.six", "pypdfium2", "mammoth", "lxml", "python-pptx", "openpyxl", "pandas",
                            "beautifulsoup4", "markdownify")


def converter_version(converter: str = "markitdown") -> str:
    """Names what converts files: the converter's version, the readers it uses and this module's
    revision."""
    if converter == "docling":
        from .docling_converter import docling_version

        return f"docling-{docling_version()}/r{FORMAT_REVISION}"
    # The installed distributions' versions, read without importing MarkItDown (2 to 3 s, for
    # pandas): a corpus whose conversions are all kept never imports it.
    readers = ",".join(f"{name}-{installed_version(name) or 'missing'}" for name in READERS)
    return f"markitdown-{installed_version('markitdown') or 'missing'}+{readers}/r{FORMAT_REVISION}"


def check_converter(converter: str) -> None:
    """Refuse a converter that is unknown or not installed, with the reason (``CorpusError``)."""
    if converter not in CONVERTERS:
        raise CorpusError(f"unknown converter {converter!r}; choose one of {', '.join(CONVERTERS)}")
    if converter == "docling":
        from .docling_converter import docling_available

        if not docling_available():
            raise CorpusError(f"the docling converter needs the docling package ({install_hint('docling')}); "
                              "MarkItDown, the default, is installed")


def kind_of(name: str) -> str | None:
    """The kind a file name converts as, or None for files read as text."""
    dot = name.rfind(".")
    return CONVERTED_SUFFIXES.get(name[dot:].lower()) if dot >= 0 else None


def to_markdown(raw: bytes, kind: str, converter: str = "markitdown", limits: BoxLimits | None = None) -> Converted:
    """``raw`` (a file of ``kind``) as markdown by ``converter`` (one of ``CONVERTERS``), converted
    in a box under ``limits`` (``BoxLimits.default()``); ``UnreadableFile`` says why it cannot be."""
    limits = limits or BoxLimits.default()
    key = (hashlib.sha256(raw).hexdigest(), f"{kind}/{converter_version(converter)}/{limits.key}")
    with _MEMO_LOCK:
        found = _MEMO.get(key)
    if isinstance(found, str):
        raise UnreadableFile(found)  # refused before: never converted twice
    if found is not None:
        return found
    try:
        _refuse_early(raw, kind)
        entry, prepare, later = _box(converter)
        done = run_boxed(entry, {"kind": kind, "converter": converter}, raw, limits, prepare, later)
        converted = Converted(done["text"], tuple(done["pages"]), done["kind"])
    except UnreadableFile as exc:
        _remember(key, exc.reason)
        raise
    _remember(key, converted)
    return converted


def _box(converter: str) -> tuple[str, str, str]:
    """The box's entry, what its host imports first, and what it imports when idle."""
    return (f"{__name__}.converted_in_box", f"{__name__}.prepare" + ("_docling" if converter == "docling" else ""),
            f"{__name__}.prepare_xlsx")


def start_converting(converter: str = "markitdown") -> None:
    """Start the process that converts for this one (and the processes it forks) now: its
    imports overlap with whatever comes before the first file to convert."""
    start_host(*_box(converter))


def _remember(key: tuple[str, str], outcome: Converted | str) -> None:
    with _MEMO_LOCK:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = outcome


def prepare() -> None:
    """What every MarkItDown conversion uses, imported once in the box's host."""
    _import_markitdown()
    import pypdfium2  # noqa: F401


def prepare_xlsx() -> None:
    """What an XLSX conversion adds (pandas, openpyxl), imported in the box's host once it is
    idle: not before the first jobs, not in every worker that converts an XLSX."""
    for name in ("openpyxl", "pandas"):
        found = sys.modules.get(name)
        if isinstance(found, _Deferred):
            found.__getattr__("__name__")


def prepare_docling() -> None:
    """What every Docling conversion uses (and MarkItDown's, which converts EPUB files)."""
    prepare()
    import_backends()


def converted_in_box(header: dict, raw: bytes, limits: BoxLimits) -> dict:
    """The conversion itself, in the box's worker (``box.run_boxed``): the archive checked, then
    converted; the ``Converted`` as a JSON-able dict."""
    kind, converter = header["kind"], header["converter"]
    check_archive(raw, kind, limits)
    if converter == "docling" and kind in DOCLING_KINDS:
        text = _normalised(docling_markdown(raw, kind))
        if not _has_text(text):
            raise UnreadableFile(f"no text in this {kind.upper()} file after conversion" +
                                 (" (only images: it needs OCR)" if _IMAGE.search(text) else ""))
        converted = Converted(text, (), kind)
    else:
        converted = _convert_pdf(raw) if kind == "pdf" else _convert_whole(raw, kind)
    return {"text": converted.text, "pages": list(converted.pages), "kind": converted.kind}


#: Word paragraph styles that hold source code (Word's own, Pandoc's, the usual custom names),
#: made a fenced block with one line per paragraph, and character styles made inline code: without
#: them a code listing comes out as loose paragraphs, its indentation and markup lost.
DOCX_CODE_STYLES = "\n".join(
    [f"p[style-name='{name}'] => pre:separator('\\n')" for name in (
        "HTML Preformatted", "Macro Text", "Plain Text", "Source Code")]
    + ["p[style-name^='Code'] => pre:separator('\\n')"]
    + [f"r[style-name='{name}'] => code" for name in (
        "HTML Code", "HTML Typewriter", "HTML Keyboard", "HTML Sample", "Verbatim Char", "Inline Code")]
    + ["r[style-name^='Code'] => code"])

#: MarkItDown's converter class for each kind: called directly, so a damaged file fails with
#: its reason instead of falling through to MarkItDown's plain-text reading of the bytes.
_CONVERTERS = {"pdf": "PdfConverter", "docx": "DocxConverter", "pptx": "PptxConverter", "xlsx": "XlsxConverter",
               "html": "HtmlConverter", "epub": "EpubConverter"}


#: What importing MarkItDown imports that converting a PDF, DOCX, PPTX, HTML or EPUB never uses:
#: pandas and openpyxl (its XLSX converter: half of its 1 s import) and magika (its ``MarkItDown``
#: class, which is not used). They are imported when first used, or when the box's host is idle.
_DEFERRED = ("pandas", "openpyxl", "magika")


class _Deferred(types.ModuleType):
    """A module imported when one of its attributes is first read. (``importlib.util.LazyLoader``
    would not do: an ``import`` statement naming a lazy module loads it, to check its spec.)"""

    def __init__(self, spec) -> None:
        super().__init__(spec.name)
        self.__spec__ = spec  # not ``_initializing``: an import statement takes the module as it is

    def __getattr__(self, attribute: str):  # read only for what the module itself would have set
        name = self.__spec__.name
        if sys.modules.get(name) is self:
            del sys.modules[name]
        module = importlib.import_module(name)
        self.__dict__.update(module.__dict__)
        return getattr(module, attribute)


def _import_markitdown():
    """MarkItDown's ``StreamInfo`` and ``converters``, the ``_DEFERRED`` modules not yet imported
    left to be imported when first used."""
    if "markitdown" not in sys.modules:
        for name in _DEFERRED:
            spec = None if name in sys.modules else importlib.util.find_spec(name)
            if spec is not None:
                sys.modules[name] = _Deferred(spec)
    from markitdown import StreamInfo, converters

    return StreamInfo, converters


def _run(raw: bytes, kind: str) -> str:
    try:
        StreamInfo, converters = _import_markitdown()
    except ImportError as exc:
        raise UnreadableFile(f"converting this file needs MarkItDown (pip install 'markitdown[all]'): {exc}") from None
    converter = getattr(converters, _CONVERTERS[kind])()
    info = StreamInfo(extension="." + kind, charset="utf-8" if kind == "html" else None)
    try:
        result = converter.convert(io.BytesIO(raw), info, **({"style_map": DOCX_CODE_STYLES} if kind == "docx" else {}))
    except (MemoryError, RecursionError):
        raise  # the box says what limit it met
    except Exception as exc:  # each converter raises its own (zipfile, KeyError, NotImplementedError...)
        if out_of_memory(exc):  # a module loaded late, under the box's limit, could not be mapped
            raise MemoryError from None
        raise UnreadableFile(_reason(kind, exc)) from None
    return _normalised(result.markdown or "")


def _refuse_early(raw: bytes, kind: str) -> None:
    """What no converter should be handed: binary bytes as HTML, a protected Office file."""
    if kind == "html" and b"\0" in raw:
        raise UnreadableFile("binary file (contains NUL bytes), not HTML")
    if kind in ("docx", "pptx", "xlsx") and raw.startswith(_OLE):
        raise UnreadableFile(f"an encrypted (password-protected) or legacy Office file, not a {kind.upper()} "
                             "archive: save it unprotected as ." + kind)


def _convert_whole(raw: bytes, kind: str) -> Converted:
    text = _run(raw, kind)
    if not _has_text(text):
        raise UnreadableFile(f"no text in this {kind.upper()} file after conversion" +
                             (" (only images: it needs OCR)" if _IMAGE.search(text) else ""))
    pages = tuple(m.start() for m in _SLIDE.finditer(text)) if kind == "pptx" else ()
    return Converted(text, pages, kind)


def _convert_pdf(raw: bytes) -> Converted:
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:
        raise UnreadableFile(f"converting a PDF needs pypdfium2 (installed with markitdown[pdf]): {exc}") from None
    try:
        document = pdfium.PdfDocument(raw)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise UnreadableFile("encrypted PDF (it needs a password)") from None
        raise UnreadableFile(f"not a readable PDF ({exc})") from None
    try:
        layers = [document[n].get_textpage().get_text_bounded() for n in range(len(document))]
    except pdfium.PdfiumError as exc:
        raise UnreadableFile(f"not a readable PDF ({exc})") from None
    finally:
        document.close()
    if not layers:
        raise UnreadableFile("a PDF with no pages")
    if not any(_has_text(layer) for layer in layers):
        raise UnreadableFile("no text layer (a scanned PDF needs OCR)")
    text = _run(raw, "pdf")  # the whole file at once, exactly as MarkItDown converts it
    if "\f" in text:  # pdfminer ends every page with a form feed: the page starts are exact
        pages = (0, *(m.end() for m in re.finditer("\f", text)))[:len(layers)]
        return Converted(text.replace("\f", "\n").rstrip("\n") + "\n", pages, "pdf")
    return Converted(text, _page_starts(text, layers), "pdf")


def _page_starts(text: str, layers: list[str]) -> tuple[int, ...]:
    """Where each page's text begins in the converted text (pages 2 on are found by their first
    words, in order; a page whose words cannot be found starts where the previous one did)."""
    starts, at = [0], 0
    for layer in layers[1:]:
        words = re.findall(r"\w+", layer)
        found = None
        for count in (8, 4, 2, 1):
            if len(words) < count:
                continue
            pattern = r"\W+".join(re.escape(w) for w in words[:count])
            found = re.compile(pattern).search(text, at)
            if found:
                break
        at = found.start() if found else at
        starts.append(at)
    return tuple(starts)


def _has_text(text: str) -> bool:
    """True when something is left to read once images and slide markers are taken out."""
    return bool(re.search(r"\w", _SLIDE.sub("", _IMAGE.sub("", text))))


def _normalised(text: str) -> str:
    """Newlines as ``\\n``, no NUL, and the document ending with one newline."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return text.rstrip(" \t\n") + "\n" if text.strip() else ""


def _reason(kind: str, exc: Exception) -> str:
    detail = " ".join(str(exc).split())[:200] or "no message"
    name = type(exc).__name__
    if name in ("BadZipFile", "PackageNotFoundError") or "zip file" in detail.lower():
        return f"not a readable {kind.upper()} file: damaged, or another kind of file ({detail})"
    return f"the {kind.upper()} converter failed ({name}: {detail})"
