"""Docling as the converter, when it is installed (``--converter docling``).

Docling's DOCX, PPTX, XLSX and HTML backends are rule-based and need no model. Its PDF pipeline
needs layout models from a model hub; on a machine without them a PDF is reported "needs
Docling's models" instead of failing the load. EPUB, which Docling does not read, goes through
MarkItDown. Docling gives no page offsets in its markdown, so its documents carry no pages.
"""

from __future__ import annotations

import io
from importlib import metadata

from ..errors import UnreadableFile

#: The kinds Docling converts (its input formats).
DOCLING_KINDS: frozenset[str] = frozenset({"pdf", "docx", "pptx", "xlsx", "html"})
#: Words in Docling's errors that mean its models are missing (it fetches them on first use).
_MODEL_WORDS = ("model", "huggingface", "hf_hub", "snapshot", "download", "offline", "connection")


def docling_available() -> bool:
    try:
        import docling.document_converter  # noqa: F401
    except ImportError:
        return False
    return True


def docling_version() -> str:
    try:
        return metadata.version("docling")
    except metadata.PackageNotFoundError:
        import docling

        return str(getattr(docling, "__version__", "unknown"))


def docling_markdown(raw: bytes, kind: str) -> str:
    """``raw`` as Docling's markdown; ``UnreadableFile`` with the reason when it cannot be."""
    try:
        from docling.datamodel.base_models import DocumentStream
        from docling.document_converter import DocumentConverter
    except ImportError as exc:
        raise UnreadableFile(f"the docling converter is not installed (pip install docling): {exc}") from None
    try:
        result = DocumentConverter().convert(DocumentStream(name=f"document.{kind}", stream=io.BytesIO(raw)))
        return result.document.export_to_markdown()
    except Exception as exc:  # Docling and its backends raise their own
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        if kind == "pdf" and any(word in detail.lower() for word in _MODEL_WORDS):
            raise UnreadableFile("needs Docling's models: its PDF pipeline uses layout models that are not on "
                                 f"this machine ({detail})") from None
        raise UnreadableFile(f"the Docling converter failed on this {kind.upper()} file "
                             f"({type(exc).__name__}: {detail})") from None
