"""The corpus that ships inside the package: documents of every kind the tool measures (markdown,
PDF, DOCX, HTML, PPTX, several languages) and two golden sets about them.

Commands read it when no corpus is named, and the app opens it first; it is found next to this
package, so an installed wheel has it as a checkout does (``sample_corpus/`` at a checkout's root
points here).
"""

from pathlib import Path

SAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "sample_corpus"
GOLDEN_QUESTIONS = SAMPLE_CORPUS / "golden-questions.jsonl"
"""38 questions in the golden-set JSONL format."""
GOLDEN_PARAPHRASE = SAMPLE_CORPUS / "golden-paraphrase.csv"
"""Questions that paraphrase their answers, in Chroma's CSV format: where BM25 falls short."""
