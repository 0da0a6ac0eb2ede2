"""Docling as the converter, when it is installed (``--converter docling``).

Docling's DOCX, PPTX, XLSX and HTML backends are rule-based and need no model: they are driven
directly, so ``docling-slim`` with its format extras is enough (no torch). Its PDF pipeline needs
the full ``docling`` install and layout models from a model hub; without them a PDF is reported
"needs Docling's models" instead of failing the load. EPUB, which Docling does not read, goes
through MarkItDown. Docling gives no page offsets in its markdown, so its documents carry no pages.
"""

from __future__ import annotations

import importlib
import io

from ..errors import UnreadableFile
from ..extras import installed_version
from .box import out_of_memory

#: The kinds Docling converts (its input formats).
DOCLING_KINDS: frozenset[str] = frozenset({"pdf", "docx", "pptx", "xlsx", "html"})
#: Docling's rule-based backend for each kind: (module, class, input format).
_BACKENDS = {
    "docx": ("docling.backend.msword_backend", "MsWordDocumentBackend", "DOCX"),
    "pptx": ("docling.backend.mspowerpoint_backend", "MsPowerpointDocumentBackend", "PPTX"),
    "xlsx": ("docling.backend.msexcel_backend", "MsExcelDocumentBackend", "XLSX"),
    "html": ("docling.backend.html_backend", "HTMLDocumentBackend", "HTML"),
}
#: Words in Docling's errors that mean its models are missing (it fetches them on first use).
_MODEL_WORDS = ("model", "huggingface", "hf_hub", "snapshot", "download", "offline", "connection", "torch")


def docling_available() -> bool:
    """True when Docling's document model and at least its DOCX backend can be imported."""
    try:
        import docling.backend.msword_backend  # noqa: F401
        import docling.datamodel.document  # noqa: F401
    except ImportError:
        return False
    return True


def docling_version() -> str:
    for name in ("docling", "docling-slim"):
        found = installed_version(name)
        if found:
            return found
    import docling

    return str(getattr(docling, "__version__", "unknown"))


def import_backends() -> None:
    """Docling's backends imported (once, in the box's host, before its workers fork)."""
    if docling_available():
        for module, _, _ in _BACKENDS.values():
            importlib.import_module(module)


def docling_markdown(raw: bytes, kind: str) -> str:
    """``raw`` as Docling's markdown; ``UnreadableFile`` with the reason when it cannot be."""
    try:
        return _pdf(raw) if kind == "pdf" else _rule_based(raw, kind)
    except (UnreadableFile, MemoryError, RecursionError):
        raise  # the box says what limit a conversion met
    except Exception as exc:  # Docling and its backends raise their own
        if out_of_memory(exc):  # a module loaded late, under the box's limit, could not be mapped
            raise MemoryError from None
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise UnreadableFile(f"the Docling converter failed on this {kind.upper()} file "
                             f"({type(exc).__name__}: {detail})") from None


def _rule_based(raw: bytes, kind: str) -> str:
    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.document import InputDocument

    module, name, input_format = _BACKENDS[kind]
    try:
        backend = getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise UnreadableFile(f"Docling's {kind.upper()} backend is not installed ({exc})") from None
    document = InputDocument(path_or_stream=io.BytesIO(raw), format=InputFormat[input_format], backend=backend,
                             filename=f"document.{kind}")
    if not document.valid:
        raise UnreadableFile(f"Docling cannot read this {kind.upper()} file (damaged, or another kind of file)")
    return backend(in_doc=document, path_or_stream=io.BytesIO(raw)).convert().export_to_markdown()


def _pdf(raw: bytes) -> str:
    try:
        from docling.datamodel.base_models import DocumentStream
        from docling.document_converter import DocumentConverter

        result = DocumentConverter().convert(DocumentStream(name="document.pdf", stream=io.BytesIO(raw)))
        return result.document.export_to_markdown()
    except Exception as exc:  # ImportError without the full install; hub errors without the models
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        if isinstance(exc, ImportError) or any(word in detail.lower() for word in _MODEL_WORDS):
            raise UnreadableFile("needs Docling's models: its PDF pipeline uses layout models (the full docling "
                                 f"install and its model files) that are not on this machine ({detail})") from None
        raise
