"""curator never repeats a secret: the masked form, and the test that matters most — a
store with one fresh random secret per family, run through every output format, the
findings store, the hook, `curator findings`, `curator review`, the event log, the LLM
sweep's requests and `curator fix`, and nothing curator printed or wrote holds a secret."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from curator.interpreter.rulebook import load_rules
from curator.store import masking
from curator.store.masking import WITHHELD, hide, mask, masked_form, shown
from curator.store.secrets import Family, Secret, Shape, find_secrets
from tests.conftest import Run, write_files
from tests.helpers.fake_messages_api import FakeMessagesAPI, start, stop
from tests.helpers.hook_env import Env, fake_api_config, make_env
from tests.helpers.secret_store import password, pem_body, rand, secret_store

FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif", "junit")


@pytest.fixture(autouse=True, scope="module")
def _rules() -> None:
    load_rules()  # masking uses the loaded rule set's secrets rules


def test_the_masked_form_is_a_prefix_and_a_length() -> None:
    assert masked_form("ghp_" + "a1" * 18) == "ghp_…(40)"
    assert masked_form("hunter2024") == "hu…(10)"  # never more than a quarter of it
    token = "ghp_" + rand(36)
    assert mask(f"push with {token}, then tag") == "push with ghp_…(40), then tag"
    assert mask(mask(f"push with {token}")) == mask(f"push with {token}")


def test_a_key_block_keeps_its_line_count_and_the_caret_its_place() -> None:
    body = pem_body()
    text = f"Key:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nEnd\n"
    masked = mask(text)
    assert masked.count("\n") == text.count("\n") and body.splitlines()[1] not in masked
    token = "npm_" + rand(36)
    view = shown(f"a {token} b {token} c\n")
    assert view.lines[0] == "a npm_…(40) b npm_…(40) c"
    assert view.column(1, 3) == 3  # the first token, where it starts
    assert view.column(1, 44) == 13  # `b`, moved left by the first token's mask
    assert view.column(1, 46) == 15  # the second token
    assert view.column(1, 87) == 25  # `c`


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(FakeMessagesAPI())
    yield fake
    stop(fake)


@pytest.fixture
def env(
    tmp_path: Path,
    git_repo: Callable[..., Path],
    run_curator: Callable[..., Run],
    api: FakeMessagesAPI,
) -> Env:
    made = make_env(tmp_path, git_repo({"README.md": "x\n"}), run_curator)
    for old in made.store.iterdir():
        old.unlink()
    made.config(fake_api_config(api.base_url))
    return made


def test_no_output_finding_event_prompt_or_fix_repeats_a_secret(
    env: Env, api: FakeMessagesAPI
) -> None:
    made = secret_store()
    write_files(env.store, made.files)
    key = {"ANTHROPIC_API_KEY": "test-key"}
    printed: list[str] = []

    def curator(*args: str, input: str | None = None, **extra: str) -> Run:
        result = env._run(*args, cwd=env.repo, env=env.env(**extra), input=input)
        assert result.code in (0, 1), (args, result.stderr)
        printed.extend((result.stdout, result.stderr))
        return result

    for fmt in FORMATS:
        curator("lint", "--output-format", fmt)
    out = curator("lint", "--output-format", "json", "--select", "CUR5", "--persist")
    reported = {d["detail"]["masked"] for d in out.json()}
    assert reported == {masked_form(s) for s in made.secrets}  # every secret, masked
    curator("scan", **key)
    assert api.count > 0  # the LLM sweep did ask, with the memories in its prompts
    hook = curator("hook", "session-start", input='{"session_id": "s-1", "source": "startup"}')
    assert "secret-token" in hook.stdout
    listed = curator("findings", "list", "--output-format", "json").json()
    ids = [f["id"] for f in listed]
    assert {f["code"] for f in listed} >= {"CUR501", "CUR502", "CUR503", "CUR504"}
    curator("findings", "list")
    curator("findings", "show", *ids)
    curator("findings", "show", *ids, "--output-format", "json")
    review = curator("review", input="d\n" * len(ids))
    assert "review finished" in review.stdout
    diff = curator("fix")
    assert "<redacted: rotate this credential>" in diff.stdout
    curator("fix", "--apply")
    curator("lint", "--persist")  # resolves them: resolution events
    curator("fix", "--undo")

    written = [p.read_bytes() for p in env.onlooker.rglob("*") if p.is_file()]
    assert env.events_log.exists() and any(b"secret_token" in w for w in written)
    sent = [str(request) for request in api.requests]
    assert any(masked_form(s) in "".join(sent) for s in made.secrets)  # bodies went, masked
    texts = [t.encode() for t in printed + sent] + written
    for secret in [*made.secrets, *made.fragments]:
        leaks = [t[:200] for t in texts if secret.encode() in t]
        assert leaks == [], f"{masked_form(secret)} leaked"
    # The memories themselves no longer hold them either (redacted, then undone masked).
    for path in env.store.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not [s for s in [*made.secrets, *made.fragments] if s in text], path.name


def test_the_password_generator_never_draws_a_placeholder() -> None:
    # `%Ab12%` is `%VAR%` to the rules: 2 draws in 400 once made the tests flaky.
    drawn = [password() for _ in range(3000)]
    assert not [p for p in drawn if re.fullmatch(r"%[A-Za-z_]\w*%", p)]


def test_a_scan_that_times_out_shows_the_withheld_form() -> None:
    # A shape that backtracks for ever on a run of `a`: the scan ends at its timeout.
    slow = Shape("slow", r"(?P<secret>(?:a|aa)+b)", ("aaaa",))
    masking.use([Family("token", "CUR599", (slow,))])
    try:
        for text in ("a" * 64 + " short", "a" * 4000 + " long"):  # cached, and not
            assert mask(text) == WITHHELD
            assert shown(text).text == WITHHELD
    finally:
        load_rules()


def test_two_secrets_that_touch_are_both_masked() -> None:
    first, second = "ghp_" + rand(36), "npm_" + rand(36)
    text = f"x {first}{second} y"
    start = text.index(first)
    found = [
        Secret(start, start + 40, first, "t", "token", "CUR501", "", {}),
        Secret(start + 40, start + 80, second, "t", "token", "CUR501", "", {}),
    ]
    assert hide(text, found) == "x ghp_…(40)npm_…(40) y"


@pytest.mark.parametrize("host", ["mylocalhost", "dbhost", "notexample.com"])
def test_a_host_that_only_ends_like_a_placeholder_host_is_real(host: str) -> None:
    secret = password()
    url = f"postgres://admin:{secret}@{host}:5432/app"
    assert [s.code for s in find_secrets(url, masking.detector())] == ["CUR502"]
    assert secret not in mask(url)
