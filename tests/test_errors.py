"""``inspector.errors``: every error is an InspectorError and a built-in family a caller catches."""

from __future__ import annotations

import inspector
from inspector import errors


def test_every_error_is_an_inspector_error_and_a_builtin_family():
    found = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)]
    assert errors.ChunkSetError in found and errors.MissingExtra in found and len(found) >= 9
    for error in found:
        assert issubclass(error, inspector.InspectorError)
        if error is not inspector.InspectorError:
            assert issubclass(error, (ValueError, OSError, ImportError)), error
