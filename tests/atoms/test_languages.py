"""Sentences, figure sentences and citing sentences beyond English, against hand-labelled spans.

Each labelled document lists its prose sentences in order, each marked ``N`` when it carries a
figure (a digit, and ten words or more: two Han or kana characters count as one word) and
``C`` when it cites (holds a link). Spans are found by locating each labelled sentence after
the previous one, so a label that is not exactly a slice of the text fails loudly.
"""

# The labels are whole sentences, one per line.
# ruff: noqa: E501

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.atoms import analyze
from inspector.atoms.language import FUNCTION_SHARE, detect_language, function_shares, prose_sample, word_count
from inspector.atoms.prose import split_sentences

CORPUS = Path(__file__).resolve().parents[2] / "sample_corpus" / "international"

LABELS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "zh/release-notes-4-2.md": ("zh", [
        ("N", "Harborline 4.2.0 于 2026 年 1 月 20 日发布，第一个补丁版本 4.2.1 于 2 月 24 日发布。"),
        ("N", "4.2 系列的支持期到 2027 年 7 月 31 日为止。"),  # 。 then a digit still ends it
        ("", "本页同时介绍这两个版本。"),
        ("", "4.2 的重点是升级和效率。"),  # a figure, but nine words: 4.2 and 16 characters
        ("N", "对于一个典型的集群，吞吐量提高约 10%，内存占用减少 18%，需要维护的组件也更少了！"),
        ("", "从 3.9 可以直接升级吗？"),
        ("C", "可以，但前提是满足[升级指南](../../product/upgrade.md)中的全部三个条件。"),
        ("N", "新的写入路径基于 `io_uring`，在三节点集群上把每秒写入的数据量从 166 MB 提高到 182 MB。"),
        ("N", "在 80% 负载下，p99 延迟从 24 毫秒降到 21 毫秒。"),
        ("N", "旧的写入路径在 4.2 中仍然保留，可以通过 `storage.io.engine: legacy` 切换回去。"),
        ("N", "在磁盘使用率超过 90% 的节点上，日志压缩最多会推迟 15 分钟才开始。"),
        ("NC", "我们会在 4.3 中修复这个问题，进展请关注[问题 4182](https://example.com/harborline/issues/4182)。"),
    ]),
    "zh/remote-work.md": ("zh", [
        ("", "Quillfeather Labs 是一家混合办公的公司。"),
        ("N", "在一个普通的星期二，大约 60% 的同事会来办公室，约 7% 的同事完全远程工作。"),
        ("", "这两种方式都很正常。"),
        ("N", "我们只要求大家每天在北京时间 16:00 到 18:00 之间保持在线，因为这是三个办公室唯一重叠的两个小时。"),
        ("", "其余时间由你和团队自己安排。"),
        ("N", "每位远程办公的同事每年可以报销最多 1,200 欧元的家庭办公设备费用，包括椅子、显示器和网络费用。"),
        ("C", "报销流程见[费用与差旅](../../handbook/expenses-and-travel.md)。"),
        ("", "需要提前审批吗？"),
        ("N", "不需要，单笔低于 300 欧元的费用可以直接报销。"),
    ]),
    "ja/release-notes-4-2.md": ("ja", [
        ("N", "Harborline 4.2.0 は 2026 年 1 月 20 日にリリースされ、最初のパッチ版 4.2.1 は 2 月 24 日に公開されました。"),
        ("N", "4.2 系列のサポートは 2027 年 7 月 31 日までです。"),
        ("", "4.2 のテーマはアップグレードと効率です。"),
        ("N", "一般的なクラスタでは、スループットが約 10% 向上し、メモリ使用量が 18% 減少します！"),
        ("", "3.9 から直接アップグレードできますか？"),  # ！ then a digit: a new sentence
        ("C", "はい、ただし[アップグレードガイド](../../product/upgrade.md)にある三つの条件をすべて満たす必要があります。"),
        ("N", "新しい書き込みパスは `io_uring` を使い、3 ノードのクラスタで毎秒の書き込み量を 166 MB から 182 MB に引き上げました。"),
        ("N", "80% の負荷では、p99 レイテンシが 24 ミリ秒から 21 ミリ秒に下がりました。"),
        ("N", "ディスク使用率が 90% を超えるノードでは、ログの圧縮の開始が最大で 15 分遅れることがあります。"),
        ("NC", "この問題は 4.3 で修正する予定で、進捗は[課題 4182](https://example.com/harborline/issues/4182)で確認できます。"),
    ]),
    "ja/on-call.md": ("ja", [
        ("N", "オンコール当番は 1 週間単位で、月曜日の午前 10 時に交代します。"),
        ("N", "当番の間は、呼び出しから 15 分以内に応答できる場所にいてください。"),
        ("N", "当番 1 週間につき 400 ユーロの定額手当が支払われ、夜間や週末に呼び出された場合は 1 時間あたり 60 ユーロが追加されます。"),
        ("", "手当は翌月の給与と一緒に支払われます。"),
        ("N", "午前 0 時から 6 時の間に 2 時間以上対応した場合、翌日は午後から勤務を始めてください。"),
        ("", "休むことは権利であり、申請は必要ありません。"),
        ("C", "詳しくは[インシデント連絡](../../handbook/incident-communication.md)を参照してください。"),
    ]),
    "de/release-notes-4-2.md": ("de", [
        ("N", "Harborline 4.2.0 erschien am 20. Januar 2026, die erste Fehlerbehebungsversion 4.2.1 folgte am 24. Februar 2026."),
        ("N", "Die Unterstützung für die Reihe 4.2 endet am 31. Juli 2027."),  # "31." is a date
        ("N", "Bei einem typischen Cluster bringt 4.2 rund 10 % mehr Durchsatz und ca. 18 % weniger Speicherbedarf."),
        ("NC", "Ein Upgrade direkt von 3.9 ist möglich, wenn alle drei Bedingungen der [Upgrade-Anleitung](../../product/upgrade.md) erfüllt sind."),
        ("N", "Für die Größenplanung gilt weiterhin z. B. die Faustregel von 2.000 Partitionen pro Broker."),
        ("N", "Der neue Schreibpfad nutzt `io_uring` und steigert den Durchsatz auf drei Knoten von 166 MB/s auf 182 MB/s."),
        ("N", "Bei 80 % Last sinkt die p99-Latenz von 24 ms auf 21 ms."),  # "ms." ends it, as in English
        ("", "Wer den alten Pfad braucht, stellt `storage.io.engine: legacy` ein."),
        ("N", "Auf Knoten mit mehr als 90 % belegtem Speicherplatz beginnt die Log-Kompaktierung bis zu 15 Min. später als geplant."),
        ("NC", "Die Korrektur ist für 4.3 vorgesehen, siehe [Ticket Nr. 4182](https://example.com/harborline/issues/4182)."),
    ]),
    "de/expenses.md": ("de", [
        ("", "Wer für Quillfeather Labs reist, soll dabei weder Geld verlieren noch verdienen."),
        ("", "Diese Seite erklärt, was wir erstatten und wie schnell."),
        ("N", "Bahnfahrten bis zu sechs Stunden buchen wir in der 2. Klasse, längere Fahrten in der 1. Klasse."),
        ("N", "Für Hotels gilt eine Obergrenze von 160 Euro pro Nacht, in München, Zürich und London von 220 Euro."),
        ("N", "Verpflegung erstatten wir mit einer Tagespauschale von 40 Euro, ohne Belege."),
        ("N", "Reicht eure Belege spätestens 30 Tage nach der Reise im Spesentool ein."),
        ("", "Die Erstattung kommt i. d. R. mit der nächsten Gehaltsabrechnung."),
        ("C", "Fragen beantwortet das Team Finanzen, Details stehen in den [englischen Reiserichtlinien](../../handbook/expenses-and-travel.md)."),
    ]),
}


def _labelled_spans(text: str, labels: list[tuple[str, str]]) -> list[tuple[int, int]]:
    spans, at = [], 0
    for _, sentence in labels:
        start = text.index(sentence, at)
        spans.append((start, start + len(sentence)))
        at = start + len(sentence)
    return spans


@pytest.mark.parametrize("name", sorted(LABELS))
def test_sentences_figures_and_citations_match_the_labels(name):
    language, labels = LABELS[name]
    text = (CORPUS / name).read_text(encoding="utf-8")
    analysis = analyze(text, "markdown")
    spans = _labelled_spans(text, labels)
    assert analysis.language == language
    assert [text[a:b] for a, b in analysis.sentences] == [s for _, s in labels]
    assert list(analysis.sentences) == spans
    assert list(analysis.atoms["num"]) == [span for span, (mark, _) in zip(spans, labels) if "N" in mark]
    assert list(analysis.atoms["cite"]) == [span for span, (mark, _) in zip(spans, labels) if "C" in mark]


def test_the_article_mode_keeps_its_english_rules_but_tells_the_language():
    text = (CORPUS / "zh/remote-work.md").read_text(encoding="utf-8")
    seed = analyze(text, "seed")
    assert seed.language == "zh"
    # The article's rules end sentences at ". " only: a Chinese paragraph stays one sentence.
    paragraph = "Quillfeather Labs 是一家混合办公的公司。"
    start = text.index(paragraph)
    assert any(a <= start and text.index("这两种方式都很正常。") < b for a, b in seed.sentences)


def test_english_documents_are_english():
    for path in sorted((CORPUS.parent / "handbook").glob("*.md")):
        assert analyze(path.read_text(encoding="utf-8")).language == "en", path.name


@pytest.mark.parametrize("sample, language", [
    ("Die Erstattung kommt in der Regel mit der nächsten Gehaltsabrechnung, Fragen beantwortet das Team.", "de"),
    ("这两种方式都很正常，其余时间由你和团队自己安排。", "zh"),
    ("休むことは権利であり、申請は必要ありません。", "ja"),
    ("서버가 2024년에 출시되었습니다. 새로운 기능이 많습니다.", "ko"),
    ("Le serveur a été publié en 2024 et la prochaine version suivra au printemps.", "fr"),
    ("| 1 | 2 |", "und"),
])
def test_languages_are_detected_offline(sample, language):
    assert detect_language(sample) == language


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x2fff)))
def test_word_count_is_the_whitespace_count_without_han_or_kana(text):
    assert word_count(text) == len(text.split())


def test_two_han_or_kana_characters_count_as_one_word():
    assert word_count("在 80% 负载下") == 1 + 4 / 2
    assert word_count("新しい書き込みパス") == 9 / 2
    assert word_count("서버가 2024년에 출시되었습니다.") == 3  # Korean separates words by spaces


def test_other_languages_are_split_by_sentencex_with_exact_spans():
    text = "Le serveur a été publié en 2024. Ensuite la version 4.2 est arrivée ! Est-ce fini ? Oui."
    bounds = split_sentences(text, text, "fr")
    parts = [text[bounds[x]:bounds[x + 1]] for x in range(0, len(bounds), 2)]
    assert parts == ["Le serveur a été publié en 2024.", "Ensuite la version 4.2 est arrivée !", "Est-ce fini ?", "Oui."]


def test_closing_emphasis_stays_with_its_sentence_in_sentencex_languages():
    text = "**Écriture continue.** Les producteurs ne touchent jamais le stockage."
    bounds = split_sentences(text, text, "fr")
    assert [text[bounds[x]:bounds[x + 1]] for x in range(0, len(bounds), 2)] == [
        "**Écriture continue.**", "Les producteurs ne touchent jamais le stockage."]


@given(st.lists(st.sampled_from(["Ça marche.", "版本 2.3 发布了。", "¿Qué pasa?", "**Fin.**", "Nr. 4 ", "`a. B`",
                                 "Größe 2. Klasse", "\u3000", " ", "\n", "x\udc80."]), max_size=12),
       st.sampled_from(["fr", "de", "zh", "es", "ru", "en"]))
def test_sentences_are_ordered_trimmed_and_inside_the_paragraph(parts, language):
    text = "".join(parts).strip()
    if not text:
        return
    bounds = split_sentences(text, text, language)
    assert bounds[0] == 0 and bounds[-1] == len(text)
    assert all(a < b for a, b in zip(bounds[0::2], bounds[1::2]))  # no sentence is empty
    assert all(b <= a for b, a in zip(bounds[1:-1:2], bounds[2::2]))  # nor overlaps the next
    for x in range(0, len(bounds), 2):
        part = text[bounds[x]:bounds[x + 1]]
        assert part == part.strip()


def test_common_languages_are_told_by_their_commonest_words_and_the_rest_by_the_model(monkeypatch):
    told = {"Le serveur a été publié en 2024 et la prochaine version suivra au printemps.": "fr",
            "Der Server wurde 2024 veröffentlicht und die nächste Version folgt im Frühjahr.": "de",
            "El servidor se publicó en 2024 y la próxima versión llegará en primavera con los clientes.": "es",
            "The broker writes each batch to the log of the partition that owns it.": "en"}
    modelled = {"Il server è stato pubblicato nel 2024 e la prossima versione arriverà in primavera.": "it",
                "Serwer został opublikowany w 2024 roku, a następna wersja pojawi się wiosną.": "pl",
                "Сервер был выпущен в 2024 году, а следующая версия выйдет весной.": "ru"}
    for text, language in {**told, **modelled}.items():
        assert detect_language(text) == language, text
    import py3langid

    def refuse(sample):
        raise AssertionError("the model was asked")

    monkeypatch.setattr(py3langid, "classify", refuse)
    for text, language in told.items():
        shares = function_shares(text)
        assert shares[language] >= FUNCTION_SHARE and detect_language(text) == language


def test_the_sample_leaves_out_tags_code_and_urls_and_the_models_chinese_varieties_are_chinese(monkeypatch):
    sample = prose_sample(["Die <b onclick='window.x=1'>Größe</b> `int main` https://example.com/a ist gut."])
    assert "onclick" not in sample and "main" not in sample and "example" not in sample and "Größe" in sample
    import py3langid

    for said, language in (("wuu", "zh"), ("yue", "zh"), ("zxx", "und"), ("pl", "pl")):
        monkeypatch.setattr(py3langid, "classify", lambda text, said=said: (said, 0.0))
        assert detect_language("Mieszane zdanie bez słów funkcyjnych ani pisma CJK tutaj.") == language
