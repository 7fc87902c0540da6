"""A memory store with one fresh random secret of every family CUR5xx knows, and more
look-alikes than secrets. Every value is generated on the spot: never a real key."""

from __future__ import annotations

import base64
import secrets
import string
import uuid
from dataclasses import dataclass, field

from tests.conftest import memory

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"
# Words that mark a sample; a random value that happens to hold one would be silent.
SAMPLE_WORDS = ("example", "sample", "dummy", "placeholder", "redacted", "notreal", "your_",
                "xxxxxx", "000000", "123456", "abcdef", "changeme")  # fmt: skip


def rand(n: int, alphabet: str = ALNUM) -> str:
    while True:
        value = "".join(secrets.choice(alphabet) for _ in range(n))
        if not any(w in value.lower() for w in SAMPLE_WORDS):
            return value


def password(n: int = 14) -> str:
    """A random password with a digit and a symbol in it: letters alone in camel case
    read as a name (`accessToken`), and a test must not depend on the draw."""
    # Symbols a URL's password and an assignment's value both keep whole; never `%` first,
    # or `%Ab12%` would be drawn now and then, which the rules rightly read as `%VAR%`.
    while True:
        value = rand(n - 2, ALNUM + "%+!") + secrets.choice("23456789") + secrets.choice("%+")
        if not value.startswith("%"):
            return value


def pem_body() -> str:
    key = base64.b64encode(secrets.token_bytes(192)).decode()
    return "\n".join(key[i : i + 64] for i in range(0, len(key), 64))


@dataclass
class SecretStore:
    """Files to write into a store, the secrets in them and the code each one must get."""

    files: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)  # the secret -> its code
    fragments: list[str] = field(default_factory=list)  # the lines of a key, each secret too
    lookalikes: list[str] = field(default_factory=list)


def secret_store() -> SecretStore:
    """One memory per family (the secret on a known line), MEMORY.md with a secret too."""
    made = SecretStore()
    tokens = {
        "aws": "AKIA" + rand(16, B32),
        "github": "ghp_" + rand(36),
        "github_fine": f"github_pat_{rand(22)}_{rand(59)}",
        "gitlab": "glpat-" + rand(20, URLSAFE),
        "slack": f"xoxb-{rand(12, '0123456789')}-{rand(13, '0123456789')}-{rand(24)}",
        "slack_hook": f"T{rand(10, B32)}/B{rand(10, B32)}/{rand(24)}",
        "stripe": "sk_live_" + rand(24),
        "anthropic": f"sk-ant-api03-{rand(93, URLSAFE)}AA",
        "openai": "sk-proj-" + rand(64, URLSAFE),
        "google": "AIza" + rand(35, URLSAFE),
        "npm": "npm_" + rand(36),
        "pypi": "pypi-AgEIcHlwaS5vcmc" + rand(60, URLSAFE),
        "twilio": "SK" + rand(32, HEX),
        "sendgrid": f"SG.{rand(22, URLSAFE)}.{rand(43, URLSAFE)}",
        "jwt": f"eyJ{rand(30, URLSAFE)}.eyJ{rand(40, URLSAFE)}.{rand(43, URLSAFE)}",
    }
    for name, token in tokens.items():
        shown = f"https://hooks.slack.com/services/{token}" if name == "slack_hook" else token
        made.files[f"reference_{name}.md"] = memory(
            f"How we reach the {name} service.\nUse {shown} for it.\n", name=name, type="reference"
        )
        made.secrets[token] = "CUR501"

    password_ = password()
    made.files["reference_db.md"] = memory(
        f"Production: postgres://billing:{password_}@db.internal.acme.io:5432/billing\n",
        name="db",
        type="reference",
    )
    made.secrets[password_] = "CUR502"

    hex_token, pw = rand(32, HEX), password(12)
    made.files["reference_gitee.md"] = memory(
        f"- **Username**: deploy-bot\n- **Token**: {hex_token}\n- pw={pw}\n",
        name="gitee",
        description="where we push",
        type="reference",
    )
    made.secrets[hex_token] = made.secrets[pw] = "CUR503"

    body = pem_body()
    made.files["reference_deploy_key.md"] = memory(
        f"Deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n"
        "-----END OPENSSH PRIVATE KEY-----\n",
        name="deploy key",
        type="reference",
    )
    made.secrets["".join(body.split())] = "CUR504"
    made.fragments.extend(body.splitlines())

    described = "ghp_" + rand(36)
    made.files["project_ci.md"] = memory(
        "CI runs on every push.\n", name="ci", description=f"CI token {described}"
    )
    made.secrets[described] = "CUR501"
    indexed = "npm_" + rand(36)
    index = [f"- [{n}]({n}) — a memory" for n in sorted(made.files)]
    index.append(f"- [Publish](reference_npm.md) — publish with {indexed}")
    made.files["MEMORY.md"] = "# Memory\n" + "\n".join(index) + "\n"
    made.secrets[indexed] = "CUR501"

    commit = rand(40, HEX)
    request = str(uuid.uuid4())
    greeting = base64.b64encode(b"hello there, this is not a key").decode()
    lookalikes = [  # one look-alike a line
        "The AWS docs use AKIAIOSFODNN7EXAMPLE as the key id.",
        "Their secret key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
        "A GitHub token looks like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.",
        "Slack bot tokens start with xoxb- and live in SLACK_BOT_TOKEN.",
        "Stripe test keys are harmless here: sk_test_" + rand(24) + ".",
        "npm tokens look like npm_000000000000000000000000000000000000.",
        "jwt.io's sample: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "An unsigned JWT: eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
        "The key file starts with -----BEGIN OPENSSH PRIVATE KEY----- and stays out of git.",
        "Template: postgres://${DB_USER}:${DB_PASS}@db.acme.io:5432/app",
        "Shell: mysql://app:$MYSQL_PASSWORD@db.acme.io/app",
        "Local: postgres://postgres:postgres@localhost:5432/dev",
        "Jinja: amqp://app:{{ rabbit_password }}@mq.acme.io",
        "token: <token>",
        "API_KEY=YOUR_API_KEY",
        "secret: $DEPLOY_SECRET",
        "password: changeme",
        "pw=***",
        "The deploy key is kept in the team vault; the token is in GITEE_TOKEN.",
        "password: stored in Bitwarden",
        "token: op://Private/gitee/token",
        f"Fixed in commit {commit}.",
        f"request token: {request}",
        f"secret: {greeting}",
        "max_tokens: 4096; token_type: bearer",
        "password_file: ~/.config/app/password.txt",
        "token = getToken(user); DB_PASSWORD=process.env.DB_PASSWORD",
    ]
    made.files["reference_lookalikes.md"] = memory(
        "\n".join(lookalikes) + "\n", name="lookalikes", type="reference"
    )
    made.lookalikes = lookalikes
    return made
