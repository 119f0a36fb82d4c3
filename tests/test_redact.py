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
    # issue 16: forms that used to pass through
    "wandb_login": "9f3c2a7e5b1d4c8a0e6f2b9d7c5a3e1f0b8d6c4a",
    "netrc": "c0ffee15deadbeef0123456789abcdef76543210",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "boto": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8vW2k",
    "cli_password": "Tr0ub4dor-and-3",
    # found only by detect-secrets' plugins (Stripe key format; a quoted high-entropy base64 string)
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "entropy": "Q2hhbmdlTWUhIFRoaXMgaXMgYSB0ZXN0IHNlY3JldA",
}

LOG = f"""export HF_TOKEN={SECRETS['hf']}
OPENAI_API_KEY={SECRETS['openai']} AWS_ACCESS_KEY_ID={SECRETS['aws']}
git clone https://{SECRETS['github']}@github.com/org/repo.git
WANDB_API_KEY={SECRETS['wandb']}
pip download from https://user:{SECRETS['urlpass']}@pypi.internal/simple
Authorization: Bearer {SECRETS['bearer']}
wandb login {SECRETS['wandb_login']}
machine api.wandb.ai login user password {SECRETS['netrc']}
token: {SECRETS['jwt']}
creds = {{'AccessKeyId': 'ASIAXYZ', 'SecretAccessKey': '{SECRETS['boto']}'}}
+ python train.py --password {SECRETS['cli_password']} --max-new-tokens 128
stripe client configured with {SECRETS['stripe']}
payload = "{SECRETS['entropy']}"
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/user/train.py", line 3, in <module>
[rank0]: KeyError: 'token {SECRETS['hf']} not accepted by https://user:{SECRETS['urlpass']}@host'
"""
# every line above is an error or unexplained line somewhere in the report: make them all evidence
LOG = "".join(f"[rank0]: RuntimeError: {line}\n" for line in LOG.splitlines())


@pytest.mark.parametrize("extra", [[], ["--explain"]])
@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_no_secret_in_any_format(tmp_path, fmt: str, extra: list[str]) -> None:
    p = tmp_path / "job.log"
    p.write_text(LOG)
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", fmt, *extra])
    assert res.exit_code == 0, res.stderr
    for name, secret in SECRETS.items():
        assert secret not in res.stdout, f"{name} leaked in {fmt}"
    assert "[REDACTED]" in res.stdout


def test_no_redact_keeps_text(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_text(LOG)
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "json", "--no-redact"])
    for name, secret in SECRETS.items():  # every planted secret does reach the report: the test above means something
        assert secret in res.stdout, name


def test_redact_hosts_is_consistent(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_text("gpu-a17:1234:1300 [0] NCCL WARN NET/Socket : No usable listening interface found\n"
                 "gpu-a17:1234:1300 [0] NCCL WARN connect to 10.1.2.3<4567> failed\n")
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "json", "--redact-hosts"])
    assert "gpu-a17" not in res.stdout and "10.1.2.3" not in res.stdout and "node-1" in res.stdout


def test_redact_text_keeps_ordinary_log_words() -> None:
    from logsleuth.redact import redact_text

    for line in ["FATAL: password authentication failed for user postgres",
                 "max_tokens: 512 tokenizer=meta-llama/Llama-2-7b num_tokens=4096",
                 "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity)"]:
        assert redact_text(line) == line


def test_redact_hosts_covers_fqdn_and_ipv6(tmp_path) -> None:
    from logsleuth.redact import HostMap

    hosts = HostMap()
    text = ("connect to gpu7.cluster.example.com and ip-10-0-0-1.ec2.internal via [fe80::1%eth0]:29500, "
            "2001:db8::8a2e:370:7334 and ::ffff:10.0.0.1; see https://github.com/pytorch/pytorch/issues/1 "
            "c10d::TCPStore at 12:34:56 in torch.distributed.elastic threading.local train.py")
    out = hosts.apply(text)
    for leaked in ("example.com", "ec2.internal", "fe80", "2001:db8", "ffff"):
        assert leaked not in out
    assert "github.com/pytorch" in out and "c10d::TCPStore" in out and "12:34:56" in out
    assert "torch.distributed.elastic" in out and "threading.local" in out and "train.py" in out
    assert hosts.apply("gpu7.cluster.example.com") == hosts.apply("gpu7.cluster.example.com again").split()[0]


def test_control_characters_never_reach_a_report(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_bytes(b"[rank0]: RuntimeError: bad\x1b \xc2\x9b31m C1 CSI and back\x08\x08space \x07bell\n")
    for fmt in ("text", "markdown", "json", "html"):
        res = CliRunner().invoke(app, ["analyze", str(p), "-f", fmt, "--no-model"])
        assert res.exit_code == 0
        for ch in ("\x1b", "\x9b", "\x08", "\x07"):
            assert ch not in res.stdout, (fmt, ch)
        if fmt == "json":
            assert "\\u001b" not in res.stdout and "\\u009b" not in res.stdout
