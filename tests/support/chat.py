"""An OpenAI-compatible chat endpoint on the loopback address that writes context lines and
places an llm chunker's cuts."""

from __future__ import annotations

import json
import re

from tests.support.loopback import LoopbackServer


def cuts_for(prompt: str) -> str:
    """The server's answer to an llm chunker's prompt: a cut before every shown piece that opens
    with a heading (else after the first piece), so a test knows where the cuts fall."""
    shown = [(int(n), body) for n, body in re.findall(r"<piece (\d+)>(.*?)</piece \1>", prompt, re.S)]
    cuts = [n - 1 for n, body in shown[1:] if body.lstrip().startswith("#")] or [shown[0][0]]
    return "split after: " + ", ".join(map(str, cuts))


def line_for(prompt: str) -> str:
    """The line the server writes: the passage's first words, so a test can tell lines apart."""
    passage = re.search(r"<passage>\n(.*?)\n</passage>", prompt, re.S)
    words = " ".join((passage[1] if passage else "").split()[:6])
    return f"This passage, from the corpus, begins: {words}."


def judge(chunk: str) -> dict[str, str]:
    """How the server's model reviews a chunk, a rule a test can apply too: the address is known
    when the chunk opens with a heading, references resolve unless it says "this" or "it", and
    everything is complete unless it holds a table row."""
    lowered = f" {chunk.lower()} "
    return {"address": "yes" if chunk.lstrip().startswith("#") else "no",
            "references": "no" if " this " in lowered or " it " in lowered else "yes",
            "completeness": "no" if "\n|" in chunk else "yes"}


def question_for(prompt: str) -> str:
    """The server's answer to a golden-set prompt: a question on the stretch's first sentence
    long enough to be evidence, and that sentence, copied. A stretch saying PARAPHRASE gets its
    excerpt reworded, GIVEAWAY a question holding its whole answer, TRIVIA one the closed-book
    model answers, one saying GARBLED an answer that is not JSON, ELSEWHERE an excerpt from
    another stretch of its document and TERSE one shorter than a sentence; a stretch already
    asked about gets the same question again."""
    stretch = re.search(r'<document title="[^"]*">\n(.*?)\n</document>', prompt, re.S)[1]
    if "GARBLED" in stretch:
        return "Here is a question: what is it?"
    if "ELSEWHERE" in stretch:  # quotes the page's title, which this stretch does not hold
        title = re.search(r'<document title="([^"]*)">', prompt)[1]
        return json.dumps({"question": "Which page is this, far from its heading?", "excerpts": [f"# {title}"]})
    if "TERSE" in stretch:
        return json.dumps({"question": "Does the terse page agree?", "excerpts": ["Yes."]})
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", stretch) if len(s.strip()) >= 25]
    sentence = sentences[0] if sentences else stretch.strip()
    excerpt = sentence.replace(" the ", " a ") if "PARAPHRASE" in stretch else sentence
    topic = " ".join(sorted(re.findall(r"[A-Za-z]{6,}", sentence), key=len, reverse=True)[:3]) or "this"
    question = f"What does the passage say of {topic}?"
    if "GIVEAWAY" in stretch:
        question = f"Is it true that {sentence}"
    if "TRIVIA" in stretch:
        question = f"TRIVIA: {question}"
        _TRIVIA[question] = sentence
    return "```json\n" + json.dumps({"question": question, "excerpts": [excerpt]}) + "\n```"


#: The answers a closed-book model knows: TRIVIA questions, answered by their sentence.
_TRIVIA: dict[str, str] = {}


def closed_book_for(prompt: str) -> str:
    """The server's closed-book answer: the sentence of a TRIVIA question, else that it needs the document."""
    question = prompt.rsplit("Question: ", 1)[1].strip()
    return _TRIVIA.get(question, "NEEDS THE DOCUMENT")


def review_for(prompt: str) -> str:
    """The server's answer to an Orphan Test prompt: ``judge`` as JSON, unless the chunk asks
    for a bad answer by holding MAYBE, SILENT or BROKEN."""
    chunk = re.search(r"<chunk>\n(.*?)\n</chunk>", prompt, re.S)[1]
    if "MAYBE" in chunk:
        return '{"address": "maybe", "references": "yes", "completeness": "yes"}'
    if "SILENT" in chunk:
        return ""
    if "BROKEN" in chunk:
        return '{"address": "yes", "references": '
    return "```json\n" + json.dumps(judge(chunk)) + "\n```"


class ChatServer(LoopbackServer):
    """``POST /v1/chat/completions`` on 127.0.0.1. ``refuse(prompt)`` may return ``(status,
    body)`` to answer instead (a failure for that chunk); ``prompts`` keeps every prompt."""

    def __init__(self, refuse=lambda prompt: None) -> None:
        self.refuse = refuse
        self.prompts: list[str] = []
        self.bodies: list[dict] = []
        super().__init__(self._answer)

    def _answer(self, path: str, body: dict, headers: dict):
        self.bodies.append(body)
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {path}"}}, {}
        prompt = body["messages"][-1]["content"]
        self.prompts.append(prompt)
        refused = self.refuse(prompt)
        if refused:
            return (*refused, {})
        answer = cuts_for(prompt) if "<piece " in prompt else review_for(prompt) if "<chunk>" in prompt \
            else question_for(prompt) if '{"question": "...", "excerpts"' in prompt \
            else closed_book_for(prompt) if "without any document" in prompt else line_for(prompt)
        return 200, {"object": "chat.completion", "model": body["model"], "choices": [
            {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]}, {}
