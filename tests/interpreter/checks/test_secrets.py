"""CUR501-CUR504 as a user meets them: every family is an error, look-alikes are silent,
a finding is the same leak across runs and a new one when the credential is rotated, and
`curator fix` redacts it without ever printing it."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Run, memory, write_files
from tests.helpers.secret_store import HEX, password, rand, secret_store

TODAY = "2026-06-01"


def lint(run: Callable[..., Run], store: Path, *extra: str, **kw: object) -> Run:
    return run("lint", str(store), "--output-format", "json", "--today", TODAY, *extra, **kw)


def test_every_family_is_an_error_and_no_lookalike_is(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    made = secret_store()
    store = write_files(tmp_path / "memory", made.files)
    result = lint(run_curator, store, "--select", "CUR5", "--fail-on", "error")
    assert result.code == 1, result.stderr
    found = result.json()
    assert {d["severity"] for d in found} == {"error"}
    assert not [d for d in found if Path(d["filename"]).name == "reference_lookalikes.md"]
    assert len(made.lookalikes) >= len(made.secrets)
    # Each secret is reported once, by its family's rule, where it sits.
    by_place = {}
    for d in found:
        text = Path(d["filename"]).read_text(encoding="utf-8")
        line = text.splitlines()[d["location"]["row"] - 1]
        by_place[(d["code"], d["filename"], d["location"]["row"])] = line
    for secret, code in made.secrets.items():
        first = secret[:64]  # a key block is reported at its first line
        assert [c for (c, _, _), line in by_place.items() if first in line] == [code], secret[:4]
    assert len(found) == len(made.secrets)


def test_the_message_says_what_it_is_masked_and_to_rotate(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    token = "ghp_" + rand(36)
    store = write_files(tmp_path / "memory", {"reference_gh.md": memory(f"Push with {token}.\n")})
    (d,) = lint(run_curator, store, "--select", "CUR501").json()
    assert d["message"] == (
        f"GitHub token in plain text ({token[:4]}…(40)): redact it and rotate the credential, "
        "git history keeps it"
    )
    assert (d["location"], d["end_location"]) == (
        {"row": 6, "column": 11},
        {"row": 6, "column": 51},
    )
    assert d["detail"]["masked"] == f"{token[:4]}…(40)"
    assert len(d["detail"]["secret_hash"]) == 16 and token not in json.dumps(d)


def test_a_suppression_comment_silences_one_secret(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    body = (
        f"<!-- curator-disable-next-line CUR503 -->\npassword: {password()}\ntoken: {password()}\n"
    )
    store = write_files(tmp_path / "memory", {"reference_a.md": memory(body)})
    found = lint(run_curator, store, "--select", "CUR503").json()
    assert [(d["code"], d["location"]["row"]) for d in found] == [("CUR503", 8)]


def _findings(run: Callable[..., Run], store: Path) -> list[dict[str, object]]:
    out = run("findings", "list", "--status", "all", "--store", str(store), "--output-format",
              "json")  # fmt: skip
    assert out.code == 0, out.stderr
    found: list[dict[str, object]] = out.json()
    return found


def test_the_same_leak_is_one_finding_and_a_rotated_credential_a_new_one(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    old, new = rand(32, HEX), rand(32, HEX)
    path = tmp_path / "memory" / "reference_gitee.md"
    store = write_files(tmp_path / "memory", {path.name: memory(f"- **Token**: {old}\n")})
    lint(run_curator, store, "--select", "CUR503", "--persist")
    (first,) = _findings(run_curator, store)
    # Moved two lines down: the same leak, the same finding.
    path.write_text(memory(f"Gitee access.\n\n- **Token**: {old}\n"), encoding="utf-8")
    lint(run_curator, store, "--select", "CUR503", "--persist")
    (again,) = _findings(run_curator, store)
    assert (again["id"], again["status"], again["line"]) == (first["id"], "open", 8)
    # Rotated: the old finding is resolved, the new credential is a new finding.
    path.write_text(memory(f"Gitee access.\n\n- **Token**: {new}\n"), encoding="utf-8")
    lint(run_curator, store, "--select", "CUR503", "--persist")
    statuses = {f["id"]: f["status"] for f in _findings(run_curator, store)}
    assert statuses.pop(first["id"]) == "resolved"
    assert list(statuses.values()) == ["open"]


def test_the_hash_is_salted_per_installation(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    token = "npm_" + rand(36)
    store = write_files(tmp_path / "memory", {"reference_npm.md": memory(f"{token}\n")})
    hashes = []
    for home in ("one", "one", "two"):
        onlooker = tmp_path / home
        (d,) = lint(run_curator, store, "--select", "CUR501",
                    env={"ONLOOKER_DIR": str(onlooker)}).json()  # fmt: skip
        hashes.append(d["detail"]["secret_hash"])
        salt = onlooker / "curator" / "secret_salt"
        assert stat.S_IMODE(os.stat(salt).st_mode) == 0o600
        assert len(salt.read_text().strip()) == 64
    assert hashes[0] == hashes[1] != hashes[2]


def test_fix_redacts_the_secret_shows_it_masked_and_says_to_rotate(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    token, pw = "sk_live_" + rand(24), password()
    text = memory(f"Stripe: {token} and the db password: {pw}\nKeep it short.\n")
    store = write_files(tmp_path / "memory", {"reference_pay.md": text})
    shown = run_curator("fix", str(store), "--today", TODAY)
    assert shown.code == 1
    redacted = "<redacted: rotate this credential>"
    changed = [
        line for line in shown.stdout.splitlines() if line[:1] in "-+" and line[1:2] != line[:1]
    ]
    assert changed == [
        f"-Stripe: sk_l…(32) and the db password: {pw[:3]}…(14)",
        f"+Stripe: {redacted} and the db password: {redacted}",
    ]
    assert token not in shown.stdout + shown.stderr and pw not in shown.stdout
    applied = run_curator("fix", str(store), "--apply")
    assert applied.code == 0, applied.stderr
    assert "redact the Stripe live key (sk_l…(32)); rotate the credential" in applied.stdout
    after = (store / "reference_pay.md").read_text(encoding="utf-8")
    assert after == memory(f"Stripe: {redacted} and the db password: {redacted}\nKeep it short.\n")
    assert lint(run_curator, store, "--select", "CUR5").json() == []
    # The journal keeps the file as it was, with the secrets masked: no copy of them.
    (journal,) = (tmp_path / "onlooker" / "curator").glob("*/journal")
    kept = b"".join(p.read_bytes() for p in journal.rglob("*") if p.is_file())
    assert token.encode() not in kept and pw.encode() not in kept and b"sk_l" in kept
    undone = run_curator("fix", str(store), "--undo")
    assert "secrets stay masked" in undone.stdout
    restored = (store / "reference_pay.md").read_text(encoding="utf-8")
    assert "sk_l…(32)" in restored and token not in restored


def test_passwords_pasted_as_prose_are_found_masked_and_placeholders_are_not(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    pair, dashed, spaced = (
        "Vq7pLm2xRt4z",
        "orbit-lantern-mosaic-thimble",
        "ember walnut quiver saddle",
    )
    body = (
        f"Admin: `/admin/` — ops@shop.test / {pair}\n"
        f"GPG passphrase: {dashed}\n"
        f"Signing passphrase: `{spaced}`\n"
        "Staging: ops@example.com / <password>; login: admin / ${ADMIN_PASSWORD}\n"
        "passphrase: ${SIGNING_PASSPHRASE}; the password is stored in the team vault\n"
        "Backup passphrase: stored with team vault\n"
        "Password `op://Private/db/password` and reports in `personal/ops@shop.test/asa_weekly_v2/`\n"
    )
    store = write_files(tmp_path / "memory", {"project_deploy.md": memory(body)})
    found = lint(run_curator, store, "--select", "CUR503").json()
    assert [(d["location"]["row"], d["message"].split(": redact")[0]) for d in found] == [
        (6, "the password of 'ops@shop.test' is written in plain text (Vq7…(12))"),
        (7, "'passphrase' is set to a secret in plain text (orbi…(28))"),
        (8, "'passphrase' is set to a secret in plain text (embe…(26))"),
    ]
    shown = lint(run_curator, store, "--select", "CUR503").stdout
    text = run_curator("lint", str(store), "--today", TODAY, "--select", "CUR503")
    for value in (pair, dashed, spaced):
        assert value not in shown and value not in text.stdout + text.stderr
