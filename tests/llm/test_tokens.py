"""Tokens for the pair candidates: words, identifier parts, concepts across languages,
compounds, and the rule's word lists."""

from __future__ import annotations

from typing import Any

from curator.interpreter.rulebook import load_rules
from curator.llm.tokens import compound_parts, lexicon, tokens


def rule_params(code: str = "CUR401") -> dict[str, Any]:
    return next(r for r in load_rules() if r.code == code).params


def test_words_are_casefolded_stemmed_and_stopwords_go() -> None:
    lex = lexicon(rule_params())
    assert tokens("Don't use the **Why:** Migrations in `src/App.py`", lex) == [
        "don't",
        "use",
        "migration",
        "src",
        "app",
        "py",
    ]
    assert tokens("Die Tests laufen nicht", lex) == ["~test", "laufen"]
    assert tokens("no, on and off", lex) == []  # quoted in the YAML: words, not booleans


def test_identifiers_give_their_parts() -> None:
    lex = lexicon({})
    assert tokens("FakeRepo", lex) == ["fakerepo", "fak", "repo"]
    assert tokens("fake_repo HTTPServer", lex) == [
        "fake_repo",
        "fak",
        "repo",
        "httpserver",
        "http",
        "server",
    ]


def test_concepts_meet_across_languages_and_rival_answers() -> None:
    lex = lexicon(rule_params())
    english = set(tokens("Keep all code comments in English.", lex))
    chinese = set(tokens("代码注释一律使用简体中文。", lex))
    assert {"~comment", "~cod"} <= english & chinese
    assert "~english" in english and "~chines" in chinese
    assert set(tokens("Indent with tabs", lex)) & set(tokens("Indent with spaces", lex)) == {
        "~indent"
    }


def test_cjk_is_bigrams() -> None:
    assert tokens("注释使用中文", lexicon({})) == ["注释", "释使", "使用", "用中", "中文"]


def test_long_words_give_the_store_words_they_are_made_of() -> None:
    lex = lexicon({"compound_min_length": 10, "concepts": [["database", "datenbank"]]})
    bags = [
        {t: 1.0 for t in tokens("Datenbankmigration and testcontainers", lex)},
        {t: 1.0 for t in tokens("every migration test needs a container", lex)},
    ]
    first, second = compound_parts(bags, lex)
    assert {"~databas", "migration", "test", "container"} <= set(first)
    assert second == bags[1]  # no long words
    assert compound_parts(bags, lexicon({})) == bags  # off unless asked for
