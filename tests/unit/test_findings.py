"""findings: merging duplicates across sources, fingerprints, ordering, the --max-findings cut."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from review_agent.findings import fingerprint, limit, line_texts, merge, similar, unique
from review_agent.records import Finding
from review_agent.vcs import git
from tests.conftest import Repo


def F(path: str = "a.py", line: int = 1, sev: str = "warning", rule: str = "debug-print",
      msg: str = "print() left in added code", source: str = "builtin") -> Finding:
    return Finding(path, line, line, sev, rule, msg, source)


def test_builtin_and_model_same_rule_same_line_are_one_finding() -> None:
    builtin = F()
    model = F(sev="error", rule="model/debug-print", msg="Remove this debug print",
              source="model")
    merged = merge([model, builtin])
    assert len(merged) == 1
    assert merged[0].rule == "debug-print"  # the builtin's id
    assert merged[0].source == "builtin"
    assert merged[0].severity == "warning"  # ours: a model never changes a builtin finding


def test_model_message_similar_to_builtin_on_same_line_merges() -> None:
    builtin = F(rule="debug-print", msg="print() left in added code")
    model = F(rule="model/leftover-debugging", msg="print() call left in the added code",
              source="model", sev="info")
    merged = merge([builtin, model])
    assert [(f.rule, f.severity) for f in merged] == [("debug-print", "warning")]


def test_different_messages_or_lines_stay_apart() -> None:
    a = F(line=3)
    b = F(line=3, rule="model/sql-injection", msg="User input reaches the SQL query unescaped",
          source="model")
    c = F(line=4)
    assert len(merge([a, b, c])) == 3


def test_two_builtin_rules_on_one_line_are_not_merged_by_wording() -> None:
    a = F(rule="debug-print", msg="print() left in added code")
    b = F(rule="todo", msg="print() left in added code")
    assert len(merge([a, b])) == 2


def test_fingerprint_follows_line_content_not_number() -> None:
    f = F(line=10)
    moved = f._replace(line=42, end_line=42)
    assert fingerprint(f, "    print(x)") == fingerprint(moved, "print(x)  ")
    assert fingerprint(f, "print(x)") != fingerprint(f, "print(y)")
    assert fingerprint(f, "print(x)") != fingerprint(f._replace(rule="other"), "print(x)")


def test_fingerprints_unique_for_identical_lines() -> None:
    texts = {("a.py", 1): "print(1)", ("a.py", 5): "print(1)"}
    merged = merge([F(line=1), F(line=5)], texts)
    assert len({f.fingerprint for f in merged}) == 2
    again = merge([F(line=5), F(line=1)], texts)
    assert [f.fingerprint for f in merged] == [f.fingerprint for f in again]


def test_upstream_fingerprint_is_kept() -> None:
    f = F(source="secrets", rule="secret/x")._replace(fingerprint="abc")
    assert merge([f])[0].fingerprint == "abc"


def test_sorted_by_path_then_line() -> None:
    got = merge([F("b.py", 1), F("a.py", 9), F("a.py", 2)])
    assert [(f.path, f.line) for f in got] == [("a.py", 2), ("a.py", 9), ("b.py", 1)]


def test_limit_keeps_most_severe_in_order_and_counts_rest() -> None:
    fs = [F("a.py", 1, "info"), F("a.py", 2, "error"), F("b.py", 1, "warning"),
          F("c.py", 1, "error")]
    shown, hidden = limit(fs, 2)
    assert [(f.path, f.severity) for f in shown] == [("a.py", "error"), ("c.py", "error")]
    assert hidden == 2
    everything, none = limit(fs, 0)  # 0: no limit
    assert none == 0 and [(f.path, f.line) for f in everything] == [
        ("a.py", 1), ("a.py", 2), ("b.py", 1), ("c.py", 1)]
    assert len(limit(fs, 10)[0]) == 4


def test_similar_wording() -> None:
    assert similar("Possible SQL injection in query", "SQL injection possible in the query")
    assert not similar("Possible SQL injection", "Unused import os")
    assert not similar("", "anything")


def test_line_texts_from_a_real_change(repo_with_commit: Repo) -> None:
    repo_with_commit.stage({"src/app.py": "def add(a, b):\n    print(a)\n    return a + b\n"})
    texts = line_texts(git.staged_change(repo_with_commit.path))
    assert texts[("src/app.py", 2)] == "    print(a)"
    assert texts[("src/app.py", 1)] == "def add(a, b):"


SEV = st.sampled_from(["error", "warning", "info"])
FINDINGS = st.lists(st.builds(
    F, path=st.sampled_from(["a.py", "b.py"]), line=st.integers(1, 5), sev=SEV,
    rule=st.sampled_from(["r1", "model/r1", "r2"]),
    msg=st.sampled_from(["print left", "unused import", "sql injection risk"]),
    source=st.sampled_from(["builtin", "model"])), max_size=25)


@given(FINDINGS)
def test_merge_is_idempotent_sorted_and_never_loses_a_place(fs: list[Finding]) -> None:
    once = merge(fs)
    assert [(f.path, f.line) for f in once] == sorted((f.path, f.line) for f in once)
    assert {(f.path, f.line) for f in once} == {(f.path, f.line) for f in fs}
    assert len({f.fingerprint for f in once}) == len(once)
    assert len(merge(once)) == len(once)


@given(FINDINGS, st.integers(1, 30))
def test_limit_accounts_for_every_finding(fs: list[Finding], n: int) -> None:
    shown, hidden = limit(fs, n)
    assert len(shown) + hidden == len(fs)
    assert len(shown) == min(n, len(fs))
    rest = Counter(fs) - Counter(shown)
    assert sum(rest.values()) == hidden
    rank = {"error": 3, "warning": 2, "info": 1}
    held = list(rest.elements())
    if any(f.source != "model" for f in held):  # ours are cut only when no model's is shown
        assert all(f.source != "model" for f in shown)
    for model in (False, True):  # within ours, and within the model's: the most severe kept
        kept = [rank[f.severity] for f in shown if (f.source == "model") == model]
        cut = [rank[f.severity] for f in held if (f.source == "model") == model]
        if kept and cut:
            assert min(kept) >= max(cut)


def test_a_model_never_changes_a_deterministic_finding_or_its_fingerprint() -> None:
    """Issue 22, 4: the fold keeps ours exactly; uniqueness serves ours first."""
    for source in ("builtin", "secrets"):
        ours = F(sev="info", rule="secret/x" if source == "secrets" else "debug-print",
                 source=source)._replace(fingerprint="a" * 16)
        for sev in ("error", "warning", "info"):
            theirs = F(sev=sev, rule="model/" + ours.rule, msg="something else entirely",
                       source="model")
            assert merge([theirs, ours]) == (ours,)
            assert merge([ours, theirs]) == (ours,)
    builtin = F(line=9)._replace(fingerprint="b" * 16)
    model = F(line=1, rule="model/other", source="model")._replace(fingerprint="b" * 16)
    out = unique([model, builtin])
    assert out[1].fingerprint == "b" * 16 and out[0].fingerprint != "b" * 16
