"""Replies as real models and servers send them, over real HTTP on 127.0.0.1.

One test per row of issue 11's table: each asserts the finding kept at its path:line, or
one clear warning, and the number of requests sent.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from review_agent.models import make_adapter
from review_agent.models.base import ModelReply, ModelSettings
from review_agent.models.ollama import OllamaModel, ollama_root
from review_agent.models.openai import OpenAIModel
from review_agent.records import ContextBundle, ContextFile, DiffLine, Excerpt, Finding
from review_agent.secrets import KnownSecrets
from review_agent.secrets.examples import fill
from tests.model_server import (
    ModelServer,
    Recorded,
    Reply,
    content,
    envelope,
    findings,
    ollama_responder,
    sse,
    status,
    truncated,
)

PROMPT = "You are the reviewer."
GOOD = {"path": "src/app.py", "line": 2, "severity": "warning", "rule": "debug-print",
        "message": "print() left in"}
GOOD_JSON = json.dumps({"findings": [GOOD]})


def cfile(path: str = "src/app.py", lines: int = 3, text: str = "print(x)") -> ContextFile:
    ex = Excerpt("def f():", tuple(DiffLine("+", None, i + 1, f"    {text}  # {path} {i}")
                                   for i in range(lines)))
    return ContextFile(path, None, "M", "python", (ex,))


def bundle(*files: ContextFile) -> ContextBundle:
    return ContextBundle(files or (cfile(),), (), 100, 200_000, (), 0)


def review(srv: ModelServer, b: ContextBundle | None = None, **kw: Any) -> ModelReply:
    settings = ModelSettings(**{"base_url": srv.base_url, "timeout": 10.0, "cache": False,
                                **kw})
    m = make_adapter("openai:test-model", settings)
    assert isinstance(m, OpenAIModel)
    return m.review(PROMPT, b or bundle())


def one_part_paths(n: int, stem: str = "src/m") -> list[str]:
    """n paths of small files: a bundle of them fits the budget, so it is one part."""
    return [f"{stem}{i:02}.py" for i in range(n)]


def kept(reply: ModelReply) -> list[tuple[str, int]]:
    return [(f.path, f.line) for f in reply.findings]


@pytest.mark.parametrize("text", [
    "<think>The print on line 2 is a leftover. {not json}</think>\n" + GOOD_JSON,
    "<think>\nreasoning without an end tag is dropped too" + "</think>" + GOOD_JSON,
    "thinking the template already opened</think>\n\n" + GOOD_JSON,
])
def test_reasoning_block_then_bare_json(text: str) -> None:
    with ModelServer(content(text)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and not reply.failed
    assert len(srv.requests) == 1


def test_reasoning_content_field_is_not_the_answer() -> None:
    msg = {"reasoning_content": '{"findings": [{"path": "x.py", "line": 9}]}',
           "content": GOOD_JSON}
    with ModelServer(envelope(msg)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1


@pytest.mark.parametrize("text", [
    "Here is my review:\n" + GOOD_JSON + "\nLet me know if you need more.",
    "```json " + GOOD_JSON + "```",
    "Sure! ```" + GOOD_JSON + "``` Hope it helps.",
    "Review:\n\n```json\n" + json.dumps({"findings": [GOOD]}, indent=2) + "\n```\n",
])
def test_chatter_and_one_line_fences(text: str) -> None:
    with ModelServer(content(text)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1


def test_other_key_names_and_an_unknown_severity_are_read_and_noted() -> None:
    items = [
        {"file": "src/app.py", "line_number": 1, "severity": "important", "description": "a"},
        {"filename": "src/app.py", "start_line": "2", "message": "b"},
        {"file_path": "src/app.py", "line": "3-4", "message": "c", "severity": "low"},
    ]
    with ModelServer(content(json.dumps({"findings": items}))) as srv:
        reply = review(srv, bundle(cfile(lines=4)))
    assert [(f.path, f.line, f.end_line, f.severity) for f in reply.findings] == [
        ("src/app.py", 1, 1, "warning"), ("src/app.py", 2, 2, "warning"),
        ("src/app.py", 3, 4, "info")]
    assert reply.warnings == (
        "model openai:test-model: 1 model findings with an unknown severity read as warning",)
    assert len(srv.requests) == 1


@pytest.mark.parametrize("value", [
    {"review": {"findings": [GOOD]}},
    {"issues": [GOOD]},
    {"results": [GOOD]},
    {"comments": [GOOD]},
    [GOOD],
    GOOD,
    {"findings": GOOD},
])
def test_other_reply_shapes(value: Any) -> None:
    with ModelServer(content(json.dumps(value))) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1


@pytest.mark.parametrize("text", [
    '{"findings": [{"path": "src/app.py", "line": 2, "message": "print() left in",},],}',
    '{\n  // the print\n  "findings": [{"path": "src/app.py", /* new side */ "line": 2,\n'
    '   "message": "print() left in // not a comment inside a string"}]\n}',
])
def test_trailing_commas_and_comments_are_repaired(text: str) -> None:
    with ModelServer(content(text)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1
    if "//" in text:  # a comment marker inside a string is text, not a comment
        assert "not a comment inside a string" in reply.findings[0].message


def test_a_finding_off_the_change_still_goes_to_grounding() -> None:
    from review_agent.models.grounding import ground
    from review_agent.records import Change, FileChange, Hunk

    reply_text = json.dumps([{"file": "src/app.py", "line_number": 2, "message": "m"},
                             {"file": "src/app.py", "line_number": 90, "message": "m"},
                             {"file": "src/other.py", "line_number": 2, "message": "m"}])
    with ModelServer(content(reply_text)) as srv:
        reply = review(srv)
    hunk = Hunk(1, 0, 1, 3, tuple(DiffLine("+", None, n, "x") for n in (1, 2, 3)),
                ((1, ("x", "x", "x")),))
    fc = FileChange("src/app.py", None, "M", False, "100644", "100644", "a" * 40, "b" * 40,
                    (hunk,), 3, 0)
    change = Change("base", "head", (fc,))
    found, dropped = ground(list(reply.findings), change)
    assert [(f.path, f.line) for f in found] == [("src/app.py", 2)] and dropped == 2


# -- response format negotiation ------------------------------------------------------


def refusing(accepted: set[str], message: str, code: int = 400
             ) -> Any:
    def respond(rec: Recorded) -> Reply:
        fmt = rec.body.get("response_format") or {}
        kind = fmt.get("type", "none") + ("+schema" if "schema" in fmt else "")
        if kind not in accepted:
            return status(code, body=json.dumps({"error": {"message": message}}))
        return content(GOOD_JSON)
    return respond


def test_lm_studio_takes_the_json_schema_at_once() -> None:
    srv_reply = refusing({"json_schema", "text", "none"},
                         "'response_format.type' must be 'json_schema' or 'text'")
    with ModelServer(responder=srv_reply) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1


@pytest.mark.parametrize("code", [400, 422, 500])
def test_refused_formats_fall_back_and_are_remembered_per_base_url(code: int) -> None:
    srv_reply = refusing({"none"}, "response_format is not supported by this server", code)
    with ModelServer(responder=srv_reply) as srv:
        first = review(srv)
        kinds = [(r.body.get("response_format") or {}).get("type") for r in srv.requests]
        assert kinds == ["json_schema", "json_object", "json_object", None]
        assert "schema" in srv.requests[1].body["response_format"]  # llama-cpp-python's form
        assert "schema" not in srv.requests[2].body["response_format"]
        second = review(srv)  # a new adapter, the same base URL: asks the way that worked
    assert kept(first) == kept(second) == [("src/app.py", 2)]
    assert first.warnings == second.warnings == ()
    assert len(srv.requests) == 5


def test_llama_cpp_python_gets_the_schema_inside_json_object() -> None:
    # its 500 when asked for json_schema, word for word (pydantic's literal_error)
    refusal = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
               "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}")
    srv_reply = refusing({"json_object+schema", "json_object", "text", "none"}, refusal, 500)
    with ModelServer(responder=srv_reply) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 2
    assert srv.requests[1].body["response_format"]["schema"]["required"] == ["findings"]


def test_json_object_is_kept_when_only_the_schema_is_refused() -> None:
    srv_reply = refusing({"json_object"}, "json_schema: unsupported schema keyword")
    with ModelServer(responder=srv_reply) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 3


def test_temperature_refused_by_a_reasoning_model_is_dropped_once() -> None:
    def respond(rec: Recorded) -> Reply:
        if "temperature" in rec.body:
            return status(400, body=json.dumps({"error": {
                "message": "Unsupported value: 'temperature' does not support 0 with this "
                           "model. Only the default (1) value is supported.",
                "param": "temperature", "code": "unsupported_value"}}))
        return content(GOOD_JSON)

    with ModelServer(responder=respond) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 2


def test_max_tokens_refused_by_a_reasoning_model_becomes_max_completion_tokens() -> None:
    def respond(rec: Recorded) -> Reply:
        if "max_tokens" in rec.body:
            return status(400, body=json.dumps({"error": {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this "
                           "model. Use 'max_completion_tokens' instead.",
                "param": "max_tokens", "code": "unsupported_parameter"}}))
        return content(GOOD_JSON)

    with ModelServer(responder=respond) as srv:
        reply = review(srv, token_budget=8000)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 2
    assert srv.requests[1].body["max_completion_tokens"] == 2000


def test_team_replies_ask_for_a_loose_schema_not_the_findings_one() -> None:
    art = {"kind": "test", "path": "tests/test_x.py", "content": "x", "summary": "s"}
    with ModelServer(content(json.dumps(art))) as srv:
        m = make_adapter("openai:x", ModelSettings(base_url=srv.base_url, cache=False))
        assert m.propose("test_engineer", "Write a test.", {"task": "t"})["kind"] == "test"
    fmt = srv.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is False
    assert fmt["json_schema"]["schema"]["required"] == ["kind", "content", "summary"]


def test_stream_false_and_max_tokens_are_sent() -> None:
    with ModelServer(content(GOOD_JSON)) as srv:
        review(srv, token_budget=8000)
    body = srv.requests[0].body
    assert body["stream"] is False and body["max_tokens"] == 2000


# -- tool calls, parts, streams ------------------------------------------------------------


def test_content_null_with_tool_calls() -> None:
    msg = {"content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
        "name": "report_findings", "arguments": GOOD_JSON}}]}
    with ModelServer(envelope(msg, "tool_calls")) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1


def test_content_as_a_list_of_parts() -> None:
    half = len(GOOD_JSON) // 2
    msg = {"content": [{"type": "text", "text": GOOD_JSON[:half]},
                       {"type": "text", "text": GOOD_JSON[half:]}]}
    with ModelServer(envelope(msg)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1


def test_sse_only_server_is_read() -> None:
    with ModelServer(sse(GOOD_JSON)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 1
    assert srv.requests[0].body["stream"] is False


# -- retry only what can change ------------------------------------------------------------


def test_a_parse_error_gets_one_corrective_retry() -> None:
    with ModelServer(content("The code looks fine to me."), content(GOOD_JSON)) as srv:
        reply = review(srv)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 2
    follow_up = srv.requests[1].body["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "user"]
    assert follow_up[2]["content"] == "The code looks fine to me."
    assert "JSON" in follow_up[3]["content"] and "schema" in follow_up[3]["content"]


def test_the_corrective_retry_sends_the_reply_back_redacted() -> None:
    """The model's malformed reply goes back in the retry through the wire pass as every
    other message does: a credential in it (here one of the change's known values, and a
    provider's key) is sent as its placeholder, never as itself."""
    rng = random.Random(4)
    key_id, password = fill("AKIA{Z16}", rng), fill("Tq{N10}!x{N6}", rng)
    known = KnownSecrets()
    known.add_values({password: "[REDACTED:generic-password-assignment:000000]"})
    malformed = f"Line 2 sends {key_id} and {password} to the server. Fix that."
    with ModelServer(content(malformed), content(GOOD_JSON)) as srv:
        reply = review(srv, known_secrets=known)
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 2
    resent = srv.requests[1].body["messages"][2]
    assert resent["role"] == "assistant" and resent["content"].startswith("Line 2 sends [REDACTED:")
    assert not [v for v in (key_id, password) if v in srv.requests[1].raw.decode()]


def test_two_parse_errors_are_one_warning_after_two_requests() -> None:
    with ModelServer(default=content("Looks good!")) as srv:
        reply = review(srv)
    assert reply.failed and len(srv.requests) == 2 and reply.requests == 2
    assert len(reply.warnings) == 1 and "malformed reply" in reply.warnings[0]


def test_reasoning_only_reply_is_one_warning_after_two_requests() -> None:
    with ModelServer(default=content("<think>Let me look at line 2. The print")) as srv:
        reply = review(srv)
    assert reply.failed and len(srv.requests) == 2
    assert reply.warnings == (
        f"model openai:test-model failed: malformed reply from {srv.base_url}/chat/completions:"
        " reply holds only reasoning, no answer",)


def test_truncated_reply_splits_the_part_in_half_once() -> None:
    a, b = one_part_paths(2)
    two = bundle(cfile(a), cfile(b))
    good = json.dumps({"findings": [{**GOOD, "path": a}]})

    def respond(rec: Recorded) -> Reply:
        if f"# {a} " in rec.user and f"# {b} " in rec.user:
            return truncated('{"findings": [{"path": "src/app.py", "li')
        if f"# {a} " in rec.user:
            return content(good)
        return findings()

    with ModelServer(responder=respond) as srv:
        reply = review(srv, two)
    assert kept(reply) == [(a, 2)] and not reply.failed
    assert len(srv.requests) == 3
    assert reply.warnings == ("model openai:test-model: reply truncated (finish_reason length):"
                              " a part was split in half",)


def test_truncated_again_after_the_split_is_one_warning() -> None:
    with ModelServer(default=truncated('{"findings": [')) as srv:
        reply = review(srv, bundle(*(cfile(p) for p in one_part_paths(2))))
    assert reply.failed and len(srv.requests) == 3  # the part, then each half once
    assert "truncated" in reply.warnings[0] and "already split in half once" in reply.warnings[0]


def test_reasoning_that_runs_out_of_tokens_is_truncated_not_retried() -> None:
    with ModelServer(default=truncated("<think>First, the print on line 2")) as srv:
        reply = review(srv)
    assert reply.failed and len(srv.requests) == 1
    assert "truncated" in reply.warnings[0] and "too small to split" in reply.warnings[0]


def context_limited(limit_bytes: int, answer: Any) -> Any:
    """An 8k-context server: a 400 like llama.cpp's or OpenAI's when the prompt is too long."""
    def respond(rec: Recorded) -> Reply:
        if len(rec.raw) > limit_bytes:
            return status(400, body=json.dumps({"error": {
                "message": "prompt is too long for this model",
                "type": "invalid_request_error", "code": "context_length_exceeded"}}))
        return answer(rec)
    return respond


def test_context_length_400_splits_and_retries() -> None:
    paths = one_part_paths(6)
    files = [cfile(p, lines=100) for p in paths]

    def answer(rec: Recorded) -> Reply:
        if f"# {paths[3]} " in rec.user:
            return findings({"path": paths[3], "line": 7, "message": "m"})
        return findings()

    with ModelServer(responder=context_limited(20_000, answer)) as srv:
        reply = review(srv, bundle(*files), token_budget=64_000)
    assert kept(reply) == [(paths[3], 7)] and not reply.failed
    refused = [r for r in srv.requests if len(r.raw) > 20_000]
    assert refused and len(srv.requests) > len(refused)
    sent = "".join(r.user for r in srv.requests if len(r.raw) <= 20_000)
    assert all(f"# {p} 99" in sent for p in paths)
    assert any("over the server's context" in w for w in reply.warnings)


def small_window(tokens: int, message: str) -> Any:
    """A server with a `tokens` context that states it in its error (bytes / 4 as tokens)."""
    def respond(rec: Recorded) -> Reply:
        asked = len(rec.raw) // 4 + int(rec.body.get("max_tokens", 0))
        if asked > tokens:
            return status(400, body=json.dumps({"error": {
                "code": 400, "message": message, "type": "exceed_context_size_error",
                "n_prompt_tokens": asked, "n_ctx": tokens}}))
        return findings()
    return respond


@pytest.mark.parametrize("message", [
    "the request exceeds the available context size, try increasing it",  # llama.cpp (n_ctx)
    "Requested tokens (9768) exceed context window of 4096",  # llama-cpp-python
    "This model's maximum context length is 4096 tokens. However, you requested 9768 tokens",
])
def test_a_stated_context_size_resizes_the_parts(message: str) -> None:
    paths = one_part_paths(8)
    files = [cfile(p, lines=60) for p in paths]
    with ModelServer(responder=small_window(4096, message)) as srv:
        reply = review(srv, bundle(*files), token_budget=12_000, workers=1)
    assert not reply.failed, reply.warnings
    refused = [r for r in srv.requests if len(r.raw) // 4 + r.body["max_tokens"] > 4096]
    assert len(refused) == 1  # learnt once, then every part is cut to the window
    assert all(r.body["max_tokens"] == 1024 for r in srv.requests[1:])
    sent = "".join(r.user for r in srv.requests[1:])
    assert all(f"# {p} 59" in sent for p in paths)
    assert reply.warnings == ("model openai:test-model: the server's context is 4096 tokens, "
                              "smaller than the token budget 12000: parts resized (set "
                              "token_budget to 4096 to skip this)",)


@pytest.mark.parametrize("header", [("llm_provider-retry-after", "1"),
                                    ("retry-after-ms", "600"),
                                    ("x-ratelimit-reset-requests", "0.6s")])
def test_429_wait_headers_are_honoured(header: tuple[str, str]) -> None:
    with ModelServer(status(429, header, ("x-ratelimit-remaining-requests", "0")),
                     content(GOOD_JSON)) as srv:
        started = time.monotonic()
        reply = review(srv)
        elapsed = time.monotonic() - started
    assert kept(reply) == [("src/app.py", 2)] and len(srv.requests) == 2
    assert elapsed >= 0.55  # waited as told before asking again


def test_429_longer_than_the_time_left_gives_up_at_once() -> None:
    with ModelServer(default=status(429, ("llm_provider-retry-after", "30"))) as srv:
        reply = review(srv, timeout=3.0)
    assert reply.failed and len(srv.requests) == 1
    # said only when the wait is refused before it starts (http.call_with_retries)
    assert "exceeds the time left" in reply.warnings[0]


def test_insufficient_quota_is_final() -> None:
    body = json.dumps({"error": {"message": "You exceeded your current quota.",
                                 "type": "insufficient_quota", "code": "insufficient_quota"}})
    with ModelServer(default=status(429, ("Retry-After", "1"), body=body)) as srv:
        reply = review(srv)
    assert reply.failed and len(srv.requests) == 1
    assert "quota" in reply.warnings[0]


def test_404_without_v1_suggests_adding_it() -> None:
    with ModelServer(default=status(404, body="File Not Found")) as srv:
        m = make_adapter("openai:x", ModelSettings(base_url=f"http://127.0.0.1:{srv.port}",
                                                   timeout=5.0, cache=False))
        reply = m.review(PROMPT, bundle())
    assert reply.failed and len(srv.requests) == 1
    assert reply.warnings[0].endswith(f"has no /v1 (try http://127.0.0.1:{srv.port}/v1)")


# -- the prompt a small model follows ----------------------------------------------------


def test_no_copyable_example_values_reach_the_model() -> None:
    with ModelServer(content(GOOD_JSON)) as srv:
        m = make_adapter("openai:x", ModelSettings(base_url=srv.base_url, cache=False))
        from review_agent.team.prompts import load_library, render

        system = render(load_library()["reviewer"], role="reviewer", task="t",
                        task_type="review", trigger_source="pre_commit",
                        brief={"goal": "g", "acceptance_criteria": []},
                        iteration=1, max_iterations=1, repository_rules="")
        m.review(system, bundle())
    sent = srv.requests[0].system + srv.requests[0].user
    for copyable in ("src/util.py", "short-kebab-id", '"line": 12', "src/app.py:12",
                     '"message": "one sentence', '"path": "src/'):
        assert copyable not in sent
    user = srv.requests[0].user
    assert user.rstrip().endswith('reply {"findings": []}.')  # the contract comes last
    assert user.index("FILE") < user.index("Reply with one JSON object")


def test_builtin_findings_are_listed_as_already_reported() -> None:
    known = [Finding("src/app.py", 2, 2, "warning", "debug-print", "print() left in",
                     "builtin"),
             Finding("src/app.py", 3, 3, "error", "secrets/aws-access-key",
                     "AWS key AKIA…XYZ", "secrets"),
             Finding("src/elsewhere.py", 1, 1, "info", "todo", "TODO left", "builtin")]
    with ModelServer(content(GOOD_JSON)) as srv:
        m = make_adapter("openai:x", ModelSettings(base_url=srv.base_url, cache=False))
        m.review(PROMPT, bundle(), known)
    user = srv.requests[0].user
    assert 'Already reported by the builtin checks' in user
    assert '"src/app.py" line 2 [debug-print]: print() left in' in user
    assert '"src/app.py" line 3 [secrets/aws-access-key]: a secret' in user
    assert "AKIA" not in user and "src/elsewhere.py" not in user  # only the part's files


# -- Ollama ----------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "root"), [
    ("127.0.0.1", "http://127.0.0.1:11434"),
    ("127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("http://gpu-box", "http://gpu-box"),
    ("https://ollama.example.invalid:8443/", "https://ollama.example.invalid:8443"),
    ("0.0.0.0:11434", "http://127.0.0.1:11434"),
    ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434"),
    ("[::1]:9000", "http://[::1]:9000"),
    (":11500", "http://127.0.0.1:11500"),
])
def test_ollama_host_as_ollama_reads_it(given: str, root: str) -> None:
    assert ollama_root(None, {"OLLAMA_HOST": given}) == root


def test_ollama_base_url_settings_win_over_ollama_host() -> None:
    env = {"OLLAMA_HOST": "10.9.9.9", "REVIEW_AGENT_BASE_URL": "http://127.0.0.1:7000/v1"}
    assert ollama_root(None, env) == "http://127.0.0.1:7000"
    assert ollama_root("http://127.0.0.1:7001", env) == "http://127.0.0.1:7001"


def test_ollama_sizes_the_budget_from_the_model_context(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    shows: list[Recorded] = []

    def answer(rec: Recorded) -> str:
        if "src/m2.py" in rec.body["messages"][1]["content"]:
            return json.dumps({"findings": [{"path": "src/m2.py", "line": 3, "message": "m"}]})
        return '{"findings": []}'

    files = [cfile(f"src/m{i}.py", lines=80) for i in range(4)]
    with ModelServer(responder=ollama_responder(2048, answer, shows)) as srv:
        monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{srv.port}")
        m = make_adapter("ollama:qwen2.5-coder:7b", ModelSettings(timeout=10.0, cache=False))
        assert isinstance(m, OllamaModel)
        reply = m.review(PROMPT, bundle(*files))
    assert kept(reply) == [("src/m2.py", 3)] and not reply.failed, reply.warnings
    assert len(shows) == 1 and shows[0].body == {"model": "qwen2.5-coder:7b"}
    chats = [r for r in srv.requests if r.path == "/api/chat"]
    assert len(chats) > 1  # 4 x 80 lines do not fit a 2048-token window at once
    for rec in chats:
        assert rec.body["options"]["num_ctx"] == 2048 and rec.body["keep_alive"]
        assert rec.body["stream"] is False and rec.body["options"]["temperature"] == 0
        assert len(rec.raw) < 2048 * 4  # about 4 bytes a token: the request fits the window
    assert reply.tokens_sent == 100 * len(chats) and reply.tokens_received == 20 * len(chats)


def test_ollama_budget_is_capped_by_the_configured_budget(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    with ModelServer(responder=ollama_responder(131072, lambda r: '{"findings": []}')) as srv:
        m = make_adapter("ollama:llama3", ModelSettings(base_url=f"127.0.0.1:{srv.port}",
                                                        token_budget=6000, cache=False))
        reply = m.review(PROMPT, bundle())
    assert not reply.failed
    assert [r.body["options"]["num_ctx"] for r in srv.requests if r.path == "/api/chat"] == [
        6000]


def test_ollama_without_api_show_assumes_its_default_context() -> None:
    def respond(rec: Recorded) -> Reply:
        if rec.path == "/api/show":
            return status(404, body='{"error": "model \'nope\' not found"}')
        return status(404, body='{"error": "model \'nope\' not found"}')

    with ModelServer(responder=respond) as srv:
        m = make_adapter("ollama:nope", ModelSettings(base_url=f"http://127.0.0.1:{srv.port}",
                                                      timeout=5.0, cache=False))
        reply = m.review(PROMPT, bundle())
    assert reply.failed and len(srv.requests) == 2
    assert "model 'nope' not found" in reply.warnings[0]
    assert any("assuming 4096 tokens" in w for w in reply.warnings)
