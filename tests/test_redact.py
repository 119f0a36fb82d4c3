"""Planted secrets never reach any report format; --redact-hosts maps hosts consistently."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from logsleuth.cli import app

SECRETS = {
    "hf": "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1x",
    "openai": "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1",
    "aws": "AKIA" + "ABCDEFGHIJ234567",
    "github": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "wandb": "0123456789abcdef0123456789abcdef01234567",
    "urlpass": "s3cr3tPassw0rd",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.payload.sig",
}

LOG = f"""export HF_TOKEN={SECRETS['hf']}
OPENAI_API_KEY={SECRETS['openai']} AWS_ACCESS_KEY_ID={SECRETS['aws']}
git clone https://{SECRETS['github']}@github.com/org/repo.git
WANDB_API_KEY={SECRETS['wandb']}
pip download from https://user:{SECRETS['urlpass']}@pypi.internal/simple
Authorization: Bearer {SECRETS['bearer']}
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/user/train.py", line 3, in <module>
[rank0]: KeyError: 'token {SECRETS['hf']} not accepted by https://user:{SECRETS['urlpass']}@host'
"""


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_no_secret_in_any_format(tmp_path, fmt: str) -> None:
    p = tmp_path / "job.log"
    p.write_text(LOG)
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", fmt])
    assert res.exit_code == 0, res.stderr
    for name, secret in SECRETS.items():
        assert secret not in res.stdout, f"{name} leaked in {fmt}"
    assert "[REDACTED]" in res.stdout


def test_no_redact_keeps_text(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_text(LOG)
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "json", "--no-redact"])
    assert SECRETS["hf"] in res.stdout


def test_redact_hosts_is_consistent(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_text("gpu-a17:1234:1300 [0] NCCL WARN NET/Socket : No usable listening interface found\n"
                 "gpu-a17:1234:1300 [0] NCCL WARN connect to 10.1.2.3<4567> failed\n")
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "json", "--redact-hosts"])
    assert "gpu-a17" not in res.stdout and "10.1.2.3" not in res.stdout and "node-1" in res.stdout
