"""The error hierarchy: every failure the library raises on purpose is an InspectorError.

Each subclass also derives from the built-in exception a caller would naturally catch
(``ValueError`` for bad settings and bad input, ``OSError`` for files), so code that
does not know about Chunk Inspector still handles them sensibly.
"""

from __future__ import annotations


class InspectorError(Exception):
    """Base class of every error Chunk Inspector raises deliberately."""


class SpecError(InspectorError, ValueError):
    """A splitter specification or setting was refused; the message says why."""


class LengthError(InspectorError, ValueError):
    """A length unit or tokenizer could not be loaded or used."""


class CorpusError(InspectorError, OSError):
    """A corpus could not be read at all (as opposed to single files, which are skipped)."""


class UnreadableFile(InspectorError, ValueError):
    """One file cannot become a document; ``reason`` says why, in words. Loaders catch it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ReviewInputError(InspectorError, ValueError):
    """A review round, a shared link or a reviewer name was refused; the message says why."""


class ImportChunksError(InspectorError, ValueError):
    """Chunks brought from elsewhere could not be read."""


class QuestionsError(InspectorError, ValueError):
    """A question file or a kept question set could not be read."""


class ReviewStoreError(InspectorError, OSError):
    """The review store could not be opened or written."""


class AnswerChanged(ReviewStoreError):
    """A saved answer was changed elsewhere (another tab, another session) since the page that
    saves over it loaded it; nothing was written. ``stored`` is the answer now in the store."""

    def __init__(self, message: str, stored) -> None:
        super().__init__(message)
        self.stored = stored


class ChunkSetError(InspectorError, OSError):
    """A stored chunk set is missing, damaged, made for another corpus or cannot be written."""


class InputTooLarge(InspectorError, ValueError):
    """A file or value from outside is over its size limit (``inspector.limits``), or is no
    path at all; refused before it is parsed."""


class InputRefused(InspectorError, ValueError):
    """A value from outside was read but is not one to compute with: JSON nested too deeply, a
    number out of range or not finite, a vector of the wrong length; refused before it is used."""


class RetrieverError(InspectorError, ValueError):
    """A retriever spec was refused, or its embedding model cannot be loaded; the message says why."""


class EmbeddingServiceError(InspectorError, OSError):
    """An embeddings server did not answer, refused the request or answered something else
    than embeddings; nothing was ranked."""


class SpendRefused(InspectorError, PermissionError):
    """A request to a paid endpoint would go over what the server allows: nothing was sent; the
    message names the allowance and what was used of it."""


class ContextLineError(InspectorError, ValueError):
    """Context lines cannot be written or used: no endpoint or model is set, lines are missing,
    or a file of lines could not be read; the message says what to set or run."""


class ContextBusy(ContextLineError):
    """Another session is writing the same plan's lines; ``writing`` says how far it is."""

    def __init__(self, message: str, writing) -> None:
        super().__init__(message)
        self.writing = writing


class ContextServiceError(InspectorError, OSError):
    """A chat endpoint did not answer, refused the request or answered no context line."""


class TrackingError(InspectorError, OSError):
    """MLflow is not installed, or its tracking store refused the runs."""


class ArgumentRefused(InspectorError, ValueError):
    """A command-line run was refused: an argument, or what one names (a corpus without a readable
    document, a golden set none of whose questions is found); the message says why. The command
    line's entry point prints it as one line and exits with status 2, as for every ``InspectorError``."""


class EngineError(InspectorError, OSError):
    """The chosen engine cannot run: Ray is not installed, its cluster cannot be reached, a job
    did not return what it was given, or the streamed engine cannot park its batches on disk."""


class EngineCannot(EngineError, NotImplementedError):
    """The engine does not do what was asked of it (``measure.engine.Engine`` says what each
    engine does); the message names the engine and what to use instead."""


class MissingExtra(InspectorError, ImportError):
    """An optional feature's package is not installed; the message names the extra that brings it."""


class StoreError(InspectorError, OSError):
    """A vector store could not be named, opened or read: a bad address, a missing collection or
    table, a column that is not text, a server that refused; the message names the store."""


class StoreAddressError(InspectorError, ValueError):
    """A store address or a field mapping was refused (a password in it, an unknown store, no
    collection named); the message says why."""


class RerankServiceError(InspectorError, OSError):
    """A rerank server did not answer, refused the request or answered no score for some text;
    the message names the server and the model."""


class AppNotInstalled(InspectorError, FileNotFoundError):
    """The app's pages are not beside the library (a partial install); the message says to reinstall."""


class RolesError(InspectorError, ValueError):
    """The server's list of who may do what (``CHUNK_INSPECTOR_ROLES``) was refused; the message
    says why."""


class AccessRefused(InspectorError, PermissionError):
    """This visitor's role does not allow what was asked; the message names the role it needs."""
